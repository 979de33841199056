import { Decimal } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Tenant } from '../../lib/tenant.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { emitWebhookEvent, resourceEvent } from '../outbound-webhooks/emit-webhook-events.js';
import { changeCustomerBalance, customerBalanceOf } from '../payments/customer-balance.repository.js';
import { presentPayment, type Payment } from '../payments/payment.js';
import { PaymentProviderError, type PaymentProvider } from '../payments/payment-provider.js';
import { findPaymentProvider } from '../payments/payment-provider-connection.repository.js';
import { findPayment, findPaymentByProviderReference, listInvoicePayments, savePayment } from '../payments/payment.repository.js';
import { refundKey, refundSettles, type Refund, type RefundStatus } from '../payments/refund.js';
import { findRefund, insertRefunds, listPendingRefunds, listRefundsBy, saveRefund } from '../payments/refund.repository.js';
import type { StripeEvent } from '../payments/receive-provider-webhook.js';
import { fromStripeAmount } from '../payments/stripe-amounts.js';
import { stripeProviderOf } from '../payments/stripe-for.js';
import type { CreditNote } from './credit-note.js';
import type { Invoice } from './invoice.js';
import { findInvoice } from './invoice.repository.js';
import { planRefund, refundedAfter, type RefundChoice, type RefundPart } from './refund-plan.js';
import { billingOrigin } from './renew-subscription.js';

/**
 * Refunds (issue 39, item 7): a credit note on a paid invoice gives money back, as the operator
 * chooses (refund-plan.ts), in steps so that a crash, a timeout or a retry never refunds twice:
 * 1. in the credit note's transaction: the plan is checked (400 naming body.refund.amount), and a
 *    refund row per payment written; out_of_band and customer_balance are done there and then;
 *    provider refunds are written pending, with their idempotency key (the credit note and payment);
 * 2. after the commit, outside any transaction (an HTTP call never holds SQLite's write lock): each
 *    pending refund is sent to the provider under its key;
 * 3. its answer is applied in a transaction of its own (applyRefundOutcome). No answer (Stripe
 *    unreachable, a timeout): it stays pending and the reconciliation sends it again under the same
 *    key, so Stripe answers with the refund it made, or makes the only one.
 * A payment's amountRefunded only grows (refundedAfter), from our answers or Stripe's
 * charge.refunded alike, and each growth is one `payment.refunded` audit event and webhook.
 */

/** Inside the credit note's transaction, before anything is written: the rows to write, or a 400 (409 when Stripe is not connected). */
export async function checkRefund(deps: Deps, ctx: OperationContext, invoice: Invoice, noteTotal: string, choice: RefundChoice): Promise<RefundPart[]> {
  const payments = await listInvoicePayments(deps.db, ctx, invoice.id);
  const earlier = await listRefundsBy(deps.db, ctx, 'invoiceId', invoice.id);
  const plan = planRefund(invoice, payments, earlier, noteTotal, choice);
  if (plan.problems.length > 0) throw new AppError('VALIDATION_FAILED', plan.problems[0]!.message, { details: plan.problems });
  if (choice.method === 'provider' && !(await findPaymentProvider(deps.db, ctx, 'stripe'))) {
    throw new AppError('CONFLICT', `Stripe is not connected to the ${ctx.environment} environment: a refund through the provider needs it.`);
  }
  return plan.parts;
}

/**
 * Inside the credit note's transaction, after it is written: a refund row per part. out_of_band is
 * recorded on its payments at once; customer_balance credits the customer's balance at once;
 * provider refunds stay pending for sendPendingRefunds, after the commit.
 */
export async function recordRefunds(
  deps: Deps,
  ctx: OperationContext,
  invoice: Invoice,
  note: CreditNote,
  choice: RefundChoice,
  parts: readonly RefundPart[],
): Promise<Refund[]> {
  const now = deps.clock.now();
  const rows: Refund[] = parts.map((p) => ({
    id: deps.ids.next('refund'),
    creditNoteId: note.id,
    invoiceId: invoice.id,
    customerId: invoice.customerId,
    paymentId: p.paymentId,
    method: choice.method,
    status: choice.method === 'provider' ? 'pending' : 'succeeded',
    amount: p.amount,
    currency: invoice.currency,
    idempotencyKey: choice.method === 'provider' && p.paymentId !== null ? refundKey(note.id, p.paymentId) : null,
    providerReference: null,
    failureCode: null,
    failureMessage: null,
    createdAt: now,
    updatedAt: now,
  }));
  await insertRefunds(deps.db, ctx, rows);
  if (choice.method === 'customer_balance') {
    const read = await customerBalanceOf(deps.db, ctx, invoice.customerId, invoice.currency, { lock: deps.dialect === 'postgres' });
    const amount = rows.reduce((acc, r) => acc.plus(r.amount), new Decimal(0)).toString();
    await changeCustomerBalance(deps.db, ctx, invoice.customerId, invoice.currency, read, amount, now);
  } else if (choice.method === 'out_of_band') {
    const all = await listRefundsBy(deps.db, ctx, 'invoiceId', invoice.id);
    for (const r of rows) {
      if (r.paymentId === null) continue;
      const payment = await findPayment(deps.db, ctx, r.paymentId);
      if (payment) await markRefunded(deps, ctx, ctx, invoice, payment, refundedAfter(payment, all), r);
    }
  }
  return rows;
}

