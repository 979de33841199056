import type { Deps } from '../../deps.js';
import { afterCommit, inTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { toIso } from '../../lib/clock.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { signalOutboxCommitted } from './outbox-signal.js';
import { findWebhookEndpoint } from './webhook-endpoint.repository.js';
import { replayFailedDeliveriesSince } from './webhook-log.repository.js';

const DAY_MS = 86_400_000;

/**
 * The earliest `since` a replay of failed deliveries accepts: the log's retention
 * (OUTBOUND_WEBHOOK_LOG_RETENTION_DAYS). It bounds the work of one request, and older messages
 * may be gone already.
 */
export const earliestReplaySince = (deps: Pick<Deps, 'clock' | 'config'>): number => deps.clock.now() - deps.config.outboundWebhookLogRetentionDays * DAY_MS;

/**
 * After an outage on the seller's side: every failed delivery of an enabled endpoint whose
 * message was written at or after `since` goes back to pending, due now, with the retry schedule
 * from its start and the trigger `replay`, in one statement. That includes the deliveries failed
 * while the endpoint was disabled (endpoint_disabled). The sender then sends them in each
 * subscription's order. Audited (webhook_endpoint.failed_replayed). Returns how many.
 */
export async function replayFailedDeliveries(deps: Deps, ctx: OperationContext, endpointId: string, since: number): Promise<number> {
  const earliest = earliestReplaySince(deps);
  if (since < earliest)
    throw new AppError(
      'VALIDATION_FAILED',
      `body.since must be within the log's retention of ${deps.config.outboundWebhookLogRetentionDays} days: ${toIso(earliest)} or later.`,
      { field: 'body.since' },
    );
  if (since > deps.clock.now()) throw new AppError('VALIDATION_FAILED', 'body.since must not be in the future.', { field: 'body.since' });
  return inTransaction(deps.db, async (trx) => {
    const endpoint = await findWebhookEndpoint(trx, ctx, endpointId);
    if (!endpoint) throw notFound('webhook endpoint', endpointId);
    if (endpoint.status !== 'enabled')
      throw new AppError('ENDPOINT_DISABLED', `Endpoint ${endpointId} is disabled (${endpoint.disabledReason ?? 'manual'}): enable it first, then replay.`);
    const count = await replayFailedDeliveriesSince(trx, ctx, endpointId, since, deps.clock.now());
    await recordAudit(trx, deps, ctx, {
      eventType: 'webhook_endpoint.failed_replayed',
      targetType: 'webhook_endpoint',
      targetId: endpointId,
      payload: { since: toIso(since), count },
    });
    if (count > 0) await afterCommit(trx, signalOutboxCommitted);
    return count;
  });
}
