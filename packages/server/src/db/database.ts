import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { createRequire } from 'node:module';
import type pgModule from 'pg';
import { CamelCasePlugin, Kysely, PostgresAdapter, PostgresDialect, SqliteDialect } from 'kysely';
import type { Database } from './schema.js';
import { decimalAdd } from '../lib/money.js';
import { classifyDatabaseError } from './errors.js';
import type { PoolStats } from '../lib/metrics.js';

export type Db = Kysely<Database>;
export type DialectName = 'sqlite' | 'postgres';

/**
 * Whether an executor (a database, a transaction, a migration's handle) talks to PostgreSQL: for
 * code that is handed an executor rather than deps.dialect.
 */
export function isPostgres<DB>(db: Kysely<DB>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export interface OpenedDatabase {
  db: Db;
  dialect: DialectName;
  /** Where the data lives, for the start-up banner (never includes a password). */
  describe: string;
  /** The raw better-sqlite3 handle on SQLite (the usage writer's fast path), else null. */
  sqlite: SQLite.Database | null;
  /** The SQLite file, or null in memory and on PostgreSQL: a second connection can open it. */
  sqliteFile: string | null;
  /** PostgreSQL: the pool's connections now (tollgate_db_pool_*); null on SQLite. */
  poolStats: (() => PoolStats) | null;
  close: () => Promise<void>;
}

export interface OpenDatabaseOptions {
  /** postgres://… or null for SQLite. */
  databaseUrl: string | null;
  /** SQLite file path, or ':memory:'. */
  sqlitePath?: string;
  /**
   * SQLite in memory, opened from a serialized database (better-sqlite3's serialize()) instead of
   * empty: the suite copies one migrated image into each test app rather than migrating each anew.
   */
  sqliteImage?: Buffer;
  dataDir?: string;
  /** PostgreSQL schema to use instead of public (tests isolate themselves this way). */
  pgSchema?: string;
  /**
   * More PostgreSQL settings for every session of the pool (`-c name=value`). The suite's apps set
   * synchronous_commit=off: a commit is as visible and atomic as ever, only not waited for on disk,
   * which a test database never needs and which cost a disk flush per commit.
   */
  pgSettings?: Record<string, string>;
  poolSize?: number;
  /** PostgreSQL timeouts (config.ts has their defaults and meaning); unset: none. */
  timeouts?: DatabaseTimeouts;
  /** SQLite: how long a write waits for another connection's write lock before SQLITE_BUSY (default 5 s). */
  sqliteBusyTimeoutMs?: number;
}

export interface DatabaseTimeouts {
  connectMs: number;
  queryMs: number;
  idleInTransactionMs: number;
}

// bigint columns hold epoch milliseconds, which fit a JS number exactly; node-postgres would
// otherwise return them as strings.
/**
 * node-postgres, loaded when a PostgreSQL database is opened: a node on SQLite never pays the
 * ~150 ms its modules take to load at a start.
 */
let pgLoaded: typeof pgModule | null = null;
function loadPg(): typeof pgModule {
  return (pgLoaded ??= createRequire(import.meta.url)('pg') as typeof pgModule);
}

const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (value: string) => Number(value);
    return (loadPg().types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
  },
};

/** Prepared statements kept per SQL text; past this many the oldest are dropped. */
const STATEMENT_CACHE_SIZE = 512;

/**
 * Kysely's SQLite driver prepares every query anew, which costs as much as running a small one.
 * better-sqlite3 statements are reusable (and re-prepare themselves after a schema change), and
 * the driver never iterates one while another query runs (we do not stream), so the same SQL
 * text can share one statement.
 */
function withStatementCache(sqlite: SQLite.Database) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sqlText: string): SQLite.Statement {
      // Kysely begins transactions with a plain BEGIN, which takes the write lock only at the
      // first write: if another connection (the usage writer thread) writes meanwhile, the upgrade
      // fails at once with SQLITE_BUSY, busy timeout or not. BEGIN IMMEDIATE takes the lock up
      // front and waits for it, so two connections' writes queue instead of failing.
      const text = sqlText === 'begin' ? 'begin immediate' : sqlText;
      let stmt = cache.get(text);
      if (stmt === undefined) {
        stmt = sqlite.prepare(text);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(text, stmt);
      }
      return stmt;
    },
  };
}

