import { destination, pino } from 'pino';
import { loadConfig, type Config } from '../lib/config.js';
import type { Composition } from '../compose.js';
import type { Progress } from './progress.js';

/** The actor of every change a local command makes, in its audit events. */
export const operator = { type: 'OPERATOR' as const, id: 'cli' };

export interface LocalStore {
  config: Config;
  composition: Composition;
  describe: string;
  applied: string[];
  correlationId: string;
}

/**
 * Opens the configured database (migrating it, each migration shown on `progress`), runs `fn`,
 * and closes it. stdout carries the command's output (demo --json is parsed by scripts): logs go
 * to stderr. A one-shot command sends no outbound webhooks: the servers do, and it would only cut
 * attempts short.
 */
export async function withLocalStore(progress: Progress, fn: (store: LocalStore) => Promise<void>): Promise<void> {
  const config = loadConfig();
  // Loaded here, not at the top: `tollgate --help` and the API commands need none of the server.
  const { bootstrap } = await import('../bootstrap.js');
  const { composition, describe, applied } = await bootstrap(
    { ...config, outboundWebhookSender: false },
    {
      log: pino({ level: config.logLevel }, destination(2)),
      onMigration: (migration, position, pending) => progress.update(`migration ${migration}:`, position, pending),
    },
  );
  progress.end();
  try {
    await fn({ config, composition, describe, applied, correlationId: composition.deps.ids.next('request') });
  } finally {
    await composition.close();
  }
}