/**
 * The payment's amountRefunded brought to `refunded` when that is more than it shows, with its
 * `payment.refunded` audit event and webhook, in the caller's transaction; false when it already
 * showed as much (a duplicate webhook, an answer after Stripe's own count).
 */
async function markRefunded(
  deps: Deps,
  tenant: Tenant,
  origin: OperationContext,
  invoice: Invoice,
  payment: Payment,
  refunded: string,
  refund: Refund | null,
): Promise<boolean> {
  if (!new Decimal(refunded).gt(payment.amountRefunded)) return false;
  const updated: Payment = { ...payment, amountRefunded: refunded, updatedAt: deps.clock.now() };
  await savePayment(deps.db, tenant, updated);
  await recordAudit(deps.db, deps, origin, {
    eventType: 'payment.refunded',
    targetType: 'payment',
    targetId: payment.id,
    payload: {
      invoiceId: invoice.id,
      invoiceNumber: invoice.number,
      provider: payment.provider,
      currency: payment.currency,
      amount: new Decimal(refunded).minus(payment.amountRefunded).toFixed(),
      amountRefunded: refunded,
      refundId: refund?.id ?? null,
      creditNoteId: refund?.creditNoteId ?? null,
      method: refund?.method ?? 'provider',
    },
  });
  await emitWebhookEvent(deps.db, deps, origin, resourceEvent('payment.refunded', invoice.subscriptionId, presentPayment, updated, payment));
  return true;
}

/** The answer to one refund request: Stripe's (a pending Stripe refund counts: Stripe already shows it refunded on the charge), or its refusal. */
type RefundOutcome = { status: Exclude<RefundStatus, 'pending'>; providerReference: string | null; failureCode: string | null; failureMessage: string | null };

/** Sends one pending refund (again) under its key; null when the provider did not answer. */
async function sendRefund(deps: Deps, provider: PaymentProvider, tenant: Tenant, refund: Refund): Promise<RefundOutcome | null> {
  const payment = refund.paymentId === null ? null : await findPayment(deps.db, tenant, refund.paymentId);
  if (!payment?.providerReference || refund.idempotencyKey === null) {
    return { status: 'failed', providerReference: null, failureCode: 'no_provider_payment', failureMessage: 'The payment has no provider charge to refund.' };
  }
  try {
    const r = await provider.refund({
      providerReference: payment.providerReference,
      amount: refund.amount,
      currency: refund.currency,
      idempotencyKey: refund.idempotencyKey,
      metadata: { invoiceId: refund.invoiceId, creditNoteId: refund.creditNoteId, workspaceId: tenant.workspaceId, environment: tenant.environment },
    });
    if (r.status === 'failed')
      return { status: 'failed', providerReference: r.providerReference, failureCode: 'refund_failed', failureMessage: 'Stripe refused the refund.' };
    return { status: 'succeeded', providerReference: r.providerReference, failureCode: null, failureMessage: null };
  } catch (err) {
    if (!(err instanceof PaymentProviderError)) throw err;
    if (err.kind === 'unavailable') {
      deps.log.warn({ err, refundId: refund.id }, 'the provider did not answer a refund; the reconciliation sends it again');
      return null;
    }
    deps.log.error({ err, refundId: refund.id }, 'the provider refused a refund');
    return { status: 'failed', providerReference: null, failureCode: err.providerCode ?? 'provider_rejected', failureMessage: err.message.slice(0, 500) };
  }
}

/**
 * Writes a refund's answer, whoever brings it (the request, the reconciliation), once: a refund
 * settles only from pending. A success grows its payment's amountRefunded (markRefunded).
 */
export async function applyRefundOutcome(deps: Deps, tenant: Tenant, refundId: string, outcome: RefundOutcome, origin: OperationContext): Promise<Refund> {
  return inTransaction(deps.db, async (trx) => {
    const txDeps: Deps = { ...deps, db: trx };
    const first = await findRefund(trx, tenant, refundId);
    if (!first) throw new Error(`refund ${refundId} vanished`);
    // Everything that changes a payment holds its invoice's row (collect-invoice.ts).
    const invoice = await findInvoice(trx, tenant, first.invoiceId, { lock: deps.dialect === 'postgres' });
    if (!invoice) throw new Error(`invoice ${first.invoiceId} vanished`);
    const refund = (await findRefund(trx, tenant, refundId))!;
    if (!refundSettles(refund.status, outcome.status)) return refund;
    const settled: Refund = { ...refund, ...outcome, providerReference: outcome.providerReference ?? refund.providerReference, updatedAt: deps.clock.now() };
    await saveRefund(trx, tenant, settled);
    if (settled.status === 'succeeded' && settled.paymentId !== null) {
      const payment = await findPayment(trx, tenant, settled.paymentId);
      if (payment)
        await markRefunded(
          txDeps,
          tenant,
          origin,
          invoice,
          payment,
          refundedAfter(payment, await listRefundsBy(trx, tenant, 'paymentId', payment.id)),
          settled,
        );
    }
    return settled;
  });
}

