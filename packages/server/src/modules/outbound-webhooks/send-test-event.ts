import type { Deps } from '../../deps.js';
import { afterCommit, inTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { signalOutboxCommitted } from './outbox-signal.js';
import { buildWebhookBody, type WebhookEventData } from './webhook-payload.js';
import { findWebhookEndpoint } from './webhook-endpoint.repository.js';
import { findMessage, insertDeliveries, insertMessages, listDeliveriesOfMessage } from './webhook-message.repository.js';
import type { WebhookDelivery, WebhookMessage } from './webhook-message.js';

/** The test event's data: the catalog's example of webhook.test (event-catalog.ts), so the documentation shows what is sent. */
export const TEST_EVENT_DATA: WebhookEventData = { object: { object: 'webhook_test', message: 'A test event from Tollgate.' } };

/**
 * Writes a `webhook.test` message (source `test`) with one delivery, to this endpoint only and
 * whatever its event types, into the outbox: the sender signs and sends it like any other, with
 * the trigger `test`, and the log shows its attempts. The endpoint must be enabled (409
 * ENDPOINT_DISABLED). Audited (webhook_endpoint.test_sent). Returns the message and its delivery.
 */
export async function sendTestEvent(
  deps: Deps,
  ctx: OperationContext,
  endpointId: string,
): Promise<{ message: WebhookMessage; deliveries: WebhookDelivery[] }> {
  return inTransaction(deps.db, async (trx) => {
    const endpoint = await findWebhookEndpoint(trx, ctx, endpointId);
    if (!endpoint) throw notFound('webhook endpoint', endpointId);
    if (endpoint.status !== 'enabled')
      throw new AppError('ENDPOINT_DISABLED', `Endpoint ${endpointId} is disabled (${endpoint.disabledReason ?? 'manual'}): enable it first, then test it.`);
    const now = deps.clock.now();
    const id = deps.ids.next('webhookMessage');
    const origin = { workspaceId: ctx.workspaceId, environment: ctx.environment };
    const seqs = await insertMessages(trx, [
      {
        id,
        ...origin,
        eventType: 'webhook.test',
        orderingKey: null,
        body: buildWebhookBody('webhook.test', now, TEST_EVENT_DATA),
        source: 'test',
        correlationId: ctx.correlationId,
        createdAt: now,
      },
    ]);
    await insertDeliveries(trx, [
      {
        messageId: id,
        endpointId,
        ...origin,
        eventType: 'webhook.test',
        messageSeq: seqs.get(id)!,
        orderingKey: null,
        status: 'pending',
        attempts: 0,
        scheduleStep: 0,
        nextAttemptAt: now,
        nextAttemptTrigger: 'test',
        lastAttemptAt: null,
        lastResponseStatus: null,
        lastError: null,
        createdAt: now,
        updatedAt: now,
      },
    ]);
    await recordAudit(trx, deps, ctx, {
      eventType: 'webhook_endpoint.test_sent',
      targetType: 'webhook_endpoint',
      targetId: endpointId,
      payload: { messageId: id },
    });
    await afterCommit(trx, signalOutboxCommitted);
    return { message: (await findMessage(trx, ctx, id))!, deliveries: await listDeliveriesOfMessage(trx, ctx, id) };
  });
}
