import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { loadDeliverySource } from './delivery-source.js';
import { processVerifiedWebhook } from './receive-webhook.js';
import type { WebhookWriter } from './write-webhook.js';
import { decodeBody, type WebhookLogEntry } from './webhook-log.js';
import { findLogEntry } from './webhook-log.repository.js';

/**
 * Runs a logged request through mapping again, with the source's current filter and mappings
 * (after a fix: a customer created, a mapping corrected). It is not verified again (the
 * signature may have expired), so only requests that passed verification (or skipped it in
 * development) can be replayed; deduplication still applies. The replay is a new log entry that
 * names the original.
 */
export async function replayWebhook(deps: Deps, writer: WebhookWriter, ctx: OperationContext, id: string): Promise<WebhookLogEntry> {
  const original = await findLogEntry(deps.db, ctx, id);
  if (!original) throw notFound('webhook log entry', id);
  if (original.verification === 'failed') {
    throw new AppError(
      'CONFLICT',
      `Log entry ${id} failed signature verification (${original.reasonCode}); replaying it would skip verification. Fix the source's signing secret and have the provider resend it.`,
    );
  }
  const d = await loadDeliverySource(deps, original.sourceId);
  if (!d || d.source.workspaceId !== ctx.workspaceId || d.source.environment !== ctx.environment) {
    throw new AppError('CONFLICT', `The source ${original.sourceId} of log entry ${id} has been deleted; nothing can be replayed into it.`);
  }
  const contentType = original.headers['content-type'] ?? null;
  const answer = await processVerifiedWebhook(deps, writer, d, {
    body: decodeBody(original),
    headers: original.headers,
    contentType,
    url: original.url,
    receivedAt: deps.clock.now(),
    defaultOccurredAt: original.receivedAt,
    correlationId: ctx.correlationId,
    verification: original.verification,
    logId: deps.ids.next('webhookLogEntry'),
    replayOf: original.id,
  });
  await recordAudit(deps.db, deps, ctx, {
    eventType: 'webhook.replayed',
    targetType: 'webhook_log_entry',
    targetId: original.id,
    payload: { sourceId: original.sourceId, replayLogEntryId: answer.logId, httpStatus: answer.status },
  });
  const replay = await findLogEntry(deps.db, ctx, answer.logId);
  if (!replay) throw new Error(`replay log entry ${answer.logId} was not stored`);
  return replay;
}
