/**
 * How the console words values from the API. Money arrives as decimal text ("1234.50") and is
 * shown with @tollgate/pricing's display rules, the same digits the pricing page and the widget
 * show: never through a JS number. Pure.
 */
import { formatMoney, formatQuantity, isCurrencyCode, isDecimalString, minorUnitDigits } from '@tollgate/pricing';

/** Shown for a value the API left null. */
export const NONE = '—';

const fractionDigits = (amount: string) => {
  const dot = amount.indexOf('.');
  return dot === -1 ? 0 : amount.length - dot - 1;
};

/**
 * An amount in its currency: at least the currency's minor unit ("$5.00", "¥500", "KWD 1.250"),
 * and every digit the API sent beyond it ("$0.0025"), so the console never rounds what it shows.
 * A negative amount (a discount, a credit) takes the minus sign U+2212 ("−$5.00"), as the widget
 * writes a credit, not pricing's ASCII hyphen. Text that is not a decimal, or a code pricing does
 * not know, is shown as sent, never guessed at.
 */
export function formatAmount(amount: string | null | undefined, currency: string): string {
  if (amount === null || amount === undefined || amount === '') return NONE;
  if (!isDecimalString(amount) || !isCurrencyCode(currency)) return `${amount} ${currency}`;
  const min = minorUnitDigits(currency);
  const text = formatMoney(amount, currency, { minimumFractionDigits: min, maximumFractionDigits: Math.max(min, fractionDigits(amount)) });
  return text.startsWith('-') ? `\u2212${text.slice(1)}` : text;
}

/** A usage quantity as pricing writes it ("1,200", "2.5"); text that is not a decimal is shown as sent. */
export function formatUsage(quantity: string | null | undefined): string {
  if (quantity === null || quantity === undefined || quantity === '') return NONE;
  return isDecimalString(quantity) ? formatQuantity(quantity) : quantity;
}

/** An API instant ("2026-04-16T09:30:00.000Z") as "2026-04-16 09:30 UTC": one zone for every operator, no locale guessing. */
export function formatInstant(iso: string | null | undefined): string {
  if (iso === null || iso === undefined || iso === '') return NONE;
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?Z$/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

/** A count from a first page of a list: "37", or "100+" when the page was full and more exist. */
export function formatCount(items: number, hasMore: boolean): string {
  return hasMore ? `${items}+` : String(items);
}

/** A period from the API's instants, its end exclusive as the API says: "2026-04-01 00:00 UTC to 2026-05-01 00:00 UTC". */
export function formatPeriod(start: string | null | undefined, end: string | null | undefined): string {
  return `${formatInstant(start)} to ${formatInstant(end)}`;
}

/**
 * An invoice line's rate: a discount line's rate is the percentage off ("20%"), any other line's
 * is money per unit in the invoice's currency, every digit kept ("$0.0025").
 */
export function formatLineRate(type: string, rate: string | null, currency: string): string {
  if (rate === null || rate === '') return NONE;
  if (type === 'discount') return isDecimalString(rate) ? `${formatQuantity(rate)}%` : rate;
  return formatAmount(rate, currency);
}

/**
 * A signed change to a balance (a credit ledger entry): "+$5.00" when it adds, "−$5.00" when it
 * takes away (formatAmount's minus sign), "$0.00" for none. The sign is read from the text.
 */
export function formatSignedAmount(amount: string | null | undefined, currency: string): string {
  const text = formatAmount(amount, currency);
  return amount && isDecimalString(amount) && !amount.startsWith('-') && /[1-9]/.test(amount) ? `+${text}` : text;
}

/** When something stops (a credit grant's expiresAt): "never" for null, else as formatInstant words it. */
export function formatExpiry(iso: string | null | undefined): string {
  return iso === null || iso === undefined || iso === '' ? 'never' : formatInstant(iso);
}
