import { hostname } from 'node:os';
import path from 'node:path';
import { parseEncryptionKeys, SecretBoxError, type EncryptionKey } from './secret-box.js';

/**
 * Typed configuration from the environment. Every variable is listed in docs/configuration.md's
 * table; keep the two in step.
 */
export type Profile = 'development' | 'test' | 'production';

export interface Config {
  profile: Profile;
  host: string;
  port: number;
  /** postgres://… selects PostgreSQL; otherwise SQLite under dataDir. */
  databaseUrl: string | null;
  dataDir: string;
  redisUrl: string | null;
  logLevel: string;
  /** One info line per request (method, route pattern, status, duration, request id, workspace). */
  requestLog: boolean;
  /** Default requests per minute per workspace, per storefront key and per IP. */
  rateLimitPerMinute: number;
  /** How long a verified credential stays in the in-process cache. */
  keyCacheTtlMs: number;
  /** Lifetime of OAuth access tokens issued to client credentials. */
  accessTokenTtlSeconds: number;
  /** Grace period of a rotated key; the spec fixes it at 300 seconds. */
  rotationGraceSeconds: number;
  /** Largest request body accepted, in bytes. */
  bodyLimitBytes: number;
  /** Largest usage batch body (1,000 events with metadata), in bytes. */
  ingestBodyLimitBytes: number;
  /** Ingestion requests processed at once; the excess gets 503 with Retry-After at once. */
  ingestMaxInFlight: number;
  /** Bulk uploads a server reads at once; more get 503 with Retry-After. */
  uploadMaxConcurrent: number;
  /** How long an entitlement answer may be reused; 0 disables the cache. */
  entitlementCacheTtlMs: number;
  /** How often each node runs the billing job (renewals, then finalizing drafts past their grace period). */
  billingIntervalMs: number;
  /** An attempt with no outcome for this long is asked about again (the reconciliation of lost answers and webhooks). */
  paymentReconcileAfterMs: number;
  /** SQLite: how long the billing job waits for usage writes to pause before it takes the write lock anyway (db/write-turns.ts). */
  billingUsageWaitMs: number;
  /** Seed a demo workspace when the database holds no workspace yet. */
  seedDemo: boolean;
  /** Trust X-Forwarded-For for the client IP (behind a load balancer). */
  trustProxy: boolean;
  /**
   * Keys sealing stored webhook secrets; the first seals, all open. Null outside production means
   * a generated key kept under dataDir; production refuses to start without them.
   */
  encryptionKeys: EncryptionKey[] | null;
  /**
   * The address providers post to, as they see it (https://api.example.com): Twilio signs the full
   * URL, and proxies change the host and scheme. Null: taken from the request's Host header.
   */
  publicUrl: string | null;
  /** STRIPE_API_BASE: a Stripe-compatible server (scheme, host, port) the Stripe client talks to instead of Stripe; null: Stripe itself. */
  stripeApiBase: string | null;
  /**
   * TOLLGATE_STRIPE_FAKE (development only): `serve` starts the Stripe fake (demo/stripe-fake.ts) on
   * 127.0.0.1, points the Stripe client at it and has it post its events to every Stripe connection,
   * so collection can be tried without a Stripe account.
   */
  stripeFake: boolean;
  /** How long one call to Stripe may take before it counts as unavailable (its attempt is then reconciled). */
  stripeTimeoutMs: number;
  /** Development only: accept webhooks without checking signatures. Ignored, with a warning, elsewhere. */
  webhookVerificationDisabled: boolean;
  /** Webhook requests processed at once; the excess gets 503 with Retry-After at once. */
  webhookMaxInFlight: number;
  /** Days the webhook ingestion log keeps each request (raw body and headers) for replay. */
  webhookLogRetentionDays: number;
  /** Live audit streams a workspace (both environments) may hold open on one server. */
  auditStreamMaxPerTenant: number;
  /** Live audit streams one server holds open in all. */
  auditStreamMaxConnections: number;
  /** Bytes a slow stream client may leave unread before the server ends its stream. */
  auditStreamBufferBytes: number;
  /** Interval of the keep-alive comment on idle streams; 15 s keeps common proxies from closing them. */
  auditStreamHeartbeatMs: number;
  /** The retry: field sent to stream clients: how long they wait before reconnecting. */
  auditStreamRetryMs: number;
  /** How often the stream's tail reads without a commit signal (signals can be lost; CLI commands send none). */
  auditStreamPollMs: number;
  /** How long live events may wait to share one socket write per stream; 0 writes each at once. */
  auditStreamFlushMs: number;
  /** PostgreSQL: connections this node keeps at most (the database's budget divided by the nodes). */
  databasePoolSize: number;
  /** PostgreSQL: how long opening a connection (or waiting for a free one in the pool) may take. */
  databaseConnectTimeoutMs: number;
  /** PostgreSQL: the longest a statement may run (statement_timeout, and a client-side read timeout just past it for a frozen network). */
  databaseQueryTimeoutMs: number;
  /** PostgreSQL: a transaction left idle this long is ended by the server (idle_in_transaction_session_timeout). */
  databaseIdleInTransactionTimeoutMs: number;
  /** How long `tollgate serve` keeps retrying an unreachable database at start-up before it gives up. */
  databaseStartupRetrySeconds: number;
  /** Redis: how long one command may take before it counts as failed (the request then goes on without Redis). */
  redisCommandTimeoutMs: number;
  /** While Redis is away, each node allows 1/N of a rate limit: N is the live nodes last counted, never fewer than this. */
  redisMinNodes: number;
  /** The key cache's TTL while Redis is unreachable: without invalidation messages, this bounds how late a revocation bites on other nodes. */
  keyCacheDegradedTtlMs: number;
  /** How long a client may take to send a request's headers. */
  httpHeadersTimeoutMs: number;
  /** How long a client may take to send a whole request body (uploads excepted: they stream). */
  httpBodyTimeoutMs: number;
  /** An upload whose client sends nothing for this long is ended. */
  uploadIdleTimeoutMs: number;
  /** SQLite: how long a write waits for the other connection's write lock before answering 503 DATABASE_BUSY. */
  sqliteBusyTimeoutMs: number;
  /** SQLite: the usage writer thread's nice value (Linux), so checks on the main thread go first when the cores are short. */
  usageWriterNice: number;
  /** Outbound webhooks (modules/outbound-webhooks): run the sender on this node; false makes an API-only node. */
  outboundWebhookSender: boolean;
  /** One delivery attempt's deadline: connect, headers and body. */
  outboundWebhookTimeoutMs: number;
  /** The SSRF guard off: endpoint URLs may reach loopback, private, link-local and metadata addresses. */
  outboundWebhookAllowPrivateAddresses: boolean;
  /** Accept http:// endpoint URLs (otherwise https:// only). */
  outboundWebhookAllowHttp: boolean;
  /** The maxConcurrency of an endpoint created without one. */
  outboundWebhookEndpointConcurrency: number;
  /** Outbound requests one node has in flight in all. */
  outboundWebhookMaxInFlight: number;
  /** Endpoints one node sends for at once. */
  outboundWebhookMaxLanes: number;
  /** How long a node holds an endpoint's lane without renewing it. */
  outboundWebhookLeaseMs: number;
  /** The sender's backstop wake-up, without a commit signal. */
  outboundWebhookPollMs: number;
  /** An endpoint failing this long with no success is disabled. */
  outboundWebhookDisableAfterHours: number;
  /** Days messages (all deliveries final) and attempts are kept. */
  outboundWebhookLogRetentionDays: number;
  /** Endpoints per workspace and environment: bounds the read each emitting transaction makes. */
  outboundWebhookMaxEndpoints: number;
  /** GET /metrics asks for `Authorization: Bearer <this>` when set; open (like /health) when null. */
  metricsToken: string | null;
  /** Names this node in tollgate_build_info (and its traces): the host name unless TOLLGATE_NODE_NAME says otherwise. */
  nodeName: string;
  /** OpenTelemetry spans: off (the default), or otlp (to OTEL_EXPORTER_OTLP_ENDPOINT; the SDK must be installed, lib/tracing.ts). */
  tracing: 'off' | 'otlp';
}

