/**
 * Instants to the second, for what happens minutes or hours apart (a rotated key's grace, a test
 * clock's time), and the steps a test clock moves by. UTC only, like formatInstant, and pure.
 */
const ISO = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2})?)(?:\.\d+)?Z$/;

/** "2026-01-15T12:05:00.000Z" as "12:05:00 UTC on 2026-01-15": the time first, since it is what changes. */
export function formatTimeOfDay(iso: string): string {
  const m = ISO.exec(iso);
  if (!m) return iso;
  const time = (m[2] as string).length === 5 ? `${m[2]}:00` : m[2];
  return `${time} UTC on ${m[1]}`;
}

/** "2026-01-15T12:05:00.000Z" as "2026-01-15 12:05:00 UTC". */
export function formatSeconds(iso: string): string {
  const m = ISO.exec(iso);
  if (!m) return iso;
  return `${m[1]} ${(m[2] as string).length === 5 ? `${m[2]}:00` : m[2]} UTC`;
}

export type ClockStep = 'hour' | 'day' | 'month';

/**
 * The instant one step after `iso`. A month is a calendar month in UTC, kept within the month
 * (January 31 plus a month is February 28 or 29, not March 3), as a monthly renewal counts it.
 * Null for text that is not an instant.
 */
export function stepAfter(iso: string, step: ClockStep): string | null {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return null;
  if (step === 'hour') return new Date(ms + 3_600_000).toISOString();
  if (step === 'day') return new Date(ms + 86_400_000).toISOString();
  const d = new Date(ms);
  const lastDayOfNext = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 2, 0)).getUTCDate();
  const next = new Date(ms);
  next.setUTCDate(1);
  next.setUTCMonth(d.getUTCMonth() + 1);
  next.setUTCDate(Math.min(d.getUTCDate(), lastDayOfNext));
  return next.toISOString();
}