/**
 * The pool as Kysely sees it, made safe for a database that restarts or a network that freezes:
 * - every client gets an 'error' listener for its whole life: pg-pool listens only while a client
 *   is idle, so a connection killed while checked out (mid-transaction, between two queries)
 *   would otherwise raise an unhandled 'error' and end the process;
 * - a client whose query failed because its connection broke or timed out is destroyed on
 *   release instead of going back to the pool, where it would fail (or hang) the next request.
 */
function guardedPool(pool: pgModule.Pool) {
  pool.on('connect', (client) => client.on('error', () => undefined));
  // An idle client's error (the server restarting, say) must not crash the process either.
  pool.on('error', () => undefined);
  return {
    async connect() {
      const client = await pool.connect();
      let broken = false;
      return {
        query(...args: unknown[]) {
          return (client.query as (...a: unknown[]) => Promise<unknown>)(...args).catch((err: unknown) => {
            if (classifyDatabaseError(err) !== null) broken = true;
            throw err;
          });
        },
        release() {
          client.release(broken ? new Error('connection broken or timed out') : undefined);
        },
      };
    },
    end: () => pool.end(),
  };
}

/** PostgreSQL session settings: the schema (tests isolate themselves) and the server-side timeouts. */
function pgOptions(opts: OpenDatabaseOptions): string | undefined {
  const settings: string[] = [];
  if (opts.pgSchema) settings.push(`-c search_path=${opts.pgSchema}`);
  for (const [name, value] of Object.entries(opts.pgSettings ?? {})) settings.push(`-c ${name}=${value}`);
  if (opts.timeouts) {
    settings.push(`-c statement_timeout=${opts.timeouts.queryMs}`);
    settings.push(`-c idle_in_transaction_session_timeout=${opts.timeouts.idleInTransactionMs}`);
  }
  return settings.length > 0 ? settings.join(' ') : undefined;
}

export function openDatabase(opts: OpenDatabaseOptions): OpenedDatabase {
  const plugins = [new CamelCasePlugin()];
  if (opts.databaseUrl) {
    const t = opts.timeouts;
    const options = pgOptions(opts);
    const pool = new (loadPg().Pool)({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      types: pgTypes,
      // A dead peer is noticed by the OS, not only when a query times out.
      keepAlive: true,
      ...(options ? { options } : {}),
      // Also bounds the wait for a free client when every one is stuck.
      ...(t ? { connectionTimeoutMillis: t.connectMs } : {}),
      // The server's statement_timeout ends a slow statement; this ends the wait when the network
      // itself is frozen and no answer can come.
      ...(t && t.queryMs > 0 ? { query_timeout: t.queryMs + 1_000 } : {}),
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: guardedPool(pool) as never }), plugins });
    const url = new URL(opts.databaseUrl);
    return {
      db,
      dialect: 'postgres',
      describe: `PostgreSQL ${url.hostname}:${url.port || 5432}${url.pathname}`,
      sqlite: null,
      sqliteFile: null,
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max }),
      close: () => db.destroy(),
    };
  }
  let file = opts.sqlitePath;
  if (!file) {
    const dir = opts.dataDir ?? path.resolve('data');
    fs.mkdirSync(dir, { recursive: true });
    file = path.join(dir, 'tollgate.db');
  }
  if (opts.sqliteImage) file = ':memory:';
  const sqlite = opts.sqliteImage ? new SQLite(opts.sqliteImage) : new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a commit is on disk before we acknowledge it (usage must never be lost).
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma(`busy_timeout = ${Math.trunc(opts.sqliteBusyTimeoutMs ?? 5_000)}`);
  // Exact decimal addition for usage sums, which SQLite cannot do natively (PostgreSQL's numeric can).
  sqlite.function('dec_add', { deterministic: true }, (a: unknown, b: unknown) => decimalAdd(String(a), String(b)));
  sqlite.aggregate('dec_sum', {
    start: () => '0',
    step: (total: string, value: string | number | bigint | null) => (value === null ? total : decimalAdd(total, String(value))),
  });
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }), plugins });
  return {
    db,
    dialect: 'sqlite',
    describe: `SQLite ${file}`,
    sqlite,
    sqliteFile: file === ':memory:' ? null : file,
    poolStats: null,
    close: () => db.destroy(),
  };
}
