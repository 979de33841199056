import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { runIdempotent } from '../modules/idempotency/run-idempotent.js';

/**
 * Runs a create under the request's Idempotency-Key (if any) and marks replays with the
 * Idempotent-Replayed header, as Stripe does. `stored` removes secrets from what is kept.
 */
export async function idempotent<T>(
  deps: Deps,
  req: FastifyRequest,
  reply: FastifyReply,
  work: (txDeps: Deps) => Promise<T>,
  stored?: (body: T) => T,
): Promise<T> {
  const header = req.headers['idempotency-key'];
  const outcome = await runIdempotent(
    deps,
    {
      workspaceId: req.ctx.workspaceId,
      environment: req.ctx.environment,
      key: typeof header === 'string' ? header : undefined,
      method: req.method,
      // The concrete path, not the route pattern: one key must not replay across two resources.
      route: req.url.split('?')[0] ?? req.url,
      body: req.body,
    },
    work,
    stored,
  );
  if (outcome.replayed) reply.header('idempotent-replayed', 'true');
  return outcome.body;
}
