/**
 * The plain-language line a plan change's preview shows (the widget's step 2), worded by the same
 * module as the pricing page: money as formatPeriodAmount/formatPeriodPrice write it, dates in
 * UTC as "Dec 15, 2026". Pure; amounts are decimal text, never numbers.
 */
import type { BillingInterval } from './periods.js';
import { formatPeriodAmount, formatPeriodPrice, type DisplayText } from './display.js';
import { Decimal } from './decimal.js';

export interface ChangeSummaryInput {
  action: 'UPGRADE' | 'DOWNGRADE' | 'LATERAL' | 'CANCEL';
  applyAt: 'IMMEDIATE' | 'PERIOD_END';
  currency: string;
  /** The offering switched to (null for a cancellation). */
  toName: string | null;
  fromName: string | null;
  /** When the change takes effect (epoch ms): now, or the current period's end. */
  effectiveAt: number;
  /** IMMEDIATE change: the proration lines and their net (decimal text); null otherwise. */
  credit: string | null;
  debit: string | null;
  /** Usage before the change billed with it (IMMEDIATE), decimal text; null when nothing is billed now. */
  usageCharge: string | null;
  /** The entry price of each period after the change and its interval; null when usage-only or cancelled. */
  nextPrice: { amount: string; interval: BillingInterval } | null;
  /** When the next period starts (epoch ms); null after a cancellation. */
  nextRenewalAt: number | null;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** An instant as a UTC calendar date, "Dec 15, 2026": the same text on every server and browser. */
export function formatDate(t: number): DisplayText {
  const d = new Date(t);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

const positive = (x: string | null): x is string => x !== null && new Decimal(x).gt(0);

function after(input: ChangeSummaryInput): string {
  if (input.nextRenewalAt === null) return '';
  const price = input.nextPrice === null ? 'usage only' : formatPeriodPrice(input.nextPrice.amount, input.currency, input.nextPrice.interval);
  return ` From ${formatDate(input.nextRenewalAt)}: ${price}.`;
}

/** One or two sentences a buyer reads before confirming; every figure is one the change bills. */
export function describeChange(input: ChangeSummaryInput): DisplayText {
  const money = (x: string) => formatPeriodAmount(x, input.currency);
  const usage = positive(input.usageCharge) ? ` Usage so far (${money(input.usageCharge)}) is billed now.` : '';
  if (input.action === 'CANCEL') {
    if (input.applyAt === 'PERIOD_END')
      return `Cancel on ${formatDate(input.effectiveAt)}: ${input.fromName ?? 'your plan'} stays active until then, and nothing is charged after it.`;
    return `Cancel now: ${input.fromName ?? 'your plan'} ends immediately and its API keys stop working.${usage} Unused time is credited on a credit note.`;
  }
  const to = input.toName ?? 'the new plan';
  if (input.applyAt === 'PERIOD_END') return `Switch to ${to} on ${formatDate(input.effectiveAt)}. Nothing changes or is charged until then.${after(input)}`;
  const credit = positive(input.credit) ? input.credit : null;
  const debit = positive(input.debit) ? input.debit : null;
  let money1: string;
  if (debit && credit) {
    const net = new Decimal(debit).minus(credit);
    money1 = net.gte(0)
      ? ` ${money(debit)} for the rest of this period, less ${money(credit)} for unused time on ${input.fromName ?? 'your plan'}: ${money(net.toFixed())} today.`
      : ` ${money(credit)} for unused time on ${input.fromName ?? 'your plan'} is credited, and ${money(debit)} for the rest of this period is charged: ${money(net.negated().toFixed())} back.`;
  } else if (debit) money1 = ` ${money(debit)} for the rest of this period today.`;
  else if (credit) money1 = ` ${money(credit)} for unused time on ${input.fromName ?? 'your plan'} is credited.`;
  else money1 = ' No charge for the rest of this period.';
  return `Switch to ${to} now.${money1}${usage}${after(input)}`;
}
