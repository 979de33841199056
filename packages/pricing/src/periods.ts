import { Decimal } from './decimal.js';

/**
 * Billing periods, pure: where each period of a subscription starts and ends, in UTC, to the
 * millisecond. A period is [start, end): an event at end - 1 ms belongs to it, one at end to the
 * next. Every boundary is computed from the schedule's anchor, never from the previous boundary,
 * so a period anchored on January 31 ends on February 28 (or 29), then on March 31 again.
 */

export const billingIntervals = ['MONTHLY', 'QUARTERLY', 'ANNUAL', 'ONE_TIME'] as const;
export type BillingInterval = (typeof billingIntervals)[number];

/**
 * anniversary: periods start when the subscription started (Stripe's and Lago's default).
 * calendar: periods start on calendar boundaries (the 1st of the month; quarters in January,
 * April, July and October; years on January 1st); a subscription started between two boundaries
 * first gets a partial period, which is prorated.
 */
export const periodAlignments = ['anniversary', 'calendar'] as const;
export type PeriodAlignment = (typeof periodAlignments)[number];

const MONTHS_IN: Record<Exclude<BillingInterval, 'ONE_TIME'>, number> = { MONTHLY: 1, QUARTERLY: 3, ANNUAL: 12 };

/** Calendar months in one period of the interval (1, 3 or 12); null for ONE_TIME, whose period never ends. */
export function monthsPerPeriod(interval: BillingInterval): number | null {
  return interval === 'ONE_TIME' ? null : MONTHS_IN[interval];
}

/**
 * Compares two per-period amounts per month: negative when `a` costs less a month, 0 when the
 * same, positive when more; null when either is ONE_TIME (no period to divide by). Exact: the
 * amounts are cross-multiplied by the other's months (a × months(b) against b × months(a))
 * rather than divided, so 10.00 a quarter and 3.33… a month never compare equal by rounding.
 * (Exact for amounts of up to 38 significant digits; catalog prices have at most 15.)
 */
export function comparePerMonth(
  a: { amount: Decimal | string; interval: BillingInterval },
  b: { amount: Decimal | string; interval: BillingInterval },
): number | null {
  const ma = monthsPerPeriod(a.interval);
  const mb = monthsPerPeriod(b.interval);
  if (ma === null || mb === null) return null;
  return new Decimal(a.amount).times(mb).comparedTo(new Decimal(b.amount).times(ma));
}

export interface BillingSchedule {
  /** When the subscription started (epoch ms): its first period starts here. */
  start: number;
  interval: BillingInterval;
  alignment: PeriodAlignment;
}

export interface BillingPeriodSpan {
  /** 0 for the first period. */
  index: number;
  start: number;
  /** Exclusive; null for ONE_TIME, whose only period never ends. */
  end: number | null;
  /**
   * The whole period this one is part of: equal to [start, end) except for a calendar-aligned
   * first period that started between boundaries. Proration compares the two.
   */
  fullStart: number;
  fullEnd: number | null;
}

/**
 * The instant `months` calendar months after `anchor` (UTC, negative counts go back), on the
 * anchor's day of the month, or on the last day of a shorter month; the time of day is kept.
 */
