/**
 * Plan changes: what a change of offering in the middle of a period credits and charges for the
 * entry price, and which way the change goes. Usage is never prorated; the README ("Plan
 * changes") says how usage and free allowances split at the change.
 *
 * The rule (Stripe's): by the second over the current period. The customer is credited the old
 * entry price's share for the unused time and charged the new entry price's share for the same
 * time. Each line is rounded on its own, down, to the currency's minor unit: the credit so that it
 * never exceeds what the customer paid for the unused time, the debit alike so that the two lines
 * keep the order of the prices (a downgrade never nets a charge, an upgrade never a credit, which
 * half up on one line and down on the other can break by a minor unit). The net is the difference
 * of the rounded lines, so the three figures always add up as shown.
 *
 * Seconds: every instant is taken to the whole second at or before it (floor of epoch
 * milliseconds / 1000), as Stripe's Unix-second timestamps are. The period has end − start
 * seconds and the unused time is end − change: the second in which the change happens belongs
 * to the new offering. A change at the start credits the whole old price; one at the end itself
 * credits and charges nothing (that is what a PERIOD_END change comes to).
 *
 * Everything is Decimal: amounts are decimal text in and out, never JS numbers. Only the seconds
 * are numbers, and they are safe integers.
 */
import { fitsMinorUnit, minorUnitDigits, roundToMinorUnit } from './currency.js';
import { Decimal, isDecimalString } from './decimal.js';
import { comparePerMonth, type BillingInterval } from './periods.js';

export interface ProrateChangeInput {
  /** ISO 4217 code of both offerings: decides the minor unit each line is rounded to. */
  currency: string;
  /** The current period, [periodStart, periodEnd) in epoch ms. */
  periodStart: number;
  periodEnd: number;
  /** When the change takes effect (epoch ms), from periodStart to periodEnd inclusive. */
  changeAt: number;
  /**
   * What the old offering's entry price charged for this period, as invoiced: after a trial's
   * waiver ("0"), a calendar-aligned first period's proration, or a discount. The credit is a
   * share of it, so it can never exceed what the customer paid. Decimal text that fits the
   * currency's minor unit; null when the old offering has no entry price (nothing to credit).
   */
  oldEntryPrice: string | null;
  /**
   * What the new offering's entry price charges for a period like this one (for a partial
   * first period, prorated the same way). Decimal text, or null when the new offering has no
   * entry price or the change is a cancellation (nothing to charge).
   */
  newEntryPrice: string | null;
}

export interface ProratedChange {
  /** Owed to the customer for the unused time of the old entry price: ≥ 0, rounded to the minor unit. */
  credit: string;
  /** Owed by the customer for the unused time on the new entry price: ≥ 0, rounded to the minor unit. */
  debit: string;
  /**
   * debit − credit of the rounded lines. Positive: the customer owes it (charge today).
   * Negative: the customer is owed its absolute value. "0.00" (never "-0.00") when they cancel out.
   */
  net: string;
  /** Unused seconds over the period's seconds, not reduced: the share both lines were taken at. */
  unusedFraction: { numerator: number; denominator: number };
}

const toSeconds = (t: number) => Math.floor(t / 1000);
const iso = (t: number) => new Date(t).toISOString();

function checkInstant(value: number, field: string): void {
  // A safe integer within Date's range, so the error messages below can print it.
  if (!Number.isSafeInteger(value) || Math.abs(value) > 8.64e15) throw new RangeError(`${field} must be epoch milliseconds, got ${value}`);
}

function checkPrice(value: string | null, field: string): void {
  if (value === null) return;
  if (typeof value !== 'string' || !isDecimalString(value) || value.startsWith('-')) {
    throw new RangeError(`${field} must be a non-negative decimal string such as "49.00", got ${JSON.stringify(value)}`);
  }
}

/**
 * price × numerator / denominator, rounded down to the currency's minor unit (toward zero: shares
 * are never negative), computed on whole numbers: a price of p / 10^k gives
 * p × numerator × 10^digits / (10^k × denominator), an integer division. No intermediate quotient
 * is cut to a precision first, so no share just below a whole minor unit can be taken for one,
 * whatever the price's digits or the period's length.
 */