/** After the credit note's commit: its pending provider refunds sent and their answers applied; the refunds as they then stand. */
export async function sendPendingRefunds(deps: Deps, ctx: OperationContext, creditNoteId: string): Promise<Refund[]> {
  const refunds = await listRefundsBy(deps.db, ctx, 'creditNoteId', creditNoteId);
  const pending = refunds.filter((r) => r.status === 'pending');
  if (pending.length === 0) return refunds;
  const connection = await findPaymentProvider(deps.db, ctx, 'stripe');
  // Disconnected meanwhile: they wait, pending, for the reconciliation.
  if (!connection) return refunds;
  const provider = stripeProviderOf(deps, connection);
  for (const r of pending) {
    try {
      const outcome = await sendRefund(deps, provider, ctx, r);
      if (outcome !== null) await applyRefundOutcome(deps, ctx, r.id, outcome, ctx);
    } catch (err) {
      // The credit note is committed either way; the refund stays pending for the reconciliation.
      deps.log.error({ err, refundId: r.id }, 'sending a refund failed; the reconciliation sends it again');
    }
  }
  return listRefundsBy(deps.db, ctx, 'creditNoteId', creditNoteId);
}

/** At most this many pending refunds asked about per run. */
const PAGE = 200;

/**
 * The reconciliation of refunds (with reconcilePayments, on real time): provider refunds pending
 * for PAYMENT_RECONCILE_AFTER_MS are sent again under their own key (the answer was lost, or
 * Stripe was unreachable): Stripe replays the refund it made, or makes the only one. Returns how
 * many settled.
 */
export async function reconcileRefunds(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const pending = await listPendingRefunds(deps.db, now - deps.config.paymentReconcileAfterMs, PAGE);
  const providers = new Map<string, PaymentProvider | null>();
  let settled = 0;
  for (const { tenant, refund } of pending) {
    try {
      const key = `${tenant.workspaceId}:${tenant.environment}`;
      if (!providers.has(key)) {
        const connection = await findPaymentProvider(deps.db, tenant, 'stripe');
        providers.set(key, connection ? stripeProviderOf(deps, connection) : null);
      }
      const provider = providers.get(key)!;
      const outcome = provider ? await sendRefund(deps, provider, tenant, refund) : null;
      if (outcome !== null) {
        if ((await applyRefundOutcome(deps, tenant, refund.id, outcome, billingOrigin(deps, tenant))).status !== 'pending') settled += 1;
      } else {
        // Asked again after the bound.
        await saveRefund(deps.db, tenant, { ...refund, updatedAt: deps.clock.now() });
      }
    } catch (err) {
      deps.log.error({ err, refundId: refund.id, workspaceId: tenant.workspaceId }, 'reconciling a refund failed; the next run tries again');
    }
  }
  return settled;
}

/**
 * Stripe's `charge.refunded`: the charge's amount_refunded, as Stripe counts it (our refunds and
 * any made in Stripe's dashboard), brought to the payment whose PaymentIntent it is. Only ever
 * grows (refundedAfter), so a duplicate, or an older count arriving after a newer one, changes
 * nothing. A charge of another system or environment on the same account is not ours.
 */
export async function applyChargeRefunded(deps: Deps, tenant: Tenant, origin: OperationContext, event: StripeEvent): Promise<void> {
  const charge = event.data?.object ?? {};
  const metadata = (charge.metadata ?? {}) as Record<string, unknown>;
  if (metadata.workspaceId !== tenant.workspaceId || metadata.environment !== tenant.environment) return;
  const pi = charge.payment_intent;
  const piId = typeof pi === 'string' ? pi : typeof (pi as { id?: unknown } | null)?.id === 'string' ? (pi as { id: string }).id : null;
  if (piId === null || typeof charge.amount_refunded !== 'number' || typeof charge.currency !== 'string') return;
  const found =
    (typeof metadata.attemptId === 'string' ? await findPayment(deps.db, tenant, metadata.attemptId) : null) ??
    (await findPaymentByProviderReference(deps.db, tenant, piId));
  if (!found || found.provider !== 'stripe' || found.currency !== charge.currency.toUpperCase()) return;
  const reported = fromStripeAmount(charge.amount_refunded, charge.currency);
  await inTransaction(deps.db, async (trx) => {
    const invoice = await findInvoice(trx, tenant, found.invoiceId, { lock: deps.dialect === 'postgres' });
    const payment = await findPayment(trx, tenant, found.id);
    if (!invoice || !payment) return;
    const refunds = await listRefundsBy(trx, tenant, 'paymentId', payment.id);
    await markRefunded({ ...deps, db: trx }, tenant, origin, invoice, payment, refundedAfter(payment, refunds, reported), null);
  });
}
