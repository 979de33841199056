import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { CamelCasePlugin, Kysely, PostgresAdapter, PostgresDialect, SqliteDialect } from 'kysely';
import type { Database } from './schema.js';
import { decimalAdd } from '../lib/money.js';

export type Db = Kysely<Database>;
export type DialectName = 'sqlite' | 'postgres';

/**
 * Whether an executor (a database, a transaction, a migration's handle) talks to PostgreSQL: for
 * code that is handed an executor rather than deps.dialect.
 */
export function isPostgres(db: Kysely<any>): boolean {
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
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** postgres://… or null for SQLite. */
  databaseUrl: string | null;
  /** SQLite file path, or ':memory:'. */
  sqlitePath?: string;
  dataDir?: string;
  /** PostgreSQL schema to use instead of public (tests isolate themselves this way). */
  pgSchema?: string;
  poolSize?: number;
}

// bigint columns hold epoch milliseconds, which fit a JS number exactly; node-postgres would
// otherwise return them as strings.
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20) return (value: string) => Number(value);
    return (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
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
    prepare(text: string): SQLite.Statement {
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

export function openDatabase(opts: OpenDatabaseOptions): OpenedDatabase {
  const plugins = [new CamelCasePlugin()];
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      types: pgTypes as unknown as pg.CustomTypesConfig,
      ...(opts.pgSchema ? { options: `-c search_path=${opts.pgSchema}` } : {}),
    });
    // An idle client's error (the server restarting, say) must not crash the process.
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins });
    const url = new URL(opts.databaseUrl);
    return {
      db,
      dialect: 'postgres',
      describe: `PostgreSQL ${url.hostname}:${url.port || 5432}${url.pathname}`,
      sqlite: null,
      sqliteFile: null,
      close: () => db.destroy(),
    };
  }
  let file = opts.sqlitePath;
  if (!file) {
    const dir = opts.dataDir ?? path.resolve('data');
    fs.mkdirSync(dir, { recursive: true });
    file = path.join(dir, 'tollgate.db');
  }
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a commit is on disk before we acknowledge it (usage must never be lost).
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  // Exact decimal addition for usage sums, which SQLite cannot do natively (PostgreSQL's numeric can).
  sqlite.function('dec_add', { deterministic: true }, (a: unknown, b: unknown) => decimalAdd(String(a), String(b)));
  sqlite.aggregate('dec_sum', {
    start: () => '0',
    step: (total: unknown, value: unknown) => (value === null ? total : decimalAdd(String(total), String(value))),
  });
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }), plugins });
  return { db, dialect: 'sqlite', describe: `SQLite ${file}`, sqlite, sqliteFile: file === ':memory:' ? null : file, close: () => db.destroy() };
}
