/**
 * Amounts between Tollgate (decimal strings at the currency's ISO 4217 minor unit) and Stripe (an
 * integer `amount` in what Stripe calls the currency's smallest unit), exactly, never through a
 * float. Stripe's smallest unit is usually ISO's, with the exceptions its currencies page documents
 * (docs.stripe.com/currencies, "Zero-decimal", "Three-decimal" and "Special cases"):
 *
 * - Zero-decimal currencies go as whole units (JPY 500 → 500). MGA is one though ISO gives it two
 *   decimals, so an MGA amount with cents cannot be charged.
 * - ISK and UGX became zero-decimal, but Stripe keeps them two-decimal for backwards compatibility:
 *   ISK 5 → 500, and the amount must be a multiple of 100 (Stripe refuses others with
 *   `invalid_charge_amount_no_decimal_compatible`). Stripe's own mobile SDKs carry the same table.
 * - Three-decimal currencies (Stripe names BHD, JOD, KWD, OMR, TND; its iOS SDK adds IQD and LYD,
 *   which ISO also gives three decimals) go ×1000, and the last digit must be 0: KWD 5.120 → 5120.
 * - HUF and TWD are two-decimal for charges; their "divisible by 100" rule is for payouts, which
 *   Tollgate never makes.
 *
 * Refuse, not round: an amount Stripe cannot carry exactly (KWD 5.125, ISK 5.5, MGA 10.50) throws
 * StripeAmountError instead of being rounded here. Stripe's advice is that the integration rounds
 * (to the nearest ten for three-decimal currencies); the integration's right place for that is
 * where the invoice total is decided, so the invoice says what is charged and "paid" means paid in
 * full. `roundToStripeChargeable` is that rounding, half up like every other rounding of money
 * here, for a caller that chooses it before finalizing; converting never changes an amount.
 */
import { Decimal, isDecimalString, minorUnitDigits } from '@tollgate/pricing';

const ZERO_DECIMAL = new Set('BIF CLP DJF GNF JPY KMF KRW MGA PYG RWF VND VUV XAF XOF XPF'.split(' '));
const TWO_DECIMAL_WHOLE_UNITS = new Set(['ISK', 'UGX']);
const THREE_DECIMAL = new Set('BHD IQD JOD KWD LYD OMR TND'.split(' '));

export type StripeAmountProblem =
  /** Not plain decimal text ("1e3", " 5", ""). */
  | 'not_a_decimal'
  | 'negative'
  /** More decimals than Stripe's unit for the currency (USD 1.005, JPY 10.5). */
  | 'too_precise'
  /** A three-decimal currency whose amount does not end in 0 at Stripe (KWD 5.125). */
  | 'last_digit_not_zero'
  /** ISK, UGX: Stripe takes whole units only, though it writes them with two decimals (ISK 5.50). */
  | 'whole_units_only'
  | 'too_large';

/** An amount Stripe cannot carry exactly, and why: the caller's input is wrong for Stripe, never rounded. */
export class StripeAmountError extends Error {
  constructor(
    readonly problem: StripeAmountProblem,
    message: string,
  ) {
    super(message);
    this.name = 'StripeAmountError';
  }
}

interface StripeUnit {
  /** Digits after the decimal point of Stripe's integer `amount` (USD 2, JPY 0, ISK 2, KWD 3). */
  exponent: number;
  /** Digits after the decimal point Stripe can actually charge (KWD 2, ISK 0, USD 2). */
  chargeableDigits: number;
}

function stripeUnit(currency: string): StripeUnit {
  const code = currency.toUpperCase();
  const isoDigits = minorUnitDigits(code); // throws RangeError for an unknown code
  if (ZERO_DECIMAL.has(code)) return { exponent: 0, chargeableDigits: 0 };
  if (TWO_DECIMAL_WHOLE_UNITS.has(code)) return { exponent: 2, chargeableDigits: 0 };
  if (THREE_DECIMAL.has(code)) return { exponent: 3, chargeableDigits: 2 };
  return { exponent: isoDigits, chargeableDigits: isoDigits };
}

/** Digits after the decimal point of Stripe's integer `amount` for the currency (upper or lower case). */
export function stripeExponent(currency: string): number {
  return stripeUnit(currency).exponent;
}

/**
 * The decimal amount as Stripe's integer `amount`, exactly: "12.50" USD → 1250, "500" JPY → 500,
 * "5" ISK → 500, "5.120" KWD → 5120. Throws StripeAmountError when Stripe cannot charge it as it
 * is (see the top of this file), RangeError for an unknown currency.
 */
export function toStripeAmount(amount: string, currency: string): number {
  if (!isDecimalString(amount)) throw new StripeAmountError('not_a_decimal', `Not a decimal amount: ${JSON.stringify(amount)}`);
  const code = currency.toUpperCase();
  const { exponent, chargeableDigits } = stripeUnit(code);
  const value = new Decimal(amount);
  if (value.isNegative() && !value.isZero()) throw new StripeAmountError('negative', `A Stripe amount cannot be negative: ${amount} ${code}`);
  if (value.decimalPlaces() > chargeableDigits) {
    const problem: StripeAmountProblem =
      value.decimalPlaces() > exponent ? 'too_precise' : THREE_DECIMAL.has(code) ? 'last_digit_not_zero' : 'whole_units_only';
    const unit = chargeableDigits === 0 ? 'whole units' : `${chargeableDigits} decimals`;
    throw new StripeAmountError(problem, `Stripe charges ${code} in ${unit} only: ${amount} cannot be charged exactly`);
  }
  const minor = value.times(new Decimal(10).pow(exponent));
  if (minor.greaterThan(Number.MAX_SAFE_INTEGER)) throw new StripeAmountError('too_large', `Too large for a Stripe amount: ${amount} ${code}`);
  return minor.isZero() ? 0 : minor.toNumber(); // never -0
}

/**
 * Stripe's integer `amount` as a decimal amount with the currency's ISO decimals: 1250 USD →
 * "12.50", 500 ISK → "5", 5120 KWD → "5.120", 10 MGA → "10.00". A value finer than ISO's unit (an
 * old fractional ISK charge, 550 → "5.50") keeps every digit rather than lose one.
 */
export function fromStripeAmount(amount: number, currency: string): string {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new RangeError(`Not a Stripe amount: ${amount}`);
  const code = currency.toUpperCase();
  const { exponent } = stripeUnit(code);
  const value = new Decimal(amount).dividedBy(new Decimal(10).pow(exponent));
  const isoDigits = minorUnitDigits(code);
  return value.toFixed(value.decimalPlaces() > isoDigits ? exponent : isoDigits);
}

/**
 * The nearest amount Stripe can charge, half up (ties away from zero), written with the currency's
 * ISO decimals: "5.125" KWD → "5.130", "5.124" KWD → "5.120", "5.5" ISK → "6", "10.50" MGA →
 * "11.00"; already chargeable amounts come back unchanged in value. For the caller that decides to
 * round an invoice before it is finalized (see the top of this file); conversion never rounds.
 */
export function roundToStripeChargeable(amount: string, currency: string): string {
  if (!isDecimalString(amount)) throw new StripeAmountError('not_a_decimal', `Not a decimal amount: ${JSON.stringify(amount)}`);
  const code = currency.toUpperCase();
  const { chargeableDigits } = stripeUnit(code);
  const rounded = new Decimal(amount).toDecimalPlaces(chargeableDigits, Decimal.ROUND_HALF_UP);
  // A small negative value rounds to negative zero; an amount must never read "-0.00".
  return (rounded.isZero() ? new Decimal(0) : rounded).toFixed(minorUnitDigits(code));
}
