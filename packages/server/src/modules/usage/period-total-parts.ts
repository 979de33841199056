import { calendarPeriodEnd, HOUR_MS, monthStart } from '../../lib/periods.js';

/**
 * Where the totals of a range of whole hours come from: monthly total rows (usage_aggregates)
 * where they save reading hours, hourly total rows (usage_hourly) elsewhere. Rows with usage are
 * what a read costs, and they fill hours roughly evenly, so hours stand in for rows: a month more
 * than half covered is its row less the hours it does not cover, any other month its covered hours.
 */

export interface TotalPart {
  /** months: monthly rows with period_start in [from, to); hours: hourly rows with hour_start in [from, to). */
  source: 'months' | 'hours';
  sign: 1 | -1;
  from: number;
  /** Exclusive. */
  to: number;
}

/**
 * Pure: the signed parts whose sum is the totals of the hours starting in [fromHour, toHour)
 * (both on the hour), in time order. Adjacent parts of the same source and sign are merged, so a
 * period has at most three: what precedes its months, its months, what follows them.
 */
export function planTotalParts(fromHour: number, toHour: number): TotalPart[] {
  const parts: TotalPart[] = [];
  if (toHour <= fromHour) return parts;
  const push = (p: TotalPart) => {
    const last = parts.at(-1);
    if (last && last.source === p.source && last.sign === p.sign && last.to === p.from) last.to = p.to;
    else parts.push({ ...p });
  };
  for (let month = monthStart(fromHour); month < toHour; month = calendarPeriodEnd(month, 'MONTHLY')) {
    const next = calendarPeriodEnd(month, 'MONTHLY');
    const from = Math.max(fromHour, month);
    const to = Math.min(toHour, next);
    const covered = (to - from) / HOUR_MS;
    const uncovered = (next - month) / HOUR_MS - covered;
    if (covered > uncovered) {
      if (from > month) push({ source: 'hours', sign: -1, from: month, to: from });
      push({ source: 'months', sign: 1, from: month, to: next });
      if (to < next) push({ source: 'hours', sign: -1, from: to, to: next });
    } else push({ source: 'hours', sign: 1, from, to });
  }
  return parts;
}
