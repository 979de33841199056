import path from 'node:path';

/**
 * Typed configuration from the environment. Every variable is listed in the README's
 * configuration table; keep the two in step.
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
  /** Seed a demo workspace when the database holds no workspace yet. */
  seedDemo: boolean;
  /** Trust X-Forwarded-For for the client IP (behind a load balancer). */
  trustProxy: boolean;
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
  return {
    profile,
    host: env.HOST || '127.0.0.1',
    port: int(env, 'PORT', 8080, 0, 65535),
    databaseUrl,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    redisUrl: env.REDIS_URL ? env.REDIS_URL : null,
    logLevel: env.LOG_LEVEL || 'info',
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 300, 1, 10_000_000),
    keyCacheTtlMs: int(env, 'KEY_CACHE_TTL_MS', 10_000, 0, 3_600_000),
    accessTokenTtlSeconds: int(env, 'ACCESS_TOKEN_TTL_SECONDS', 3600, 60, 86_400),
    rotationGraceSeconds: 300,
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1_048_576, 1024, 64 * 1_048_576),
    ingestBodyLimitBytes: int(env, 'INGEST_BODY_LIMIT_BYTES', 5 * 1_048_576, 1024, 256 * 1_048_576),
    ingestMaxInFlight: int(env, 'INGEST_MAX_IN_FLIGHT', 4, 1, 10_000),
    entitlementCacheTtlMs: int(env, 'ENTITLEMENT_CACHE_TTL_MS', 250, 0, 5_000),
    uploadMaxConcurrent: int(env, 'UPLOAD_MAX_CONCURRENT', 2, 1, 100),
    seedDemo: bool(env, 'SEED_DEMO', profile !== 'production'),
    trustProxy: bool(env, 'TRUST_PROXY', false),
  };
}
