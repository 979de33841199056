import { randomBytes } from 'node:crypto';
import { pino, type Logger } from 'pino';
import type SQLite from 'better-sqlite3';
import type { Config } from './lib/config.js';
import type { Db, DialectName } from './db/database.js';
import type { Deps } from './deps.js';
import { Caches } from './lib/caches.js';
import { systemClock, type Clock } from './lib/clock.js';
import { createIdGenerator } from './lib/ids.js';
import { createLocalBus, createRedisBus } from './lib/bus.js';
import { RedisLink } from './lib/redis.js';
import { createMemoryRateLimiter, createRedisRateLimiter } from './lib/rate-limiter.js';
import { loadOrCreateKeyFile, SecretBox } from './lib/secret-box.js';
import { credentialCache } from './modules/credentials/credential-cache.js';
import { pricedOfferingCache } from './modules/catalog/load-priced-offering.js';
import { priceVersionCache } from './modules/catalog/price-version.js';
import { activeGrantsCache } from './modules/credits/live-credits.js';
import { creditSettingsCache } from './modules/credits/evaluate-credit-settings.js';
import { customerRefCache } from './modules/customers/customer-refs.js';
import { entitlementAnswerCache, usageCommitCache, usageCommitted } from './modules/entitlements/entitlement-answer-cache.js';
import { deliverySourceCache } from './modules/plugs/delivery-source.js';
import { periodEdgeCache } from './modules/usage/period-usage.js';
import { AuditFeed } from './modules/audit/audit-feed.js';
import { signalAuditCommitted } from './modules/audit/audit-commit-signal.js';
import { createInProcessUsageWriter, type IngestWriter } from './modules/ingest-writer/ingest-writer.js';
import { WriteTurns } from './db/write-turns.js';
import { createSqliteWorkerWriter } from './modules/ingest-writer/sqlite-usage-writer.js';
import { WebhookSender } from './modules/outbound-webhooks/webhook-sender.js';
import type { HostResolver } from './modules/outbound-webhooks/resolve-destination.js';
import { Metrics, type PoolStats } from './lib/metrics.js';
import { startOtlpTracing, type Tracer } from './lib/tracing.js';
import { measuredWriter } from './modules/ingest-writer/measured-writer.js';
import { onUsageCommitted } from './modules/ingest-writer/on-usage-committed.js';
import { serverVersion } from './version.js';

/** Every module cache: created once per node here, before anything serves. */
const MODULE_CACHES = [
  credentialCache,
  pricedOfferingCache,
  priceVersionCache,
  entitlementAnswerCache,
  usageCommitCache,
  deliverySourceCache,
  customerRefCache,
  periodEdgeCache,
  activeGrantsCache,
  creditSettingsCache,
];

/** How long a starting node waits for Redis before it starts without it. */
const REDIS_STARTUP_WAIT_MS = 3_000;

/**
 * What the composition root builds: the ports every operation takes, and the module services
 * wired above them, which buildApp hands to the routes that need them.
 */
export interface Composition {
  deps: Deps;
  /** Where ingested usage and webhook requests are written (modules/ingest-writer). */
  usage: IngestWriter;
  /** The live audit stream's subscribers on this node and the tail that feeds them. */
  auditFeed: AuditFeed;
  /** This node's outbound webhook sender, running; null when OUTBOUND_WEBHOOK_SENDER is off. */
  webhookSender: WebhookSender | null;
  close(): Promise<void>;
}

export interface ComposeOptions {
  config: Config;
  db: Db;
  dialect: DialectName;
  sqlite?: SQLite.Database | null;
  /** An SQLite file: usage is then written by a writer thread with its own connection to it. */
  sqliteFile?: string | null;
  closeDb: () => Promise<void>;
  clock?: Clock;
  log?: Logger;
  /** Namespaces Redis keys and channels; tests give each app its own. */
  redisPrefix?: string;
  /** The DNS the outbound webhook sender's SSRF guard resolves with (tests inject one); the system's by default. */
  webhookResolver?: HostResolver;
  /** PostgreSQL: the pool's counts, for tollgate_db_pool_* (db/database.ts OpenedDatabase.poolStats). */
  poolStats?: (() => PoolStats) | null;
  /** A tracer to use instead of the one TOLLGATE_TRACING starts (tests pass one with an in-memory exporter). */
  tracer?: Tracer | null;
}

