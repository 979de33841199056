import type { Deps } from '../deps.js';
import { IDEMPOTENCY_WINDOW_MS } from '../modules/idempotency/run-idempotent.js';
import { deleteExpiredAccessTokens } from '../modules/client-credentials/client-credential.repository.js';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Deletes idempotency keys past their 24-hour window and access tokens past their lifetime.
 * Idempotent, so several nodes may run it at once without harm.
 */
export async function pruneExpired(deps: Deps): Promise<{ idempotencyKeys: number; accessTokens: number }> {
  const now = deps.clock.now();
  const r = await deps.db.deleteFrom('idempotencyKeys').where('createdAt', '<=', now - IDEMPOTENCY_WINDOW_MS).executeTakeFirst();
  const accessTokens = await deleteExpiredAccessTokens(deps.db, now);
  return { idempotencyKeys: Number(r.numDeletedRows), accessTokens };
}

/** Runs on start and hourly; returns a stop function. */
export function schedulePruning(deps: Deps): () => void {
  const run = () =>
    pruneExpired(deps)
      .then((n) => deps.log.debug(n, 'pruned expired rows'))
      .catch((err) => deps.log.error({ err }, 'pruning expired rows failed'));
  void run();
  const timer = setInterval(run, HOUR_MS);
  timer.unref();
  return () => clearInterval(timer);
}
