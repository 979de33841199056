import { Decimal, fitsMinorUnit, isDecimalString, roundToMinorUnit } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { activatePurchasedGrants } from '../credits/grant-credits.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { emitWebhookEvent } from '../outbound-webhooks/emit-webhook-events.js';
import { manualPayment, type Payment, type RecordPaymentInput } from '../payments/payment.js';
import { insertPayment } from '../payments/payment.repository.js';
import { timeOf } from '../test-clocks/clock-time.js';
import { amountRemaining, type Invoice } from './invoice.js';
import { findInvoice, saveInvoice } from './invoice.repository.js';
import { invoiceEvent } from './issue-invoice.js';
import { recoverIfSettled } from './collect-invoice.js';
import { SUBSCRIPTIONS_CHANGED } from '../subscriptions/subscription.js';

/** Invoices a payment may be recorded against: issued and not settled (Stripe's "open"). */
const PAYABLE = new Set(['finalized', 'uncollectible']);

/** Pure: why `amount` cannot be paid towards an invoice with `remaining` left, or null. */
export function paymentAmountProblem(amount: string, remaining: string, currency: string): string | null {
  if (!isDecimalString(amount)) return `'${amount}' is not a decimal amount such as "120.50".`;
  const value = new Decimal(amount);
  if (value.lte(0)) return 'A payment is more than 0.';
  if (!fitsMinorUnit(amount, currency))
    return `${currency} amounts have at most ${roundToMinorUnit('0', currency).split('.')[1]?.length ?? 0} decimals; '${amount}' has more.`;
  if (value.gt(remaining)) return `${roundToMinorUnit(value, currency)} ${currency} is more than the invoice still owes (${remaining} ${currency}).`;
  return null;
}

/**
 * An operator's record of money that arrived outside any provider (a bank transfer, a cheque):
 * partial payments add up, and the payment that leaves nothing owed marks the invoice paid, with
 * `invoice.paid` in the audit log and to webhook endpoints, as a provider's payment will.
 */
export async function recordManualPayment(
  deps: Deps,
  ctx: OperationContext,
  invoiceId: string,
  input: RecordPaymentInput,
): Promise<{ payment: Payment; invoice: Invoice }> {
  let recovered = false;
  const result = await inTransaction(deps.db, async (trx) => {
    const invoice = await findInvoice(trx, ctx, invoiceId, { lock: deps.dialect === 'postgres' });
    if (!invoice) throw notFound('invoice', invoiceId);
    if (!PAYABLE.has(invoice.status)) {
      throw new AppError(
        'CONFLICT',
        invoice.status === 'draft'
          ? `Invoice '${invoiceId}' is a draft: finalize it before recording a payment.`
          : `Invoice '${invoiceId}' is ${invoice.status}: a payment is recorded against a finalized or uncollectible invoice.`,
      );
    }
    const remaining = amountRemaining(invoice);
    const problem = paymentAmountProblem(input.amount, remaining, invoice.currency);
    if (problem) throw new AppError('VALIDATION_FAILED', problem, { field: 'body.amount' });
    const now = await timeOf({ db: trx, clock: deps.clock }, ctx, invoice.testClockId);
    const paidAt = input.paidAt === undefined ? now : Date.parse(input.paidAt);
    if (paidAt > now)
      throw new AppError('VALIDATION_FAILED', `paidAt ${input.paidAt} is in the future (now is ${new Date(now).toISOString()}).`, { field: 'body.paidAt' });

    const amount = roundToMinorUnit(input.amount, invoice.currency);
    const payment = manualPayment({
      id: deps.ids.next('payment'),
      invoiceId,
      customerId: invoice.customerId,
      amount,
      currency: invoice.currency,
      reference: input.reference ?? null,
      paidAt,
      createdAt: deps.clock.now(),
    });
    await insertPayment(trx, ctx, payment);
    const amountPaid = roundToMinorUnit(new Decimal(invoice.amountPaid).plus(amount), invoice.currency);
    const settled = new Decimal(amount).eq(remaining);
    const updated: Invoice = {
      ...invoice,
      amountPaid,
      ...(settled ? { status: 'paid' as const, paidAt, nextPaymentAttemptAt: null } : {}),
      updatedAt: deps.clock.now(),
    };
    await saveInvoice(trx, ctx, updated);
    await recordAudit(trx, deps, ctx, {
      eventType: 'payment.recorded',
      targetType: 'invoice',
      targetId: invoiceId,
      payload: {
        paymentId: payment.id,
        number: invoice.number,
        amount,
        currency: invoice.currency,
        reference: payment.reference,
        amountRemaining: amountRemaining(updated),
      },
    });
    if (settled) {
      await recordAudit(trx, deps, ctx, {
        eventType: 'invoice.paid',
        targetType: 'invoice',
        targetId: invoiceId,
        payload: { number: invoice.number, from: invoice.status, to: 'paid', total: invoice.total, amountPaid },
      });
      await emitWebhookEvent(trx, deps, ctx, invoiceEvent(deps, ctx, 'invoice.paid', updated, invoice));
      await activatePurchasedGrants({ ...deps, db: trx }, ctx, updated.id, updated.paidAt ?? deps.clock.now());
      recovered = await recoverIfSettled({ ...deps, db: trx }, ctx, ctx, updated);
    }
    return { payment, invoice: updated };
  });
  if (recovered) deps.caches.clear(SUBSCRIPTIONS_CHANGED);
  return result;
}
