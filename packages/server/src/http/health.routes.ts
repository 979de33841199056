import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { Deps } from '../deps.js';
import { migrations } from '../db/migrate.js';
import { classifyDatabaseError } from '../db/errors.js';
import { AppError } from '../lib/errors.js';
import { within } from '../lib/within.js';
import type { App } from './types.js';
import { ErrorEnvelope, publicSecurity } from './schemas.js';

/** /ready gives each check this long: a probe must get an answer, not hang with the database. */
export const READY_CHECK_TIMEOUT_MS = 2_000;

/**
 * Liveness and readiness, for load balancers and orchestrators:
 * - /health: the process is up and serving HTTP. It touches nothing else, so a database outage
 *   never gets a healthy node restarted.
 * - /ready: this node can do its work now: the database answers, every migration this build
 *   knows is applied, and the usage writer is warm. 503 (with the failing checks) otherwise, so
 *   the balancer sends traffic elsewhere until it recovers.
 */
/** What /ready asks of the usage writer: that it can take a write at full speed. */
export interface WarmWriter {
  warm(): Promise<void>;
}

export async function healthRoutes(app: App, deps: Deps, writer: WarmWriter): Promise<void> {
  app.get('/health', {
    config: { rateLimited: false },
    schema: {
      operationId: 'checkHealth',
      summary: 'Liveness: the process is up',
      description: 'Answers 200 whenever the process serves HTTP, whatever the state of the database (see /ready).',
      tags: ['System'],
      security: publicSecurity,
      response: { 200: Type.Object({ status: Type.Literal('ok'), database: Type.String({ maxLength: 20, description: 'sqlite or postgres' }) }) },
    },
    handler: async () => ({ status: 'ok' as const, database: deps.dialect }),
  });

  app.get('/ready', {
    config: { rateLimited: false },
    schema: {
      operationId: 'checkReadiness',
      summary: 'Readiness: the database answers, migrations are applied, the writer is warm',
      description: `Each check gets ${READY_CHECK_TIMEOUT_MS} ms. 503 NOT_READY names the checks that failed.`,
      tags: ['System'],
      security: publicSecurity,
      response: {
        200: Type.Object({
          status: Type.Literal('ready'),
          database: Type.String({ maxLength: 20 }),
          migrations: Type.Integer({ description: 'Migrations applied (all this build knows).' }),
        }),
        503: Type.Object(ErrorEnvelope.properties, { description: 'Not ready; Retry-After says when to ask again.' }),
      },
    },
    handler: async () => {
      const failed: string[] = [];
      let applied = 0;
      try {
        const { rows } = await within(READY_CHECK_TIMEOUT_MS, sql<{ n: number | string }>`select count(*) as n from tollgate_migrations`.execute(deps.db));
        applied = Number(rows[0]?.n ?? 0);
        if (applied < migrations.length) failed.push(`migrations: ${applied} of ${migrations.length} applied`);
      } catch (err) {
        failed.push(`database: ${classifyDatabaseError(err) === null ? 'query failed' : 'not answering'} (${(err as Error).message})`);
      }
      try {
        await within(READY_CHECK_TIMEOUT_MS, writer.warm());
      } catch (err) {
        failed.push(`usage writer: not warm (${(err as Error).message})`);
      }
      if (failed.length > 0) {
        throw new AppError('NOT_READY', `Not ready: ${failed.join('; ')}.`, { headers: { 'retry-after': '5' } });
      }
      return { status: 'ready' as const, database: deps.dialect, migrations: applied };
    },
  });
}
