import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import { IDEMPOTENCY_WINDOW_MS } from '../idempotency/run-idempotent.js';
import { batchAt } from './batch-body.js';
import { checkBatch } from './check-batch.js';
import { findClaimedEventIds } from './event-claims.repository.js';
import type { EventRejection } from './usage-event.js';

export interface DryRunResult {
  wouldAccept: boolean;
  /** Events that would be stored. */
  accepted: number;
  /** Events that would be skipped: their eventId was claimed in the last 24 hours or earlier in the batch. */
  duplicates: number;
  rejected: EventRejection[];
}

/**
 * What POST /v1/ingest/batch would do with these events, storing nothing: the same checks, and
 * the eventIds a write would skip, read without claiming them.
 */
export async function dryRunIngest(deps: Deps, tenant: Tenant, events: readonly unknown[]): Promise<DryRunResult> {
  const { resolved, rejected } = await checkBatch(deps.db, tenant, events, { now: deps.clock.now(), enforceMaxAge: true }, batchAt);
  const ids = resolved.filter((e) => e.eventId !== null).map((e) => e.eventId as string);
  const seen = await findClaimedEventIds(deps.db, tenant, ids, deps.clock.now() - IDEMPOTENCY_WINDOW_MS);
  let duplicates = 0;
  for (const e of resolved) {
    if (e.eventId === null) continue;
    if (seen.has(e.eventId)) duplicates += 1;
    seen.add(e.eventId);
  }
  return { wouldAccept: rejected.length === 0, accepted: rejected.length === 0 ? resolved.length - duplicates : 0, duplicates, rejected };
}
