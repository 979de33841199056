/**
 * The arithmetic behind the console's charts. Values arrive as decimal text (usage sums, money):
 * comparisons and sums go through @tollgate/pricing's Decimal, and the text the API sent is what
 * labels and tables show. Only a bar's height becomes a JS number, a fraction of the drawing
 * (geometry, never an amount). Pure.
 */
import { Decimal, isDecimalString } from '@tollgate/pricing';

export interface BarDatum {
  /** What the bar stands for: a day (YYYY-MM-DD), a metric. */
  label: string;
  /** Decimal text, shown as sent. */
  value: string;
}

const decimalOf = (value: string): Decimal | null => (isDecimalString(value) ? new Decimal(value) : null);

/** The largest value's exact text, or null when none is a decimal. */
export function maxValue(values: readonly string[]): string | null {
  let best: Decimal | null = null;
  let text: string | null = null;
  for (const v of values) {
    const d = decimalOf(v);
    if (d && (best === null || d.gt(best))) [best, text] = [d, v];
  }
  return text;
}

/**
 * Each bar's height as a share of the tallest, 0..1. A value that is not positive, or not a
 * decimal, draws no bar (a credit pulling a day below zero is in the table, not under the axis).
 */
export function barFractions(values: readonly string[]): number[] {
  const max = maxValue(values);
  const top = max === null ? null : new Decimal(max);
  return values.map((v) => {
    const d = decimalOf(v);
    if (!d || !top || !top.gt(0) || !d.gt(0)) return 0;
    return d.div(top).toNumber();
  });
}

/** The exact sum of decimal texts ("0" for none); text that is not a decimal is an error, not a silent zero. */
export function sumDecimals(values: readonly string[]): string {
  let total = new Decimal(0);
  for (const v of values) {
    const d = decimalOf(v);
    if (!d) throw new RangeError(`not a decimal: ${v}`);
    total = total.plus(d);
  }
  return total.toFixed();
}

const DAY_MS = 86_400_000;

/** Every UTC day from `from` to `to` inclusive (YYYY-MM-DD); empty when either is no calendar day or to is before from. */
export function daysFrom(from: string, to: string): string[] {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  if (Number.isNaN(start) || Number.isNaN(end)) return [];
  const days: string[] = [];
  for (let t = start; t <= end; t += DAY_MS) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

export type PeriodChoice = 'month' | '7' | '30' | '90';

/** The choices of a chart's period picker; 90 days stays under the API's 93-day limit. */
export const PERIODS: ReadonlyArray<{ value: PeriodChoice; label: string }> = [
  { value: 'month', label: 'This month' },
  { value: '7', label: 'Last 7 days' },
  { value: '30', label: 'Last 30 days' },
  { value: '90', label: 'Last 90 days' },
];

/** The days a choice covers, ending today (UTC, passed in so the function reads no clock). */
export function periodOf(choice: PeriodChoice, todayMs: number): { from: string; to: string } {
  const to = new Date(todayMs).toISOString().slice(0, 10);
  if (choice === 'month') return { from: `${to.slice(0, 8)}01`, to };
  const days = Number(choice);
  return { from: new Date(Date.parse(`${to}T00:00:00Z`) - (days - 1) * DAY_MS).toISOString().slice(0, 10), to };
}

export interface DayAmount {
  /** What the amount belongs to: a metric, a currency. */
  key: string;
  day: string;
  value: string;
}

/**
 * One series per key (sorted), a bar per day of `days` (a day without rows is "0"), each the exact
 * sum of that key's values on that day: usage per metric, or invoice totals per currency (sums
 * never cross currencies). Rows outside `days` are left out.
 */
export function seriesByKey(rows: readonly DayAmount[], days: readonly string[]): Array<{ key: string; series: BarDatum[] }> {
  const wanted = new Set(days);
  const byKey = new Map<string, Map<string, string[]>>();
  for (const r of rows) {
    if (!wanted.has(r.day)) continue;
    const perDay = byKey.get(r.key) ?? new Map<string, string[]>();
    byKey.set(r.key, perDay);
    perDay.set(r.day, [...(perDay.get(r.day) ?? []), r.value]);
  }
  return [...byKey.keys()].sort().map((key) => {
    const perDay = byKey.get(key) as Map<string, string[]>;
    return { key, series: days.map((day) => ({ label: day, value: sumDecimals(perDay.get(day) ?? []) })) };
  });
}
