import { pino } from 'pino';
import { buildApp } from './app.js';
import { compose } from './compose.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { loadConfig } from './lib/config.js';
import { generateEncryptionKey } from './lib/secret-box.js';

/**
 * The document GET /openapi.json serves, built in process: the app on a throwaway in-memory
 * SQLite database, never listening, closed again. The SDK's types are generated from it
 * (packages/sdk, `npm run sdk:generate`) and a test compares them with the checked-in file, so
 * it must depend on the routes only, never on data or on this machine's configuration.
 */
export async function renderOpenApiDocument(): Promise<Record<string, unknown>> {
  const config = {
    ...loadConfig({ TOLLGATE_PROFILE: 'test' }),
    logLevel: 'silent',
    seedDemo: false,
    databaseUrl: null,
    redisUrl: null,
    encryptionKeys: [generateEncryptionKey('openapi')],
  };
  const opened = openDatabase({ databaseUrl: null, sqlitePath: ':memory:', poolSize: 1 });
  await migrateToLatest(opened.db);
  const composition = await compose({
    config,
    db: opened.db,
    dialect: opened.dialect,
    sqlite: opened.sqlite,
    sqliteFile: opened.sqliteFile,
    closeDb: opened.close,
    log: pino({ level: 'silent' }),
  });
  try {
    const app = await buildApp(composition);
    try {
      await app.ready();
      return app.swagger() as unknown as Record<string, unknown>;
    } finally {
      await app.close();
    }
  } finally {
    await composition.close();
  }
}
