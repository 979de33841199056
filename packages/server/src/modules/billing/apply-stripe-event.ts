import type { Deps } from '../../deps.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Tenant } from '../../lib/tenant.js';
import { PaymentProviderError, type ChargeResult } from '../payments/payment-provider.js';
import type { PaymentProviderConnection } from '../payments/payment-provider-connection.js';
import { findPayment, findPaymentByProviderReference } from '../payments/payment.repository.js';
import { fromStripeAmount } from '../payments/stripe-amounts.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { markProviderEventApplied } from '../payments/provider-customer.repository.js';
import { applyPaymentMethodDetached, applySetupCompleted, redeliverLater, type StripeEvent } from '../payments/receive-provider-webhook.js';
import { stripeProviderOf } from '../payments/stripe-for.js';
import { applyChargeOutcome, collectInvoice, type Collection } from './collect-invoice.js';
import { listFailingInvoicesOfCustomer } from './invoice.repository.js';
import { applyChargeRefunded } from './refund-credit-note.js';

/** A new card retries at most this many of the customer's failing invoices at once; the job takes the rest. */
const RETRIES_ON_CARD_UPDATE = 10;

const PAYMENT_INTENT_EVENTS = new Set([
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'payment_intent.requires_action',
  'payment_intent.processing',
  'payment_intent.canceled',
]);

/**
 * Applies a verified, stored Stripe event (payments/receive-provider-webhook.ts keeps it first), then
 * marks it applied; an event Stripe must send again (Stripe did not answer) throws a 503 and stays
 * unapplied. Order never matters: a PaymentIntent event is a cue to read the PaymentIntent as it
 * stands now, and outcomes only move forward (collect-invoice.ts: applyChargeOutcome), so a
 * duplicate, a late event or two out of order give the same result.
 */
export async function applyStripeEvent(deps: Deps, c: Collection, connection: PaymentProviderConnection & Tenant, event: StripeEvent): Promise<void> {
  const tenant: Tenant = { workspaceId: connection.workspaceId, environment: connection.environment };
  const origin: OperationContext = { ...tenant, actor: { type: 'ANONYMOUS', id: 'stripe' }, correlationId: event.id, source: 'webhook' };
  if (event.type === 'checkout.session.completed' && event.data?.object?.mode !== 'payment') {
    for (const customerId of await applySetupCompleted(deps, connection, event)) await retryWithNewCard(deps, c, tenant, origin, customerId);
  } else if (PAYMENT_INTENT_EVENTS.has(event.type) || PAYMENT_PAGE_EVENTS.has(event.type)) {
    await applyPaymentEvent(deps, c, connection, tenant, origin, event);
  } else if (event.type === 'payment_method.detached') {
    await applyPaymentMethodDetached(deps, connection, event);
  } else if (event.type === 'charge.refunded') {
    // The charge carries Stripe's count (amount_refunded): applied as it is, only ever growing, so no read is needed.
    await applyChargeRefunded(deps, tenant, origin, event);
  } else if (event.type === 'charge.dispute.created') {
    await recordDispute(deps, tenant, origin, event);
  }
  await markProviderEventApplied(deps.db, connection.id, event.id, deps.clock.now());
}

/** A payment page's (Checkout Session, payment mode) end: paid, or expired unpaid. */
const PAYMENT_PAGE_EVENTS = new Set(['checkout.session.completed', 'checkout.session.expired']);

/**
 * A PaymentIntent's or a payment page's event: its object carries our metadata (a page's
 * PaymentIntent too), which finds the attempt, and the attempt's own reference is read again. A
 * page attempt is read through its page while the page is open: a card declined on the page is no
 * outcome, since the buyer may try another card there.
 */
async function applyPaymentEvent(
  deps: Deps,
  c: Collection,
  connection: PaymentProviderConnection,
  tenant: Tenant,
  origin: OperationContext,
  event: StripeEvent,
): Promise<void> {
  const pi = event.data?.object ?? {};
  const metadata = (pi.metadata ?? {}) as Record<string, unknown>;
  const id = typeof pi.id === 'string' ? pi.id : null;
  // Another system's PaymentIntent on the same Stripe account, or another environment's: not ours to apply.
  if (id === null || metadata.workspaceId !== tenant.workspaceId || metadata.environment !== tenant.environment) return;
  const payment =
    (typeof metadata.attemptId === 'string' ? await findPayment(deps.db, tenant, metadata.attemptId) : null) ??
    (await findPaymentByProviderReference(deps.db, tenant, id));
  if (!payment) return;
  const reference = payment.trigger === 'payment_page' && payment.providerReference !== null ? payment.providerReference : id;
  let result: ChargeResult;
  try {
    result = await stripeProviderOf(deps, connection).retrieveCharge(reference);
  } catch (err) {
    if (err instanceof PaymentProviderError && err.kind === 'unavailable') throw redeliverLater();
    throw err;
  }
  await applyChargeOutcome(deps, c, tenant, payment.id, result, origin);
}

/** A card update retries the customer's open invoices whose payment failed, at once. */
async function retryWithNewCard(deps: Deps, c: Collection, tenant: Tenant, origin: OperationContext, customerId: string): Promise<void> {
  for (const invoiceId of await listFailingInvoicesOfCustomer(deps.db, tenant, customerId, RETRIES_ON_CARD_UPDATE)) {
    try {
      await collectInvoice(deps, c, tenant, invoiceId, { trigger: 'card_updated', origin });
    } catch (err) {
      // The card is saved either way; the retry schedule still stands for this invoice.
      deps.log.error({ err, invoiceId }, 'retrying an invoice with a new card failed');
    }
  }
}

/**
 * A buyer disputed a charge (a chargeback): Stripe withdraws the amount until the dispute is
 * decided. The invoice stays as it is (paid: Stripe Billing does the same), but the seller must
 * answer within Stripe's deadline, so it is audited as a warning naming the invoice and the
 * payment, which the live audit stream and its alerts carry. Once per event (events are kept once).
 */
async function recordDispute(deps: Deps, tenant: Tenant, origin: OperationContext, event: StripeEvent): Promise<void> {
  const dispute = event.data?.object ?? {};
  const pi = dispute.payment_intent;
  const piId = typeof pi === 'string' ? pi : typeof (pi as { id?: unknown } | null)?.id === 'string' ? (pi as { id: string }).id : null;
  if (piId === null || typeof dispute.id !== 'string' || typeof dispute.amount !== 'number' || typeof dispute.currency !== 'string') return;
  // Found by its PaymentIntent within this tenant: another system's charge on the same account is not ours.
  const payment = await findPaymentByProviderReference(deps.db, tenant, piId);
  if (!payment) return;
  const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, 100) : null);
  await recordAudit(deps.db, deps, origin, {
    eventType: 'payment.disputed',
    severity: 'WARN',
    targetType: 'invoice',
    targetId: payment.invoiceId,
    payload: {
      paymentId: payment.id,
      disputeId: dispute.id.slice(0, 100),
      amount: fromStripeAmount(dispute.amount, dispute.currency),
      currency: dispute.currency.toUpperCase().slice(0, 3),
      reason: text(dispute.reason),
      status: text(dispute.status),
    },
  });
}