/** The composition root: builds everything, top down, once per node (tests build one per app). */
export async function compose(opts: ComposeOptions): Promise<Composition> {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? pino({ level: opts.config.logLevel });
  const prefix = opts.redisPrefix ?? 'tollgate:';
  // Our own messages come back too; the origin tag only saves a second clear(). It also names this node to Redis.
  const origin = randomBytes(8).toString('hex');
  const redis = opts.config.redisUrl
    ? new RedisLink({
        url: opts.config.redisUrl,
        prefix,
        commandTimeoutMs: opts.config.redisCommandTimeoutMs,
        nodeId: origin,
        log,
        minNodes: opts.config.redisMinNodes,
      })
    : null;
  // One registry per app: tests build several apps in one process.
  const metrics = new Metrics({ version: serverVersion, node: opts.config.nodeName, dialect: opts.dialect, processMetrics: true });
  if (opts.poolStats) metrics.watchDatabasePool(opts.poolStats);
  if (redis)
    metrics.watchRedis(
      () => redis.up,
      () => redis.nodes,
    );
  const tracing = opts.tracer === undefined && opts.config.tracing === 'otlp' ? await startOtlpTracing(serverVersion) : null;
  const tracer = opts.tracer ?? tracing?.tracer ?? null;
  const bus = redis ? createRedisBus(redis) : createLocalBus();
  const limiter = redis ? createRedisRateLimiter(redis, clock) : createMemoryRateLimiter(clock);
  const caches = new Caches({ clock, config: opts.config, bus, log }, origin);
  // Without Redis no invalidation reaches this node: keep keys a short while only, so a revocation
  // elsewhere bites within KEY_CACHE_DEGRADED_TTL_MS, until Redis is up.
  if (redis) caches.setDegraded(true);
  for (const spec of MODULE_CACHES) await caches.register(spec);
  metrics.watchCaches(() => caches.stats());
  if (redis) {
    // Either way round, messages may have been missed: every cache starts afresh.
    redis.onChange((up) => caches.setDegraded(!up));
    // Shared limits and invalidation from the first request when Redis is there; without it the
    // node starts anyway, degraded, and catches up when Redis comes.
    if (!(await redis.whenUp(REDIS_STARTUP_WAIT_MS)))
      log.warn(
        { nodes: redis.nodes },
        `redis not reachable at start: starting degraded (each rate limit counted on this node at 1/${redis.nodes}, REDIS_MIN_NODES at least; short key cache)`,
      );
  }
  let keys = opts.config.encryptionKeys;
  if (!keys) {
    const file = loadOrCreateKeyFile(opts.config.dataDir);
    keys = file.keys;
    // Once per data directory (when the key file is made), not on every start and CLI command.
    log[file.created ? 'warn' : 'debug'](
      { file: file.file, created: file.created },
      'TOLLGATE_ENCRYPTION_KEYS is not set: webhook signing secrets are sealed with a development key kept in the data directory. Set TOLLGATE_ENCRYPTION_KEYS outside development (the production profile requires it).',
    );
  }
  if (opts.config.webhookVerificationDisabled) {
    if (opts.config.profile === 'development') log.warn('WEBHOOK_VERIFICATION_DISABLED: webhook signatures are NOT checked (development profile only)');
    else log.warn({ profile: opts.config.profile }, 'WEBHOOK_VERIFICATION_DISABLED is ignored outside the development profile: webhook signatures are checked');
  }
  const deps: Deps = {
    db: opts.db,
    dialect: opts.dialect,
    sqlite: opts.sqlite ?? null,
    config: opts.config,
    clock,
    ids: createIdGenerator(clock),
    log,
    bus,
    limiter,
    caches,
    secrets: new SecretBox(keys),
    writeTurns: new WriteTurns(opts.config.billingUsageWaitMs),
    metrics,
    tracer,
  };
  const writer = opts.sqliteFile
    ? // Its thread writes audit events (usage.batch_ingested) on its own connection: each reply
      // comes after a commit.
      createSqliteWorkerWriter(
        opts.sqliteFile,
        { busyTimeoutMs: opts.config.sqliteBusyTimeoutMs, nice: opts.config.usageWriterNice, turns: deps.writeTurns },
        clock,
        log,
        signalAuditCommitted,
      )
    : opts.dialect === 'postgres'
      ? // One job per transaction: a group of several jobs would lock aggregate rows out of order
        // and deadlock with another lane (PostgreSQL waits a second before it notices). Concurrent
        // commits on several connections share WAL flushes anyway.
        createInProcessUsageWriter(deps, { lanes: 4, jobsPerCommit: 1 })
      : createInProcessUsageWriter(deps, { lanes: 1, jobsPerCommit: 32 });
  const usage = measuredWriter(
    onUsageCommitted(writer, (tenant, customerIds) => usageCommitted(deps, tenant, customerIds)),
    deps,
  );
  const auditFeed = new AuditFeed(deps);
  await auditFeed.listen();
  // Sends what is pending, from before this start too; the node id names it in lanes and attempts.
  const webhookSender = opts.config.outboundWebhookSender ? new WebhookSender(deps, { nodeId: origin, resolver: opts.webhookResolver }) : null;
  await webhookSender?.start();
  if (webhookSender) metrics.watchOutboundInFlight(() => webhookSender.inFlightCount);
  return {
    deps,
    usage,
    auditFeed,
    webhookSender,
    async close() {
      // First: its last results and lane releases need the database and the bus.
      await webhookSender?.close();
      auditFeed.close();
      await usage.close();
      await bus.close();
      await limiter.close();
      await redis?.close();
      await opts.closeDb();
      await tracing?.shutdown();
    },
  };
}
