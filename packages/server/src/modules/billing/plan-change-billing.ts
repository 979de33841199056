import { Decimal, roundToMinorUnit } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Subscription } from '../subscriptions/subscription.js';
import type { CreditNote } from './credit-note.js';
import { finalizeInvoices } from './finalize-invoice.js';
import { issueFinalizedInvoice } from './issue-finalized-invoice.js';
import type { Invoice } from './invoice.js';
import { findInvoicesByCycleKeys } from './invoice.repository.js';
import type { DraftInput } from './issue-invoice.js';
import { issueCreditNote } from './issue-credit-note.js';

/**
 * What billing does for a plan change (modules/plan-changes decides it): find what the customer
 * paid for the current usage period, issue the change's invoice finalized at once, and credit the
 * unused time with a credit note.
 */

/** What the customer paid for the current usage period's entry price, and on which invoice. */
export interface PaidEntry {
  /** As invoiced: after a trial's waiver, a partial period's proration, a discount, earlier credit notes. "0" when nothing. */
  amount: string;
  invoice: Invoice | null;
}

/**
 * The entry price paid for [currentPeriodStart, currentPeriodEnd): the entry-price line of the
 * invoice that opened it (at subscribing, `create`; at a renewal, `cycle:<start>`), or the debit
 * line of the plan change that started it (`change:<start>`). Less a discount line's share, and
 * never more than is left to credit on that invoice (an operator may have credited it already).
 * A void invoice was never paid: nothing.
 */
export async function paidForCurrentPeriod(deps: Deps, tenant: OperationContext, sub: Subscription): Promise<PaidEntry> {
  const start = sub.currentPeriodStart;
  const zero = roundToMinorUnit('0', sub.currency);
  const found = await findInvoicesByCycleKeys(deps.db, tenant, sub.id, ['create', `cycle:${start}`, `change:${start}`], deps.dialect === 'postgres');
  for (const invoice of found) {
    const lines = invoice.lines.filter((l) => l.periodStart === start && (l.type === 'entry_price' || (l.type === 'proration' && new Decimal(l.amount).gt(0))));
    if (lines.length === 0) continue;
    if (invoice.status === 'void') return { amount: zero, invoice: null };
    let paid = lines.reduce((acc, l) => acc.plus(l.amount), new Decimal(0));
    // A percentage discount on the invoice took its share of the entry price too.
    for (const l of invoice.lines) {
      if (l.type === 'discount' && l.rate !== null) paid = paid.minus(roundToMinorUnit(paid.times(l.rate).dividedBy(100), sub.currency));
    }
    const left = new Decimal(invoice.total).minus(invoice.creditedTotal);
    return { amount: roundToMinorUnit(Decimal.max(Decimal.min(paid, left), 0), sub.currency), invoice };
  }
  return { amount: zero, invoice: null };
}

/**
 * Issues a plan change's invoice and finalizes it at once (numbered, frozen), with its audit
 * events and webhook messages, in the caller's transaction: the buyer sees the charge in the result.
 * No late-usage adjustments here: the invoice is exactly what the preview showed; the next
 * renewal's invoice carries them.
 */
export function issueChangeInvoice(txDeps: Deps, ctx: OperationContext, input: DraftInput): Promise<Invoice> {
  return issueFinalizedInvoice(txDeps, ctx, input, `Subscription '${input.sub.id}' was changed at this instant already; fetch it and try again.`);
}

/**
 * Credits `amount` of what was paid on `invoice` (a plan change's unused time), as a credit note
 * with reason proration, in the caller's transaction. A draft still in its grace period is
 * finalized first (at `at`): only an issued invoice can be credited.
 */
export async function creditUnusedTime(
  txDeps: Deps,
  ctx: OperationContext,
  invoice: Invoice,
  amount: string,
  description: string,
  at: number,
): Promise<CreditNote> {
  if (invoice.status === 'draft') await finalizeInvoices(txDeps, ctx, ctx, [invoice.id], at, { onlyDraft: false });
  return issueCreditNote(txDeps, ctx, { invoiceId: invoice.id, reason: 'proration', lines: [{ description, amount }] });
}
