import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import { verifySignature, type SignedRequest } from '../../lib/webhook-signature.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { sealedFor } from './payment-provider-connection.js';
import { findPaymentProviderById, insertProviderEvent } from './payment-provider-connection.repository.js';
import { inTransaction } from '../../db/transaction.js';
import type { Tenant } from '../../lib/tenant.js';
import { PaymentProviderError } from './payment-provider.js';
import type { PaymentProviderConnection } from './payment-provider-connection.js';
import { clearProviderPaymentMethod, isProviderEventApplied, setProviderPaymentMethod } from './provider-customer.repository.js';
import { stripeProviderOf } from './stripe-for.js';

const EVENT_ID = /^evt_[A-Za-z0-9_]{1,250}$/;
const EVENT_TYPE = /^[a-z_]+(\.[a-z_]+){1,4}$/;

/**
 * A Stripe webhook for one connection: verified on the raw bytes with the connection's signing
 * secret (Stripe's scheme, 5 minutes of tolerance on our clock) before anything is parsed, then
 * kept once per event id, and acknowledged only after it is stored, so nothing Stripe sent is lost
 * and a redelivery is not stored twice. A refused signature is audited in the connection's
 * workspace and stores nothing.
 */
export async function receiveStripeWebhook(deps: Deps, connectionId: string, request: SignedRequest): Promise<ReceivedStripeEvent> {
  const connection = await findPaymentProviderById(deps.db, connectionId);
  if (!connection) {
    throw new AppError('NOT_FOUND', `No payment provider connection '${connectionId}' exists (or it was disconnected). Check the URL Stripe posts to.`, {
      field: 'path.id',
    });
  }
  const secret = connection.webhookSecret === null ? null : deps.secrets.open(connection.webhookSecret, sealedFor(connection.id, 'webhookSecret'));
  const verdict = verifySignature({ kind: 'stripe' }, secret, request, deps.clock.now());
  if (!verdict.ok) {
    await recordAudit(
      deps.db,
      deps,
      {
        workspaceId: connection.workspaceId,
        environment: connection.environment,
        actor: { type: 'ANONYMOUS', id: 'stripe' },
        correlationId: connectionId,
        source: 'webhook',
      },
      {
        eventType: 'payment_provider.webhook_rejected',
        severity: 'WARN',
        targetType: 'payment_provider',
        targetId: connection.id,
        payload: { reason: verdict.reason },
      },
    );
    throw new AppError('UNAUTHENTICATED', verdict.message);
  }
  let event: { id?: unknown; type?: unknown };
  try {
    event = JSON.parse(request.body.toString('utf8')) as { id?: unknown; type?: unknown };
  } catch {
    throw new AppError('INVALID_JSON', 'The body is not JSON: a Stripe event is a JSON object.');
  }
  if (typeof event.id !== 'string' || !EVENT_ID.test(event.id))
    throw new AppError('VALIDATION_FAILED', 'The event has no Stripe event id (evt_…).', { field: 'body.id' });
  if (typeof event.type !== 'string' || !EVENT_TYPE.test(event.type))
    throw new AppError('VALIDATION_FAILED', 'The event has no Stripe event type (such as payment_intent.succeeded).', { field: 'body.type' });
  const stored = await insertProviderEvent(deps.db, connection, {
    connectionId: connection.id,
    providerEventId: event.id,
    type: event.type,
    payload: request.body.toString('utf8'),
    receivedAt: deps.clock.now(),
  });
  const applied = await isProviderEventApplied(deps.db, connection.id, event.id);
  return { duplicate: !stored, applied, connection, event: event as StripeEvent };
}

/** A verified Stripe event as far as Tollgate reads it. */
export interface StripeEvent {
  id: string;
  type: string;
  data?: { object?: Record<string, unknown> };
}

/** What a verified delivery gives the caller to apply (billing/apply-stripe-event.ts), unless an earlier delivery applied it. */
export interface ReceivedStripeEvent {
  duplicate: boolean;
  applied: boolean;
  connection: PaymentProviderConnection & Tenant;
  event: StripeEvent;
}

/** Stripe did not answer while an event was applied: 503, so Stripe delivers it again and the kept event is applied then. */
export function redeliverLater(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'Stripe did not answer while this event was applied; it is kept, deliver it again.', {
    headers: { 'retry-after': '5' },
  });
}

/** A Stripe payment method id: what a detached event must carry before it is looked for. */
const PAYMENT_METHOD_ID = /^pm_[A-Za-z0-9_]{1,100}$/;

/**
 * A card detached at Stripe (the customer removed it in Stripe's portal, or another integration
 * did): it is no longer shown as our customers' default, so the next charge asks Stripe for the
 * default instead of sending a card Stripe would refuse. Audited as payment_method.updated
 * (removed). Safe to repeat: a second delivery finds nothing to clear.
 */
export async function applyPaymentMethodDetached(deps: Deps, connection: PaymentProviderConnection & Tenant, event: StripeEvent): Promise<void> {
  const id = event.data?.object?.id;
  if (typeof id !== 'string' || !PAYMENT_METHOD_ID.test(id)) return;
  await inTransaction(deps.db, async (trx) => {
    for (const customerId of await clearProviderPaymentMethod(trx, connection, 'stripe', id, deps.clock.now())) {
      await recordAudit(
        trx,
        deps,
        {
          workspaceId: connection.workspaceId,
          environment: connection.environment,
          actor: { type: 'ANONYMOUS', id: 'stripe' },
          correlationId: event.id,
          source: 'webhook',
        },
        { eventType: 'payment_method.updated', targetType: 'customer', targetId: customerId, payload: { provider: 'stripe', removed: id } },
      );
    }
  });
}

/**
 * A setup session completed: its card becomes the customer's default, shown on our side too (and
 * audited). Our customers whose card it is, or none when the session is not complete. Safe to repeat.
 */
export async function applySetupCompleted(deps: Deps, connection: PaymentProviderConnection & Tenant, event: StripeEvent): Promise<string[]> {
  const sessionId = event.data?.object?.id;
  if (typeof sessionId !== 'string')
    throw new AppError('VALIDATION_FAILED', 'checkout.session.completed without its session (data.object.id).', { field: 'body.data.object.id' });
  let applied;
  try {
    applied = await stripeProviderOf(deps, connection).applySetupSession(sessionId);
  } catch (err) {
    if (err instanceof PaymentProviderError && err.kind === 'unavailable') throw redeliverLater();
    throw err;
  }
  const now = deps.clock.now();
  return inTransaction(deps.db, async (trx) => {
    if (!applied) return [];
    const customerIds = await setProviderPaymentMethod(trx, connection, 'stripe', applied.customer.id, applied.paymentMethod, now);
    for (const customerId of customerIds) {
      await recordAudit(
        trx,
        deps,
        {
          workspaceId: connection.workspaceId,
          environment: connection.environment,
          actor: { type: 'ANONYMOUS', id: 'stripe' },
          correlationId: event.id,
          source: 'webhook',
        },
        {
          eventType: 'payment_method.updated',
          targetType: 'customer',
          targetId: customerId,
          payload: { provider: 'stripe', brand: applied.paymentMethod.brand, last4: applied.paymentMethod.last4 },
        },
      );
    }
    return customerIds;
  });
}
