const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAY_MS = 86_400_000;
const [DASH, COLON, DOT, PLUS, T, Z] = ['-', ':', '.', '+', 'T', 'Z'].map((c) => c.charCodeAt(0)) as [number, number, number, number, number, number];

/** Two ASCII digits at i as a number, or -1. */
function twoDigits(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48;
  const b = s.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/**
 * Pure: epoch ms of a strict ISO 8601 timestamp with a zone, or null. The accepted form is
 * YYYY-MM-DDTHH:MM[:SS[.fraction of 1-9 digits]] followed by Z or ±HH:MM; fractions past the
 * millisecond are cut. Date.parse alone would take Feb 30 (and roll it into March), so the
 * calendar is checked here. It reads characters instead of running a regular expression and a
 * Date per event: this runs a thousand times for every batch.
 */
export function parseIsoTimestamp(text: string): number | null {
  const n = text.length;
  if (n < 17 || n > 35) return null;
  const century = twoDigits(text, 0);
  const yy = twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  if (century < 0 || yy < 0 || month < 0 || day < 0 || hour < 0 || minute < 0) return null;
  if (text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH || text.charCodeAt(10) !== T || text.charCodeAt(13) !== COLON) return null;
  let i = 16;
  let second = 0;
  let ms = 0;
  if (text.charCodeAt(i) === COLON) {
    second = twoDigits(text, i + 1);
    if (second < 0) return null;
    i += 3;
    if (text.charCodeAt(i) === DOT) {
      let digits = 0;
      for (i += 1; i < n; i++) {
        const c = text.charCodeAt(i) - 48;
        if (c < 0 || c > 9) break;
        if (digits < 3) ms = ms * 10 + c;
        digits += 1;
      }
      if (digits === 0 || digits > 9) return null;
      for (let k = digits; k < 3; k++) ms *= 10;
    }
  }
  let offsetMs = 0;
  const zone = text.charCodeAt(i);
  if (zone === Z) {
    if (i + 1 !== n) return null;
  } else if (zone === PLUS || zone === DASH) {
    if (i + 6 !== n || text.charCodeAt(i + 3) !== COLON) return null;
    const oh = twoDigits(text, i + 1);
    const om = twoDigits(text, i + 4);
    if (oh < 0 || om < 0 || oh > 23 || om > 59) return null;
    offsetMs = (oh * 60 + om) * 60_000 * (zone === DASH ? -1 : 1);
  } else return null;
  const year = century * 100 + yy;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  if (day > (month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!)) return null;
  return daysFromCivil(year, month, day) * DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000 + ms - offsetMs;
}
