import type SQLite from 'better-sqlite3';
import type { Logger } from 'pino';
import type { Db, DialectName } from './db/database.js';
import type { Bus } from './lib/bus.js';
import type { Caches } from './lib/caches.js';
import type { Clock } from './lib/clock.js';
import type { Config } from './lib/config.js';
import type { IdGenerator } from './lib/ids.js';
import type { RateLimiter } from './lib/rate-limiter.js';
import type { SecretBox } from './lib/secret-box.js';
import type { WriteTurns } from './db/write-turns.js';
import type { Metrics } from './lib/metrics.js';
import type { Tracer } from './lib/tracing.js';

/**
 * The low-level ports every operation may touch, built by the composition root (compose.ts).
 * Domain code gets time and ids from here, never globally. It names no module type: a module that
 * needs another module's service (the usage writer, the live audit feed) gets it through an
 * explicit parameter, and a module's cache is declared by that module (lib/caches.ts).
 */
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
  /** This node's caches, one per module spec (credentials, rated offerings, entitlement answers…). */
  caches: Caches;
  /** Seals and opens stored secrets (webhook signing secrets) with AES-256-GCM. */
  secrets: SecretBox;
  /** SQLite's one write lock: usage writes first, background jobs take turns (db/write-turns.ts). */
  writeTurns: WriteTurns;
  /** This node's Prometheus series (lib/metrics.ts): typed instruments, one registry per app. */
  metrics: Metrics;
  /** OpenTelemetry spans (lib/tracing.ts); null unless TOLLGATE_TRACING is set, so tracing off costs a null check. */
  tracer: Tracer | null;
}

/**
 * What the storage write path needs (usage, webhook groups, idempotency keys, audit rows): the
 * SQLite writer thread builds exactly this much on its own connection.
 */
export type StorageDeps = Pick<Deps, 'db' | 'dialect' | 'sqlite' | 'clock' | 'ids' | 'log'>;
