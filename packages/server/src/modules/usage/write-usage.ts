import type { StorageDeps } from '../../deps.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { IDEMPOTENCY_WINDOW_MS } from '../idempotency/run-idempotent.js';
import { aggregateBatch, type ResolvedEvent } from './aggregate-batch.js';
import { findAlertSubscriptions, recordLimitAlerts } from './record-limit-alerts.js';
import { addToAggregates, insertEvents } from './usage.repository.js';
import { claimEventIds } from './event-claims.repository.js';

export type UsageSource = 'api' | 'upload' | 'webhook';

export interface IngestOutcome {
  accepted: number;
  duplicates: number;
}

/** Per-event ids seen earlier in this batch or within 24 hours are duplicates: skipped, counted. */
async function dropDuplicates(deps: StorageDeps, ctx: OperationContext, events: ResolvedEvent[]): Promise<ResolvedEvent[]> {
  const ids = events.filter((e) => e.eventId !== null).map((e) => e.eventId as string);
  if (ids.length === 0) return events;
  const claimed = await claimEventIds(deps.db, deps.sqlite, ctx, ids, deps.clock.now(), IDEMPOTENCY_WINDOW_MS);
  return events.filter((e) => {
    if (e.eventId === null) return true;
    if (!claimed.has(e.eventId)) return false;
    claimed.delete(e.eventId); // a second event with this id in the same batch is a duplicate too
    return true;
  });
}

/**
 * Writes checked events inside the caller's transaction (deps.db is one): skips duplicates by
 * eventId, appends the events, adds them to the hourly rows (totals and dimension shares) and the
 * monthly total rows, records ALERT crossings and one audit event. The caller commits, and answers only after.
 */
export async function writeUsage(
  deps: StorageDeps,
  ctx: OperationContext,
  resolved: ResolvedEvent[],
  source: UsageSource,
  // Webhooks deduplicate by (source, provider event id) themselves, and their ingestion log entry
  // is their record: a per-request audit row would double the rows written.
  opts: { audit: boolean; dedupByEventId: boolean } = { audit: true, dedupByEventId: true },
): Promise<IngestOutcome> {
  const now = deps.clock.now();
  const fresh = opts.dedupByEventId ? await dropDuplicates(deps, ctx, resolved) : resolved;
  await insertEvents(deps.db, deps.sqlite, ctx, fresh, now, source);
  const deltas = aggregateBatch(fresh);
  const outcome = { accepted: fresh.length, duplicates: resolved.length - fresh.length };
  if (opts.audit) {
    await recordAudit(deps.db, deps, ctx, {
      eventType: 'usage.batch_ingested',
      targetType: 'usage',
      payload: { ...outcome, source },
    });
  }
  // The aggregate rows are shared by every batch of the same customers: on PostgreSQL they stay
  // locked from this upsert to the commit, so it comes last, with only what needs its totals.
  const alerting = await findAlertSubscriptions(deps, ctx, deltas);
  await addToAggregates(deps.db, deps.sqlite, ctx, deltas, now);
  await recordLimitAlerts(deps, ctx, alerting, fresh);
  return outcome;
}
