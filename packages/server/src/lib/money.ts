import { Decimal as BaseDecimal } from 'decimal.js';

/**
 * Money is a decimal string in the API and in storage, and decimal.js in code: never a JS number.
 * Rounding to the currency's minor unit happens once, where an amount is final.
 */
const D = BaseDecimal.clone({ precision: 40, rounding: BaseDecimal.ROUND_HALF_UP });

export type Money = InstanceType<typeof D>;

const DECIMAL_PATTERN = /^-?(0|[1-9]\d*)(\.\d+)?$/;

export function isDecimalString(value: string): boolean {
  return DECIMAL_PATTERN.test(value);
}

export function money(value: string): Money {
  if (!isDecimalString(value)) throw new RangeError(`'${value}' is not a decimal string`);
  return new D(value);
}

/** Canonical text for storage and the API: no exponent, no trailing zeros beyond the value. */
export function formatDecimal(value: Money): string {
  return value.toFixed();
}

/** Round half up (away from zero for ties) to a number of minor-unit digits. */
export function roundTo(value: Money, digits: number): Money {
  return value.toDecimalPlaces(digits, D.ROUND_HALF_UP);
}

export { D as Decimal };

/** Exact sum of two decimal texts, as canonical decimal text. */
export function decimalAdd(a: string, b: string): string {
  // Usage sums are mostly whole numbers: below 1e15 each, their sum is exact in a double, and
  // this runs once per aggregate row on the ingestion path.
  if (SMALL_INTEGER.test(a) && SMALL_INTEGER.test(b)) return String(Number(a) + Number(b));
  return new D(a).plus(b).toFixed();
}
const SMALL_INTEGER = /^-?\d{1,15}$/;

/**
 * A finite JS number as exact decimal text. Usage quantities arrive as JSON numbers; their
 * shortest round-trip form is what the client sent, and exponents are expanded.
 */
export function numberToDecimal(n: number): string {
  const s = String(n);
  return s.includes('e') ? new D(s).toFixed() : s;
}

/**
 * An exact running sum of decimal texts. Whole quantities, the common case, add as numbers while
 * the sum stays a safe integer; anything else switches to decimal for good, so nothing rounds.
 */
export class ExactSum {
  private int = 0;
  private dec: Money | null = null;

  add(text: string): void {
    if (this.dec === null) {
      // By the text: Number('1.0000000000000001') is 1.
      const n = SMALL_INTEGER.test(text) ? Number(text) : NaN;
      if (Number.isSafeInteger(this.int + n)) {
        this.int += n;
        return;
      }
      this.dec = new D(this.int);
    }
    this.dec = this.dec.plus(text);
  }

  text(): string {
    return this.dec === null ? String(this.int) : this.dec.toFixed();
  }
}
