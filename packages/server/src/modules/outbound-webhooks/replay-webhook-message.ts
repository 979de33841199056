import type { Deps } from '../../deps.js';
import { afterCommit, inTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { signalOutboxCommitted } from './outbox-signal.js';
import { findEndpointStates, replayMessageDeliveries, type EndpointState } from './webhook-log.repository.js';
import { findMessage, listDeliveriesOfMessage } from './webhook-message.repository.js';
import type { WebhookDelivery } from './webhook-message.js';

/**
 * Sends a message again, with the same webhook-id and body: to one endpoint, or to every endpoint
 * it was delivered to. Each delivery goes back to pending, due now, the retry schedule from its
 * start, and its next attempt is recorded with the trigger `replay`. Whatever the delivery's
 * state: a succeeded one is sent once more (the receiver deduplicates by webhook-id).
 *
 * - One endpoint: it must have a delivery of the message (404 naming body.endpointId) and be
 *   enabled (409 ENDPOINT_DISABLED) and not deleted (409 CONFLICT).
 * - Every endpoint: deleted endpoints are left out (nothing can reach them again); a disabled one
 *   is a 409 naming it, since sending to the others only would be a partial replay nobody asked
 *   for: enable it, or replay per endpoint. Nothing is written on a 409.
 *
 * Audited (webhook_message.replayed). Returns the deliveries replayed.
 */
export async function replayWebhookMessage(deps: Deps, ctx: OperationContext, messageId: string, endpointId?: string): Promise<WebhookDelivery[]> {
  return inTransaction(deps.db, async (trx) => {
    const message = await findMessage(trx, ctx, messageId);
    if (!message) throw notFound('webhook message', messageId);
    const deliveries = await listDeliveriesOfMessage(trx, ctx, messageId);
    const states = await findEndpointStates(
      trx,
      ctx,
      deliveries.map((d) => d.endpointId),
    );
    const targets = endpointId === undefined ? everyLiveEndpoint(messageId, deliveries, states) : oneEndpoint(messageId, endpointId, deliveries, states);
    const now = deps.clock.now();
    const count = await replayMessageDeliveries(trx, ctx, messageId, targets, now);
    // Zero: an endpoint checked above was disabled or deleted since. Say so rather than succeed with nothing.
    if (count !== targets.length)
      throw new AppError('ENDPOINT_DISABLED', `An endpoint of message ${messageId} was disabled or deleted meanwhile; nothing was replayed. Try again.`);
    await recordAudit(trx, deps, ctx, {
      eventType: 'webhook_message.replayed',
      targetType: 'webhook_message',
      targetId: messageId,
      payload: { eventType: message.eventType, endpointIds: targets },
    });
    await afterCommit(trx, signalOutboxCommitted);
    const replayed = new Set(targets);
    return (await listDeliveriesOfMessage(trx, ctx, messageId)).filter((d) => replayed.has(d.endpointId));
  });
}

function oneEndpoint(messageId: string, endpointId: string, deliveries: readonly WebhookDelivery[], states: Map<string, EndpointState>): string[] {
  if (!deliveries.some((d) => d.endpointId === endpointId))
    throw new AppError('NOT_FOUND', `Message ${messageId} was never sent to endpoint ${endpointId}: it has no delivery there to replay.`, {
      field: 'body.endpointId',
    });
  refuseUnlessEnabled(endpointId, states.get(endpointId));
  return [endpointId];
}

function everyLiveEndpoint(messageId: string, deliveries: readonly WebhookDelivery[], states: Map<string, EndpointState>): string[] {
  const live = deliveries.map((d) => d.endpointId).filter((id) => states.get(id) !== undefined && states.get(id) !== 'deleted');
  const disabled = live.filter((id) => states.get(id) === 'disabled');
  if (disabled.length > 0)
    throw new AppError(
      'ENDPOINT_DISABLED',
      `Endpoint${disabled.length > 1 ? 's' : ''} ${disabled.join(', ')} of message ${messageId} ${disabled.length > 1 ? 'are' : 'is'} disabled: enable ${disabled.length > 1 ? 'them' : 'it'} first, or replay to one endpoint with body.endpointId.`,
    );
  if (live.length === 0) throw new AppError('CONFLICT', `Every endpoint message ${messageId} was sent to has been deleted: there is nowhere to replay it.`);
  return live;
}

/** 409 for a disabled or deleted endpoint, naming it. */
function refuseUnlessEnabled(endpointId: string, state: EndpointState | undefined): void {
  if (state === 'disabled')
    throw new AppError('ENDPOINT_DISABLED', `Endpoint ${endpointId} is disabled: enable it first (PATCH /api/v1/webhook-endpoints/${endpointId}).`, {
      field: 'body.endpointId',
    });
  if (state !== 'enabled') throw new AppError('CONFLICT', `Endpoint ${endpointId} has been deleted: nothing can be sent to it.`, { field: 'body.endpointId' });
}
