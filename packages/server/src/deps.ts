import { randomBytes } from 'node:crypto';
import { pino, type Logger } from 'pino';
import type SQLite from 'better-sqlite3';
import type { Config } from './config.js';
import type { Db, DialectName } from './db/database.js';
import { systemClock, type Clock } from './lib/clock.js';
import { createIdGenerator, type IdGenerator } from './lib/ids.js';
import { createLocalBus, createRedisBus, type Bus } from './lib/bus.js';
import { RedisLink } from './lib/redis.js';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from './lib/rate-limiter.js';
import { TtlCache } from './lib/ttl-cache.js';
import { createInProcessUsageWriter, type UsageWriter } from './modules/usage/usage-writer.js';
import { createSqliteWorkerWriter } from './modules/usage/sqlite-usage-writer.js';
import type { Credential } from './modules/api-keys/credential.js';
import { CATALOG_CHANNEL } from './modules/catalog/catalog-changed.js';
import type { PricedOffering } from './modules/catalog/load-priced-offering.js';
import { DELIVERY_SOURCE_TTL_MS, PLUGS_CHANNEL, type DeliverySource } from './modules/plugs/delivery-source.js';
import { loadOrCreateKeyFile, SecretBox } from './lib/secret-box.js';
import { CUSTOMER_REF_TTL_MS, CUSTOMERS_CHANNEL } from './modules/customers/customer-refs.js';
import { AuditFeed } from './modules/audit/audit-feed.js';
import { signalAuditCommitted } from './modules/audit/audit-commit-signal.js';

/** Everything an operation may touch. Domain code gets time and ids from here, never globally. */
export interface Deps {
  db: Db;
  dialect: DialectName;
  /** The raw SQLite handle for the usage writer's fast path; null on PostgreSQL. */
  sqlite: SQLite.Database | null;
  config: Config;
  clock: Clock;
  ids: IdGenerator;
  log: Logger;
  bus: Bus;
  limiter: RateLimiter;
  /** Credentials by SHA-256 of the presented secret; null caches "no such credential". */
  credentials: TtlCache<Credential | null>;
  /** Entitlement answers as JSON text, by tenant, customer and product, for ENTITLEMENT_CACHE_TTL_MS at most. */
  entitlements: TtlCache<string>;
  /** Offerings with their rate plans, as rating and entitlement checks need them (catalog/load-priced-offering.ts). */
  catalog: TtlCache<PricedOffering | null>;
  /** Webhook sources as the receiver needs them (plugs/delivery-source.ts). */
  plugs: TtlCache<DeliverySource>;
  /** Customer ids by tenant and reference (id or externalId), hits only (customers/customer-refs.ts). */
  customerRefs: TtlCache<string>;
  /** Seals and opens stored secrets (webhook signing secrets) with AES-256-GCM. */
  secrets: SecretBox;
  /** Where checked usage events are written (see modules/usage/usage-writer.ts). */
  usage: UsageWriter;
  /** The live audit stream's subscribers on this node and the tail that feeds them. */
  auditFeed: AuditFeed;
  /** Drops cached credentials on this node and, through the bus, on every node. */
  invalidateCredentials(): Promise<void>;
  close(): Promise<void>;
}

export const CREDENTIALS_CHANNEL = 'credentials.invalidate';
export const CATALOG_CACHE_TTL_MS = 5_000;
/** How long a starting node waits for Redis before it starts without it. */
const REDIS_STARTUP_WAIT_MS = 3_000;

export interface CreateDepsOptions {
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
}

export async function createDeps(opts: CreateDepsOptions): Promise<Deps> {
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? pino({ level: opts.config.logLevel });
  const prefix = opts.redisPrefix ?? 'tollgate:';
  // Our own messages come back too; the origin tag only saves a second clear(). It also names this node to Redis.
  const origin = randomBytes(8).toString('hex');
  const redis = opts.config.redisUrl
    ? new RedisLink({ url: opts.config.redisUrl, prefix, commandTimeoutMs: opts.config.redisCommandTimeoutMs, nodeId: origin, log })
    : null;
  const bus = redis ? createRedisBus(redis) : createLocalBus();
  const limiter = redis ? createRedisRateLimiter(redis, clock) : createMemoryRateLimiter(clock);
  const credentials = new TtlCache<Credential | null>(clock, opts.config.keyCacheTtlMs);
  await bus.subscribe(CREDENTIALS_CHANNEL, (message) => {
    if (message !== origin) credentials.clear();
  });
  // Offerings change rarely and every change broadcasts a clear; the TTL bounds staleness when
  // a broadcast is lost.
  const catalog = new TtlCache<PricedOffering | null>(clock, CATALOG_CACHE_TTL_MS, 10_000);
  await bus.subscribe(CATALOG_CHANNEL, () => catalog.clear());
  const plugs = new TtlCache<DeliverySource>(clock, DELIVERY_SOURCE_TTL_MS, 10_000);
  await bus.subscribe(PLUGS_CHANNEL, () => plugs.clear());
  const customerRefs = new TtlCache<string>(clock, CUSTOMER_REF_TTL_MS, 100_000);
  const entitlements = new TtlCache<string>(clock, opts.config.entitlementCacheTtlMs, 50_000);
  await bus.subscribe(CUSTOMERS_CHANNEL, () => customerRefs.clear());
  if (redis) {
    // Without Redis no invalidation reaches this node: keep keys a short while only, so a
    // revocation elsewhere bites within KEY_CACHE_DEGRADED_TTL_MS. Either way round, messages may
    // have been missed: every cache starts afresh.
    credentials.setTtl(opts.config.keyCacheDegradedTtlMs);
    redis.onChange((up) => {
      credentials.setTtl(up ? opts.config.keyCacheTtlMs : opts.config.keyCacheDegradedTtlMs);
      for (const cache of [credentials, catalog, plugs, customerRefs, entitlements]) cache.clear();
    });
    // Shared limits and invalidation from the first request when Redis is there; without it the
    // node starts anyway, degraded, and catches up when Redis comes.
    if (!(await redis.whenUp(REDIS_STARTUP_WAIT_MS)))
      log.warn('redis not reachable at start: starting in degraded mode (per-node rate limits, short key cache)');
  }
  let keys = opts.config.encryptionKeys;
  if (!keys) {
    const file = loadOrCreateKeyFile(opts.config.dataDir);
    keys = file.keys;
    log.warn(
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
    credentials,
    entitlements,
    catalog,
    plugs,
    customerRefs,
    secrets: new SecretBox(keys),
    async invalidateCredentials() {
      credentials.clear();
      try {
        await bus.publish(CREDENTIALS_CHANNEL, origin);
      } catch (err) {
        // The change is committed; other nodes fall back to the cache TTL.
        log.error({ err }, 'could not publish credential invalidation; other nodes catch up within KEY_CACHE_TTL_MS');
      }
    },
    usage: null as unknown as UsageWriter, // set below: the writer needs the finished deps
    auditFeed: null as unknown as AuditFeed, // set below, like usage
    async close() {
      deps.auditFeed.close();
      await deps.usage.close();
      await bus.close();
      await limiter.close();
      await redis?.close();
      await opts.closeDb();
    },
  };
  deps.usage = opts.sqliteFile
    ? // Its thread writes audit events (usage.batch_ingested) on its own connection: each reply
      // comes after a commit.
      createSqliteWorkerWriter(
        opts.sqliteFile,
        { busyTimeoutMs: opts.config.sqliteBusyTimeoutMs, nice: opts.config.usageWriterNice },
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
  deps.auditFeed = new AuditFeed(deps);
  await deps.auditFeed.listen();
  return deps;
}
