import type { Logger } from 'pino';
import { sql } from 'kysely';
import type { Config } from './lib/config.js';
import { describeSystemError } from './lib/system-errors.js';
import { compose, type Composition } from './compose.js';
import { openDatabase, type OpenedDatabase } from './db/database.js';
import { classifyDatabaseError } from './db/errors.js';
import { migrateToLatest, type MigrationStartReporter } from './db/migrate.js';
import { recordAudit } from './modules/audit/audit-event.repository.js';

/** The database could not be reached or opened at start-up: the CLI prints the message alone and exits 1. */
export class StartupError extends Error {}

/** Between start-up attempts: doubling from half a second, at most this long. */
const MAX_BACKOFF_MS = 10_000;

/** Writes a line to the log when there is one, else to stderr (before the server logs). */
function say(log: Logger | undefined, level: 'info' | 'warn', fields: object, line: string): void {
  if (log) log[level](fields, line);
  else process.stderr.write(`${line}\n`);
}

/**
 * Opens the database for migrations (no statement timeouts: an index build on a large table may
 * take minutes) and waits for it to answer. An unreachable database is retried with backoff, one
 * log line per attempt, for config.databaseStartupRetrySeconds; any other failure (a wrong
 * password, a missing database, an unwritable directory) ends start-up at once, clearly.
 */
async function openReachable(config: Config, log: Logger | undefined): Promise<OpenedDatabase> {
  const deadline = Date.now() + config.databaseStartupRetrySeconds * 1_000;
  for (let attempt = 1, backoff = 500; ; attempt++, backoff = Math.min(backoff * 2, MAX_BACKOFF_MS)) {
    let opened: OpenedDatabase | null = null;
    try {
      opened = openDatabase({
        databaseUrl: config.databaseUrl,
        dataDir: config.dataDir,
        poolSize: 2,
        // Only the connect timeout: a frozen network must not hang start-up.
        timeouts: config.databaseUrl ? { connectMs: config.databaseConnectTimeoutMs, queryMs: 0, idleInTransactionMs: 0 } : undefined,
      });
      await sql`select 1`.execute(opened.db);
      if (attempt > 1) say(log, 'info', { attempt }, `database reachable (${opened.describe}) after ${attempt} attempts`);
      return opened;
    } catch (err) {
      await opened?.close().catch(() => undefined);
      const reason = (err as Error).message || String(err);
      const where = opened?.describe ?? 'the database';
      // Only a server can come back by itself; a file that cannot be opened will not.
      if (!config.databaseUrl || classifyDatabaseError(err) !== 'unavailable') {
        // DATA_DIR naming a file, an unwritable folder: said in words rather than as `EEXIST: …, mkdir '…'`.
        const system = describeSystemError(err);
        throw new StartupError(system ? `cannot open ${where} (${system.message})` : `cannot open ${where}: ${reason}`);
      }
      if (Date.now() + backoff > deadline) {
        throw new StartupError(
          `${where} is not reachable (${reason}); gave up after ${attempt} attempts over ${config.databaseStartupRetrySeconds} s (DATABASE_STARTUP_RETRY_SECONDS)`,
        );
      }
      say(log, 'warn', { attempt, err: reason }, `${where} is not reachable (attempt ${attempt}: ${reason}); retrying in ${backoff / 1000} s`);
      await new Promise((r) => setTimeout(r, backoff));
    }
  }
}

/** Opens the configured database, applies migrations and builds the dependencies. */
export async function bootstrap(
  config: Config,
  opts: { log?: Logger; onMigration?: MigrationStartReporter } = {},
): Promise<{ composition: Composition; describe: string; applied: string[] }> {
  const migrating = await openReachable(config, opts.log);
  let applied: string[];
  try {
    applied = await migrateToLatest(migrating.db, {
      onMigration: opts.onMigration,
      // A migration that re-indexes a large table says how far it is; before the server logs.
      progress: (e) => {
        const line = `migration ${e.migration}: ${e.done.toLocaleString('en-US')} of ${e.total.toLocaleString('en-US')} ${e.what}`;
        if (opts.log) opts.log.info(e, line);
        else process.stderr.write(`${line}\n`);
      },
    });
  } finally {
    await migrating.close();
  }
  // The server's own connections, with every timeout (config.ts).
  const opened = openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    sqliteBusyTimeoutMs: config.sqliteBusyTimeoutMs,
    timeouts: {
      connectMs: config.databaseConnectTimeoutMs,
      queryMs: config.databaseQueryTimeoutMs,
      idleInTransactionMs: config.databaseIdleInTransactionTimeoutMs,
    },
  });
  const composition = await compose({
    config,
    db: opened.db,
    dialect: opened.dialect,
    sqlite: opened.sqlite,
    sqliteFile: opened.sqliteFile,
    closeDb: opened.close,
    poolStats: opened.poolStats,
    log: opts.log,
  });
  const { deps } = composition;
  if (applied.length > 0) {
    await recordAudit(
      deps.db,
      deps,
      { workspaceId: null, environment: null, actor: { type: 'SYSTEM', id: 'migrator' }, correlationId: deps.ids.next('request'), source: 'system' },
      { eventType: 'system.migrations_applied', payload: { migrations: applied } },
    );
  }
  return { composition, describe: opened.describe, applied };
}
