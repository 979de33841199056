import type { StorageDeps } from '../../deps.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { ResolvedEvent } from '../usage/aggregate-batch.js';
import { writeUsage } from '../usage/write-usage.js';
import type { WebhookLogEntry } from './webhook-log.js';
import { insertLogEntries } from './webhook-log.repository.js';
import { summarizeOutcomes, type EventOutcome, type MappedFields, type Summary } from './webhook-outcome.js';
import { claimKey, claimProviderEventIds } from './webhook-source.repository.js';

/** One webhook request to store: everything the write needs, so it can run on the writer thread. */
export interface WebhookWriteJob {
  /** The instant of the request (the writer thread's clock follows the main thread's). */
  now: number;
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

/** Where verified webhook requests are written, a group of them per transaction (modules/ingest-writer implements it). */
export interface WebhookWriter {
  writeWebhook(job: WebhookWriteJob): Promise<WebhookWriteResult>;
}

/**
 * A group of webhook requests inside the caller's transaction (txDeps.db is one), written with a
 * handful of multi-row statements whatever the group's size: the provider event id claims, the
 * fresh events through the same path as the API's usage (writeUsage: events, aggregates, limit
 * alerts), the log entries, and a WARN audit event per rejection. Dedup, usage and log commit
 * together: a webhook is never counted without its log entry, nor logged as accepted without its
 * usage.
 */
export async function runWebhookGroup(txDeps: StorageDeps, jobs: readonly WebhookWriteJob[]): Promise<WebhookWriteResult[]> {
  const now = txDeps.clock.now();
  const claims = jobs.flatMap((job) =>
    job.candidates.map((c) => ({
      workspaceId: job.ctx.workspaceId,
      environment: job.ctx.environment,
      sourceId: job.sourceId,
      providerEventId: c.fields.eventId,
      expiresAt: now + job.dedupWindowMs,
    })),
  );
  const claimed = await claimProviderEventIds(txDeps.db, claims, now);

  // Usage per tenant, tenants in one order and each tenant's rows sorted inside writeUsage, so
  // that concurrent groups on PostgreSQL lock aggregate rows in one global order.
  const usage = new Map<string, { ctx: OperationContext; events: ResolvedEvent[] }>();
  const results: WebhookWriteResult[] = [];
  const entries: WebhookLogEntry[] = [];
  for (const job of jobs) {
    const outcomes: EventOutcome[] = [...job.settled];
    const tenantKey = `${job.ctx.workspaceId}\u0000${job.ctx.environment}`;
    for (const c of job.candidates) {
      // A second event with the same id, in this request or this group, is a duplicate of the first.
      const isFresh = claimed.delete(claimKey(job.ctx.workspaceId, job.ctx.environment, job.sourceId, c.fields.eventId));
      if (isFresh) {
        let group = usage.get(tenantKey);
        if (!group) usage.set(tenantKey, (group = { ctx: job.ctx, events: [] }));
        // Several sources of one tenant in a group: their limit alerts name the writer, not one source.
        if (group.ctx.actor.id !== job.ctx.actor.id) group.ctx = { ...group.ctx, actor: { type: 'SYSTEM', id: 'webhook-writer' } };
        group.events.push(c.event);
      }
      outcomes.push({ index: c.index, status: isFresh ? 'accepted' : 'duplicate', customerId: c.customerId, ...c.fields });
    }
    outcomes.sort((a, b) => a.index - b.index);
    const summary: Summary = job.refusal
      ? { status: 'rejected', httpStatus: job.refusal.httpStatus, reasonCode: job.refusal.code, reasonMessage: job.refusal.message }
      : summarizeOutcomes(outcomes);
    entries.push({ ...job.entry, ...summary, outcomes });
    results.push({ outcomes, summary });
  }
  for (const key of [...usage.keys()].sort()) {
    const group = usage.get(key)!;
    await writeUsage(txDeps, group.ctx, group.events, 'webhook', { audit: false, dedupByEventId: false });
  }
  await insertLogEntries(txDeps.db, entries);
  for (const [i, job] of jobs.entries()) {
    const { outcomes, summary } = results[i]!;
    const refused = outcomes.filter((o) => o.status === 'rejected').length;
    if (!job.refusal && refused === 0) continue;
    await recordAudit(txDeps.db, txDeps, job.ctx, {
      eventType: 'webhook.rejected',
      severity: 'WARN',
      targetType: 'webhook_source',
      targetId: job.sourceId,
      payload: {
        // The source's name as it was, like its log entry's (the payload is never rewritten).
        sourceDisplayName: job.entry.sourceDisplayName,
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
  return results;
}
