import { Decimal as BaseDecimal } from 'decimal.js';

/**
 * The one decimal type of pricing: 40 significant digits, half-up. decimal.js runs unchanged in
 * Node and in browsers. Amounts and prices never pass through a JS number.
 */
export const Decimal = BaseDecimal.clone({ precision: 40, rounding: BaseDecimal.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 });
export type Decimal = InstanceType<typeof Decimal>;

const DECIMAL_PATTERN = /^-?(0|[1-9]\d*)(\.\d+)?$/;

/** Plain decimal text such as "0", "12.5", "-3.0001": no exponent, no sign on zero, no spaces. */
export function isDecimalString(value: string): boolean {
  return DECIMAL_PATTERN.test(value);
}

/** Canonical text: no exponent, no trailing zeros. */
export function toDecimalText(value: Decimal): string {
  return value.toFixed();
}