function shareInMinorUnits(price: string, numerator: number, denominator: number, digits: number): string {
  const [whole, fraction = ''] = price.split('.');
  const n = BigInt(whole! + fraction) * BigInt(numerator) * 10n ** BigInt(digits);
  const m = 10n ** BigInt(fraction.length) * BigInt(denominator);
  const units = n / m;
  const text = units.toString().padStart(digits + 1, '0');
  return digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/**
 * The credit for the old entry price's unused time, the debit for the new one's, and the net.
 * Throws RangeError, naming the field, for an unknown currency, a period without a whole second
 * in it, a change outside [periodStart, periodEnd], or a price that is not a non-negative
 * decimal string (the old one must also fit the currency's minor unit: it was invoiced).
 */
export function prorateChange(input: ProrateChangeInput): ProratedChange {
  const { currency, periodStart, periodEnd, changeAt, oldEntryPrice, newEntryPrice } = input;
  checkInstant(periodStart, 'periodStart');
  checkInstant(periodEnd, 'periodEnd');
  checkInstant(changeAt, 'changeAt');
  const digits = minorUnitDigits(currency);
  checkPrice(oldEntryPrice, 'oldEntryPrice');
  checkPrice(newEntryPrice, 'newEntryPrice');
  if (oldEntryPrice !== null && !fitsMinorUnit(oldEntryPrice, currency)) {
    throw new RangeError(`oldEntryPrice is what the period was invoiced, so it fits ${currency}'s minor unit; got ${oldEntryPrice}`);
  }
  const start = toSeconds(periodStart);
  const end = toSeconds(periodEnd);
  if (end <= start) throw new RangeError(`the period [${iso(periodStart)}, ${iso(periodEnd)}) must last at least a second`);
  if (changeAt < periodStart || changeAt > periodEnd) {
    throw new RangeError(`changeAt ${iso(changeAt)} is outside the current period [${iso(periodStart)}, ${iso(periodEnd)}]`);
  }
  // changeAt within [periodStart, periodEnd] keeps its second within [start, end]: floor is monotone.
  const unused = end - toSeconds(changeAt);
  const total = end - start;
  const credit = shareInMinorUnits(oldEntryPrice ?? '0', unused, total, digits);
  const debit = shareInMinorUnits(newEntryPrice ?? '0', unused, total, digits);
  return { credit, debit, net: roundToMinorUnit(new Decimal(debit).minus(credit), currency), unusedFraction: { numerator: unused, denominator: total } };
}

export const changeKinds = ['UPGRADE', 'DOWNGRADE', 'LATERAL'] as const;
export type ChangeKind = (typeof changeKinds)[number];

/** What changeKind reads of an offering (an Offering fits). */
export interface ChangeKindOffering {
  currency: string;
  /** Decimal text per billing period, or null when usage-only. */
  entryPrice: string | null;
  billingPeriod: BillingInterval;
}

/**
 * Which way a change from `from` to `to` goes, by their entry prices per month, compared exactly
 * (an ANNUAL 120.00 and a MONTHLY 10.00 are LATERAL): dearer a month is an UPGRADE, cheaper a
 * DOWNGRADE, the same LATERAL.
 * - A missing entry price counts as 0 a month: the kind is about the fixed fee, the only thing a
 *   change prorates. So usage-only to priced is an UPGRADE, and usage-only to usage-only is
 *   LATERAL whatever the usage rates (those are not prorated, and not on one scale).
 * - Null when there is no kind: either offering is ONE_TIME (a one-time price has no per-month
 *   figure, and its period never ends, so there is nothing to prorate), or the currencies differ
 *   (an exchange rate is not ours to pick). Such an offering is not a change candidate.
 */
export function changeKind(from: ChangeKindOffering, to: ChangeKindOffering): ChangeKind | null {
  checkPrice(from.entryPrice, 'from.entryPrice');
  checkPrice(to.entryPrice, 'to.entryPrice');
  if (from.currency.toUpperCase() !== to.currency.toUpperCase()) return null;
  const order = comparePerMonth({ amount: to.entryPrice ?? '0', interval: to.billingPeriod }, { amount: from.entryPrice ?? '0', interval: from.billingPeriod });
  if (order === null) return null;
  return order > 0 ? 'UPGRADE' : order < 0 ? 'DOWNGRADE' : 'LATERAL';
}