export class ConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got '${raw}'`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got '${raw}'`);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const profileRaw = env.TOLLGATE_PROFILE ?? (env.NODE_ENV === 'production' ? 'production' : 'development');
  if (!['development', 'test', 'production'].includes(profileRaw)) {
    throw new ConfigError(`TOLLGATE_PROFILE must be development, test or production, got '${profileRaw}'`);
  }
  const profile = profileRaw as Profile;
  const databaseUrl = env.DATABASE_URL ? env.DATABASE_URL : null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL must start with postgres:// (leave it unset for the embedded SQLite database)`);
  }
  let encryptionKeys: EncryptionKey[] | null = null;
  if (env.TOLLGATE_ENCRYPTION_KEYS) {
    try {
      encryptionKeys = parseEncryptionKeys(env.TOLLGATE_ENCRYPTION_KEYS);
    } catch (err) {
      throw new ConfigError((err as SecretBoxError).message);
    }
  } else if (profile === 'production') {
    throw new ConfigError(
      'TOLLGATE_ENCRYPTION_KEYS is required in the production profile: it seals webhook signing secrets. Generate one with: echo "k1:$(openssl rand -base64 32)"',
    );
  }
  const tracing = env.TOLLGATE_TRACING || 'off';
  if (tracing !== 'off' && tracing !== 'otlp') throw new ConfigError(`TOLLGATE_TRACING must be off or otlp, got '${tracing}'`);
  const metricsToken = env.METRICS_TOKEN ? env.METRICS_TOKEN : null;
  if (metricsToken !== null && !/^[\x21-\x7e]{16,512}$/.test(metricsToken)) {
    throw new ConfigError('METRICS_TOKEN must be 16 to 512 printable characters without spaces (for example: openssl rand -hex 32)');
  }
  const publicUrl = env.PUBLIC_URL ? env.PUBLIC_URL.replace(/\/+$/, '') : null;
  if (publicUrl !== null && !/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/.test(publicUrl)) {
    throw new ConfigError(`PUBLIC_URL must be an http(s) address without query, such as https://api.example.com, got '${env.PUBLIC_URL}'`);
  }
  const stripeApiBase = env.STRIPE_API_BASE ? env.STRIPE_API_BASE : null;
  if (stripeApiBase !== null && !/^https?:\/\/[^/?#\s@]+\/?$/.test(stripeApiBase)) {
    throw new ConfigError(`STRIPE_API_BASE must be a scheme, a host and a port only, such as http://127.0.0.1:12111, got '${stripeApiBase}'`);
  }
  const stripeFake = bool(env, 'TOLLGATE_STRIPE_FAKE', false);
  if (stripeFake && profile !== 'development') {
    throw new ConfigError(`TOLLGATE_STRIPE_FAKE runs a stand-in for Stripe: the development profile only (this is ${profile})`);
  }
  if (stripeFake && stripeApiBase !== null) throw new ConfigError('TOLLGATE_STRIPE_FAKE and STRIPE_API_BASE both name the Stripe server: set one');
  return {
    profile,
    stripeApiBase,
    stripeFake,
    stripeTimeoutMs: int(env, 'STRIPE_TIMEOUT_MS', 10_000, 100, 80_000),
    host: env.HOST || '127.0.0.1',
    port: int(env, 'PORT', 8080, 0, 65535),
    databaseUrl,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    redisUrl: env.REDIS_URL ? env.REDIS_URL : null,
    logLevel: env.LOG_LEVEL || 'info',
    requestLog: bool(env, 'REQUEST_LOG', profile === 'production'),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 300, 1, 10_000_000),
    keyCacheTtlMs: int(env, 'KEY_CACHE_TTL_MS', 10_000, 0, 3_600_000),
    accessTokenTtlSeconds: int(env, 'ACCESS_TOKEN_TTL_SECONDS', 3600, 60, 86_400),
    rotationGraceSeconds: 300,
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1_048_576, 1024, 64 * 1_048_576),
    ingestBodyLimitBytes: int(env, 'INGEST_BODY_LIMIT_BYTES', 5 * 1_048_576, 1024, 256 * 1_048_576),
    ingestMaxInFlight: int(env, 'INGEST_MAX_IN_FLIGHT', 4, 1, 10_000),
    entitlementCacheTtlMs: int(env, 'ENTITLEMENT_CACHE_TTL_MS', 250, 0, 5_000),
    billingIntervalMs: int(env, 'BILLING_INTERVAL_MS', 60_000, 1_000, 3_600_000),
    // Longer than a call to Stripe may take (10 s), so an attempt still being made is not sent twice by two nodes.
    paymentReconcileAfterMs: int(env, 'PAYMENT_RECONCILE_AFTER_MS', 60_000, 0, 86_400_000),
    billingUsageWaitMs: int(env, 'BILLING_USAGE_WAIT_MS', 100, 0, 10_000),
    uploadMaxConcurrent: int(env, 'UPLOAD_MAX_CONCURRENT', 2, 1, 100),
    seedDemo: bool(env, 'SEED_DEMO', profile !== 'production'),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    encryptionKeys,
    publicUrl,
    webhookVerificationDisabled: bool(env, 'WEBHOOK_VERIFICATION_DISABLED', false),
    webhookMaxInFlight: int(env, 'WEBHOOK_MAX_IN_FLIGHT', 256, 1, 100_000),
    webhookLogRetentionDays: int(env, 'WEBHOOK_LOG_RETENTION_DAYS', 30, 1, 3650),
    auditStreamMaxPerTenant: int(env, 'AUDIT_STREAM_MAX_PER_TENANT', 100, 1, 100_000),
    auditStreamMaxConnections: int(env, 'AUDIT_STREAM_MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    auditStreamBufferBytes: int(env, 'AUDIT_STREAM_BUFFER_BYTES', 1_048_576, 1024, 256 * 1_048_576),
    auditStreamHeartbeatMs: int(env, 'AUDIT_STREAM_HEARTBEAT_MS', 15_000, 10, 300_000),
    auditStreamRetryMs: int(env, 'AUDIT_STREAM_RETRY_MS', 3_000, 100, 600_000),
    auditStreamPollMs: int(env, 'AUDIT_STREAM_POLL_MS', 1_000, 10, 3_600_000),
    auditStreamFlushMs: int(env, 'AUDIT_STREAM_FLUSH_MS', 10, 0, 1_000),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 1_000),
    databaseConnectTimeoutMs: int(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5_000, 100, 600_000),
    databaseQueryTimeoutMs: int(env, 'DATABASE_QUERY_TIMEOUT_MS', 15_000, 100, 3_600_000),
    databaseIdleInTransactionTimeoutMs: int(env, 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 15_000, 100, 3_600_000),
    databaseStartupRetrySeconds: int(env, 'DATABASE_STARTUP_RETRY_SECONDS', 120, 0, 86_400),
    redisCommandTimeoutMs: int(env, 'REDIS_COMMAND_TIMEOUT_MS', 50, 5, 60_000),
    redisMinNodes: int(env, 'REDIS_MIN_NODES', 2, 1, 10_000),
    keyCacheDegradedTtlMs: int(env, 'KEY_CACHE_DEGRADED_TTL_MS', 2_000, 0, 3_600_000),
    httpHeadersTimeoutMs: int(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    httpBodyTimeoutMs: int(env, 'HTTP_BODY_TIMEOUT_MS', 30_000, 100, 3_600_000),
    uploadIdleTimeoutMs: int(env, 'UPLOAD_IDLE_TIMEOUT_MS', 30_000, 100, 3_600_000),
    sqliteBusyTimeoutMs: int(env, 'SQLITE_BUSY_TIMEOUT_MS', 5_000, 0, 600_000),
    usageWriterNice: int(env, 'USAGE_WRITER_NICE', 10, 0, 19),
    outboundWebhookSender: bool(env, 'OUTBOUND_WEBHOOK_SENDER', true),
    outboundWebhookTimeoutMs: int(env, 'OUTBOUND_WEBHOOK_TIMEOUT_MS', 15_000, 100, 60_000),
    outboundWebhookAllowPrivateAddresses: bool(env, 'OUTBOUND_WEBHOOK_ALLOW_PRIVATE_ADDRESSES', profile === 'development'),
    outboundWebhookAllowHttp: bool(env, 'OUTBOUND_WEBHOOK_ALLOW_HTTP', profile !== 'production'),
    outboundWebhookEndpointConcurrency: int(env, 'OUTBOUND_WEBHOOK_ENDPOINT_CONCURRENCY', 16, 1, 256),
    outboundWebhookMaxInFlight: int(env, 'OUTBOUND_WEBHOOK_MAX_IN_FLIGHT', 512, 1, 100_000),
    outboundWebhookMaxLanes: int(env, 'OUTBOUND_WEBHOOK_MAX_LANES', 256, 1, 100_000),
    outboundWebhookLeaseMs: int(env, 'OUTBOUND_WEBHOOK_LEASE_MS', 10_000, 500, 600_000),
    outboundWebhookPollMs: int(env, 'OUTBOUND_WEBHOOK_POLL_MS', 1_000, 10, 3_600_000),
    outboundWebhookDisableAfterHours: int(env, 'OUTBOUND_WEBHOOK_DISABLE_AFTER_HOURS', 120, 1, 8_760),
    outboundWebhookLogRetentionDays: int(env, 'OUTBOUND_WEBHOOK_LOG_RETENTION_DAYS', 30, 1, 3650),
    outboundWebhookMaxEndpoints: int(env, 'OUTBOUND_WEBHOOK_MAX_ENDPOINTS', 20, 1, 1_000),
    metricsToken,
    nodeName: env.TOLLGATE_NODE_NAME || hostname(),
    tracing,
  };
}
