import type { Deps } from '../../deps.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../audit/audit-event.js';
import type { ResolvedEvent } from '../usage/aggregate-batch.js';
import { writeUsage } from '../usage/ingest-usage.js';
import type { WebhookLogEntry } from './webhook-log.js';
import { insertLogEntry } from './webhook-log.repository.js';
import { summarizeOutcomes, type EventOutcome, type MappedFields, type Summary } from './webhook-outcome.js';
import { claimProviderEventIds } from './webhook-source.repository.js';

/** One webhook request to store: everything the write needs, so it can run on the writer thread. */
export interface WebhookWriteJob {
  ctx: OperationContext;
  sourceId: string;
  dedupWindowMs: number;
  /** Events that passed every check: stored unless their provider event id is within the window. */
  candidates: Array<{ index: number; fields: MappedFields; customerId: string; event: ResolvedEvent }>;
  /** Outcomes already settled (discarded, rejected). */
  settled: EventOutcome[];
  /** The log entry, without what the write decides (status, outcomes). */
  entry: Omit<WebhookLogEntry, 'status' | 'httpStatus' | 'reasonCode' | 'reasonMessage' | 'outcomes'>;
  /** Set when the request was refused as a whole (signature, body): no events are read. */
  refusal: { httpStatus: number; code: string; message: string } | null;
}

export interface WebhookWriteResult {
  outcomes: EventOutcome[];
  summary: Summary;
}

/**
 * Inside the caller's transaction (txDeps.db is one): claims the provider event ids, stores the
 * fresh events through the same path as the API's usage (aggregates, limit alerts), and writes
 * the log entry and, for a rejection, a WARN audit event. Dedup, usage and log commit together:
 * a webhook is never counted without its log entry, nor logged as accepted without its usage.
 */
export async function runWebhookJob(txDeps: Deps, job: WebhookWriteJob): Promise<WebhookWriteResult> {
  const now = txDeps.clock.now();
  const claimed = await claimProviderEventIds(
    txDeps.db,
    job.ctx,
    job.sourceId,
    job.candidates.map((c) => c.fields.eventId),
    now,
    job.dedupWindowMs,
  );
  const outcomes: EventOutcome[] = [...job.settled];
  const fresh: ResolvedEvent[] = [];
  for (const c of job.candidates) {
    // A second event with the same id in one request is a duplicate of the first.
    const isFresh = claimed.delete(c.fields.eventId);
    if (isFresh) fresh.push(c.event);
    outcomes.push({ index: c.index, status: isFresh ? 'accepted' : 'duplicate', customerId: c.customerId, ...c.fields });
  }
  outcomes.sort((a, b) => a.index - b.index);
  if (fresh.length > 0) await writeUsage(txDeps, job.ctx, fresh, 'webhook', { audit: false, dedupByEventId: false });
  const summary: Summary = job.refusal
    ? { status: 'rejected', httpStatus: job.refusal.httpStatus, reasonCode: job.refusal.code, reasonMessage: job.refusal.message }
    : summarizeOutcomes(outcomes);
  await insertLogEntry(txDeps.db, { ...job.entry, ...summary, outcomes });
  const refused = outcomes.filter((o) => o.status === 'rejected').length;
  if (job.refusal || refused > 0) {
    await recordAudit(txDeps.db, txDeps, job.ctx, {
      eventType: 'webhook.rejected',
      severity: 'WARN',
      targetType: 'webhook_source',
      targetId: job.sourceId,
      payload: {
        logEntryId: job.entry.id,
        httpStatus: summary.httpStatus,
        reason: job.refusal?.code ?? summary.reasonCode,
        message: job.refusal?.message ?? summary.reasonMessage,
        rejectedEvents: refused,
        acceptedEvents: outcomes.filter((o) => o.status === 'accepted').length,
        replayOf: job.entry.replayOf,
      },
    });
  }
  return { outcomes, summary };
}
