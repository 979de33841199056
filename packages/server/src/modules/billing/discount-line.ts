import { Decimal, roundToMinorUnit } from '@tollgate/pricing';
import type { SubscriptionDiscount } from '../subscriptions/subscription.js';
import { NO_UNIT, type InvoiceLine } from './rate-period.js';

/**
 * Pure: the retention discount on a renewal invoice. A `discount` line takes `percentOff` of the
 * invoice's own lines (entry price, usage, minimum fees): 20 % of their sum, rounded half up to
 * the currency's minor unit once, negated. Adjustment lines bill earlier periods' late usage at
 * the price of those periods and are not discounted, so the line is the same when the draft is
 * issued, previewed and finalized. `rate` holds percentOff, so finalization can recompute the line
 * from re-rated usage without the subscription. Prepaid credits lines (negative) are part of the
 * base: usage the credits paid is not discounted again, so the total never goes below zero.
 */
const NOT_DISCOUNTED = new Set(['discount', 'adjustment']);

/** The lines a discount takes its percentage of. */
const discountBase = (lines: readonly InvoiceLine[]) => lines.filter((l) => !NOT_DISCOUNTED.has(l.type)).reduce((acc, l) => acc.plus(l.amount), new Decimal(0));

function amountOff(base: Decimal, percentOff: string, currency: string): string {
  // Never a charge: a base at or below zero takes nothing off.
  if (base.lte(0)) return roundToMinorUnit('0', currency);
  return roundToMinorUnit(new Decimal(roundToMinorUnit(base.times(percentOff).dividedBy(100), currency)).negated(), currency);
}

/** Which of its invoices this is, counting from 1: "invoice 1 of 3". */
export function discountDescription(d: Pick<SubscriptionDiscount, 'percentOff' | 'periods' | 'periodsLeft'>): string {
  return `Retention discount: ${d.percentOff}% off (invoice ${d.periods - d.periodsLeft + 1} of ${d.periods})`;
}

/** The discount line for an invoice holding `lines`, while the discount has periods left. */
export function discountLine(discount: SubscriptionDiscount, lines: readonly InvoiceLine[], currency: string): InvoiceLine {
  return {
    type: 'discount',
    description: discountDescription(discount),
    ...NO_UNIT,
    rate: discount.percentOff,
    amount: amountOff(discountBase(lines), discount.percentOff, currency),
  };
}

/** The discount after one more invoice carried it: null after the last. */
export function discountAfterInvoice(discount: SubscriptionDiscount): SubscriptionDiscount | null {
  return discount.periodsLeft > 1 ? { ...discount, periodsLeft: discount.periodsLeft - 1 } : null;
}

/** A discount that still applies to the next renewal invoice. */
export const discountApplies = (discount: SubscriptionDiscount | null): discount is SubscriptionDiscount => discount !== null && discount.periodsLeft > 0;

/**
 * The lines with each discount line recomputed from the other lines as they are now (after usage
 * was rated again) and moved after them; lines without a discount are returned as they are.
 */
export function rediscounted<L extends InvoiceLine>(lines: readonly L[], currency: string): L[] {
  const discounts = lines.filter((l) => l.type === 'discount');
  if (discounts.length === 0) return [...lines];
  const others = lines.filter((l) => l.type !== 'discount');
  return [...others, ...discounts.map((d) => ({ ...d, amount: amountOff(discountBase(others), d.rate ?? '0', currency) }))];
}
