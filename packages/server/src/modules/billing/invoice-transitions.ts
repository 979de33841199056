import type { Deps } from '../../deps.js';
import { activatePurchasedGrants, voidPurchasedGrants } from '../credits/grant-credits.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { emitWebhookEvent } from '../outbound-webhooks/emit-webhook-events.js';
import { timeOf } from '../test-clocks/clock-time.js';
import { amountRemaining, type Invoice, type InvoiceStatus } from './invoice.js';
import { findInvoice, saveInvoice } from './invoice.repository.js';
import { invoiceEvent } from './issue-invoice.js';
import { recoverIfSettled } from './collect-invoice.js';
import { SUBSCRIPTIONS_CHANGED } from '../subscriptions/subscription.js';
import { Decimal, roundToMinorUnit } from '@tollgate/pricing';

/**
 * What an operator may do to an issued invoice, and from which states (Stripe's rules): `pay`
 * marks it paid out of band, without a payment (record-manual-payment.ts records one). A draft is finalized first (finalize-invoice.ts);
 * paid and void are final.
 */
export const invoiceActions = {
  pay: { from: ['finalized', 'uncollectible'], to: 'paid', event: 'invoice.paid' },
  void: { from: ['finalized', 'uncollectible'], to: 'void', event: 'invoice.voided' },
  mark_uncollectible: { from: ['finalized'], to: 'uncollectible', event: 'invoice.marked_uncollectible' },
} as const satisfies Record<string, { from: readonly InvoiceStatus[]; to: InvoiceStatus; event: string }>;
export type InvoiceAction = keyof typeof invoiceActions;

/** Pure: the state an action leads to, or why it cannot be taken. */
export function nextInvoiceStatus(status: InvoiceStatus, action: InvoiceAction): { to: InvoiceStatus } | { refused: string } {
  const rule = invoiceActions[action];
  if ((rule.from as readonly InvoiceStatus[]).includes(status)) return { to: rule.to };
  const from = rule.from.join(' or ');
  return {
    refused: status === 'draft' ? `The invoice is a draft: finalize it first (${action} needs ${from}).` : `The invoice is ${status}; ${action} needs ${from}.`,
  };
}

export async function transitionInvoice(deps: Deps, ctx: OperationContext, id: string, action: InvoiceAction): Promise<Invoice> {
  let recovered = false;
  const result = await inTransaction(deps.db, async (trx) => {
    const invoice = await findInvoice(trx, ctx, id, { lock: deps.dialect === 'postgres' });
    if (!invoice) throw notFound('invoice', id);
    const next = nextInvoiceStatus(invoice.status, action);
    if ('refused' in next) throw new AppError('CONFLICT', `Invoice '${id}': ${next.refused}`);
    const at = await timeOf({ db: trx, clock: deps.clock }, ctx, invoice.testClockId);
    const updated: Invoice = {
      ...invoice,
      status: next.to,
      // Marked paid: what was still owed counts as paid, beside any payments already recorded.
      ...(action === 'pay'
        ? { paidAt: at, amountPaid: roundToMinorUnit(new Decimal(invoice.amountPaid).plus(amountRemaining(invoice)), invoice.currency) }
        : {}),
      // Settled or written off: nothing more is charged.
      nextPaymentAttemptAt: null,
      ...(action === 'void' ? { voidedAt: at } : {}),
      ...(action === 'mark_uncollectible' ? { markedUncollectibleAt: at } : {}),
      updatedAt: deps.clock.now(),
    };
    await saveInvoice(trx, ctx, updated);
    await recordAudit(trx, deps, ctx, {
      eventType: invoiceActions[action].event,
      targetType: 'invoice',
      targetId: id,
      payload: { number: invoice.number, from: invoice.status, to: updated.status, total: invoice.total, amountPaid: updated.amountPaid },
    });
    await emitWebhookEvent(trx, deps, ctx, invoiceEvent(deps, ctx, invoiceActions[action].event, updated, invoice));
    // Credits bought with it: active once paid, voided with it.
    if (action === 'pay') await activatePurchasedGrants({ ...deps, db: trx }, ctx, id, at);
    if (action === 'void') await voidPurchasedGrants({ ...deps, db: trx }, ctx, id);
    // Its subscription, past due because of it, is itself again when nothing else is failing.
    recovered = await recoverIfSettled({ ...deps, db: trx }, ctx, ctx, updated);
    return updated;
  });
  if (recovered) deps.caches.clear(SUBSCRIPTIONS_CHANGED);
  return result;
}
