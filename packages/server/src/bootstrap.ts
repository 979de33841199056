import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createDeps, type Deps } from './deps.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { recordAudit } from './modules/audit/audit-event.repository.js';

/** Opens the configured database, applies migrations and builds the dependencies. */
export async function bootstrap(config: Config, opts: { log?: Logger } = {}): Promise<{ deps: Deps; describe: string; applied: string[] }> {
  const opened = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  let applied: string[];
  try {
    applied = await migrateToLatest(opened.db, {
      // A migration that re-indexes a large table says how far it is; before the server logs.
      progress: (e) => {
        const line = `migration ${e.migration}: ${e.done.toLocaleString('en-US')} of ${e.total.toLocaleString('en-US')} ${e.what}`;
        if (opts.log) opts.log.info(e, line);
        else process.stderr.write(`${line}\n`);
      },
    });
  } catch (err) {
    await opened.close();
    throw err;
  }
  const deps = await createDeps({ config, db: opened.db, dialect: opened.dialect, sqlite: opened.sqlite, sqliteFile: opened.sqliteFile, closeDb: opened.close, log: opts.log });
  if (applied.length > 0) {
    await recordAudit(
      deps.db,
      deps,
      { workspaceId: null, environment: null, actor: { type: 'SYSTEM', id: 'migrator' }, correlationId: deps.ids.next('request'), source: 'system' },
      { eventType: 'system.migrations_applied', payload: { migrations: applied } },
    );
  }
  return { deps, describe: opened.describe, applied };
}