export function addMonthsClamped(anchor: number, months: number): number {
  const d = new Date(anchor);
  const m = d.getUTCMonth() + months;
  const year = d.getUTCFullYear() + Math.floor(m / 12);
  const month = ((m % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(year, month, Math.min(d.getUTCDate(), lastDay), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

/** The calendar boundary at or before `t` for a period of `months` months (1, 3 or 12). */
function calendarBoundaryAtOrBefore(t: number, months: number): number {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), Math.floor(d.getUTCMonth() / months) * months, 1);
}

/** Where period boundaries are counted from: the start itself, or the calendar boundary at or before it. */
function anchorOf(schedule: BillingSchedule, months: number): number {
  return schedule.alignment === 'calendar' ? calendarBoundaryAtOrBefore(schedule.start, months) : schedule.start;
}

function checkSchedule(schedule: BillingSchedule): void {
  if (!Number.isSafeInteger(schedule.start)) throw new RangeError(`schedule.start must be epoch milliseconds, got ${schedule.start}`);
  if (!billingIntervals.includes(schedule.interval)) throw new RangeError(`unknown billing interval ${String(schedule.interval)}`);
  if (!periodAlignments.includes(schedule.alignment)) throw new RangeError(`unknown period alignment ${String(schedule.alignment)}`);
}

/** The period with this index (0 is the first). */
export function nthPeriod(schedule: BillingSchedule, index: number): BillingPeriodSpan {
  checkSchedule(schedule);
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`a period index is a whole number from 0, got ${index}`);
  if (schedule.interval === 'ONE_TIME') {
    if (index > 0) throw new RangeError('a ONE_TIME schedule has one period only');
    return { index: 0, start: schedule.start, end: null, fullStart: schedule.start, fullEnd: null };
  }
  const months = MONTHS_IN[schedule.interval];
  const anchor = anchorOf(schedule, months);
  const fullStart = addMonthsClamped(anchor, index * months);
  const fullEnd = addMonthsClamped(anchor, (index + 1) * months);
  return { index, start: Math.max(fullStart, schedule.start), end: fullEnd, fullStart, fullEnd };
}

/** The period that contains `t`, or null before the schedule starts. */
export function periodContaining(schedule: BillingSchedule, t: number): BillingPeriodSpan | null {
  checkSchedule(schedule);
  if (t < schedule.start) return null;
  if (schedule.interval === 'ONE_TIME') return nthPeriod(schedule, 0);
  const months = MONTHS_IN[schedule.interval];
  const a = new Date(anchorOf(schedule, months));
  const b = new Date(t);
  // A first guess from the months between them, then a step either way: clamped days and times
  // of day put a boundary up to a month off the plain count.
  const elapsed = (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth());
  let index = Math.max(0, Math.floor(elapsed / months));
  let p = nthPeriod(schedule, index);
  while (t < p.start && index > 0) p = nthPeriod(schedule, --index);
  while (p.end !== null && t >= p.end) p = nthPeriod(schedule, ++index);
  return p;
}

/**
 * Every period that ends in (after, upTo], in order: what a renewal job closes when it runs at
 * `upTo` and last closed the period ending at `after`. After downtime it catches up, one period
 * at a time, and never returns a period twice across runs with consecutive bounds.
 */
export function periodsEndingBetween(schedule: BillingSchedule, after: number, upTo: number): BillingPeriodSpan[] {
  checkSchedule(schedule);
  if (schedule.interval === 'ONE_TIME' || upTo <= after) return [];
  const out: BillingPeriodSpan[] = [];
  let p = periodContaining(schedule, Math.max(after, schedule.start));
  if (p === null) return out;
  // The period containing `after` may have ended exactly at `after`: then it was closed already.
  while (p.end !== null && p.end <= upTo) {
    if (p.end > after) out.push(p);
    p = nthPeriod(schedule, p.index + 1);
  }
  return out;
}

/**
 * How much of its full period a period covers, as an exact ratio of milliseconds (both safe
 * integers): 1/1 for a whole period. Multiply a per-period price by it in decimals, and round once.
 */
export function periodFraction(p: BillingPeriodSpan): { numerator: number; denominator: number } {
  if (p.end === null || p.fullEnd === null) return { numerator: 1, denominator: 1 };
  const covered = p.end - p.start;
  const full = p.fullEnd - p.fullStart;
  return covered === full ? { numerator: 1, denominator: 1 } : { numerator: covered, denominator: full };
}

/**
 * A per-period amount (decimal text) for a period that covers `fraction` of its full period:
 * amount × numerator / denominator, exact to the library's 40 digits. Not rounded: the invoice
 * line that carries it is rounded once, with roundToMinorUnit.
 */
export function prorate(amount: string, fraction: { numerator: number; denominator: number }): Decimal {
  if (!Number.isSafeInteger(fraction.numerator) || !Number.isSafeInteger(fraction.denominator) || fraction.denominator <= 0 || fraction.numerator < 0) {
    throw new RangeError(`a fraction is two whole numbers, the denominator above 0; got ${fraction.numerator}/${fraction.denominator}`);
  }
  return new Decimal(amount).times(fraction.numerator).dividedBy(fraction.denominator);
}
