/** Billing periods in UTC calendar arithmetic. */
export const billingPeriods = ['MONTHLY', 'QUARTERLY', 'ANNUAL'] as const;
export type BillingPeriod = (typeof billingPeriods)[number];

const monthsIn: Record<BillingPeriod, number> = { MONTHLY: 1, QUARTERLY: 3, ANNUAL: 12 };

/** A month after Jan 31 is the last day of February: the day clamps, the time of day is kept. */
export function addMonthsUtc(ms: number, months: number): number {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const targetYear = y + Math.floor(m / 12);
  const targetMonth = ((m % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(targetYear, targetMonth + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), lastDay);
  return Date.UTC(targetYear, targetMonth, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

/**
 * Usage is billed in UTC calendar periods (Lago's "calendar" billing): months start on the 1st,
 * quarters in January, April, July and October, years on January 1st. A subscription's first
 * period runs from its start to the next boundary; renewals then cover whole periods. Usage is
 * kept per UTC hour, so a period is rated exactly from any instant (modules/usage/period-usage.ts).
 */
export function calendarPeriodStart(t: number, period: BillingPeriod): number {
  const d = new Date(t);
  const months = monthsIn[period];
  const month = Math.floor(d.getUTCMonth() / months) * months;
  return Date.UTC(d.getUTCFullYear(), month, 1);
}

/** The end (exclusive) of the calendar period containing `t`: the next period's start. */
export function calendarPeriodEnd(t: number, period: BillingPeriod): number {
  return addMonthsUtc(calendarPeriodStart(t, period), monthsIn[period]);
}

/** The start of the UTC calendar month containing `t`: the key of usage aggregates. */
export function monthStart(t: number): number {
  return calendarPeriodStart(t, 'MONTHLY');
}

export const HOUR_MS = 3_600_000;

/** The start of the UTC hour containing `t`: the key of hourly usage. UTC hours are all 3,600,000 ms. */
export function hourStart(t: number): number {
  return Math.floor(t / HOUR_MS) * HOUR_MS;
}
