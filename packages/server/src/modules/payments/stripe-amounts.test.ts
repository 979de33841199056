import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fromStripeAmount, roundToStripeChargeable, StripeAmountError, stripeExponent, toStripeAmount, type StripeAmountProblem } from './stripe-amounts.js';

describe('toStripeAmount: a decimal amount as Stripe integer amount, exactly', () => {
  const cases: Array<[rule: string, amount: string, currency: string, stripe: number]> = [
    ['two-decimal: cents', '12.50', 'USD', 1250],
    ['two-decimal: whole units', '12', 'EUR', 1200],
    ['two-decimal: trailing zeros beyond the unit are not precision', '12.5000', 'USD', 1250],
    ['two-decimal: zero', '0', 'USD', 0],
    ['two-decimal: negative zero is zero', '-0', 'USD', 0],
    ['two-decimal: large amounts stay exact (no float on the way)', '90071992547409.91', 'USD', 9007199254740991],
    ['zero-decimal: JPY as it is', '500', 'JPY', 500],
    ['zero-decimal: KRW as it is', '15000', 'KRW', 15000],
    ['zero-decimal: MGA is zero-decimal at Stripe though ISO gives it two', '10.00', 'MGA', 10],
    ['special case: ISK is two-decimal at Stripe, whole units only', '5', 'ISK', 500],
    ['special case: UGX is two-decimal at Stripe, whole units only', '3800', 'UGX', 380000],
    ['special case: HUF charges take two decimals (the ÷100 rule is for payouts)', '1000.50', 'HUF', 100050],
    ['special case: TWD charges take two decimals (the ÷100 rule is for payouts)', '99.99', 'TWD', 9999],
    ['three-decimal: KWD ×1000 when the last digit is 0', '5.120', 'KWD', 5120],
    ['three-decimal: BHD', '1.5', 'BHD', 1500],
    ['three-decimal: JOD', '0.01', 'JOD', 10],
    ['three-decimal: OMR', '2', 'OMR', 2000],
    ['three-decimal: TND', '7.990', 'TND', 7990],
    ['lower-case currency codes (as Stripe writes them) work too', '12.50', 'usd', 1250],
  ];
  for (const [rule, amount, currency, stripe] of cases)
    it(`${rule}: ${amount} ${currency} → ${stripe}`, () => assert.equal(toStripeAmount(amount, currency), stripe));
});

describe('toStripeAmount refuses (never rounds) what Stripe cannot charge exactly', () => {
  const cases: Array<[rule: string, amount: string, currency: string, problem: StripeAmountProblem]> = [
    ['refuses three-decimal amounts whose last digit is not 0 (Stripe: round to the nearest ten)', '5.125', 'KWD', 'last_digit_not_zero'],
    ['refuses the same rule on every three-decimal currency', '0.001', 'BHD', 'last_digit_not_zero'],
    ['refuses fractional ISK (Stripe: multiples of 100 only)', '5.5', 'ISK', 'whole_units_only'],
    ['refuses fractional UGX (Stripe: multiples of 100 only)', '100.01', 'UGX', 'whole_units_only'],
    ['refuses cents on MGA (zero-decimal at Stripe)', '10.50', 'MGA', 'too_precise'],
    ['refuses a fraction of a yen', '10.5', 'JPY', 'too_precise'],
    ['refuses more decimals than the currency has', '1.005', 'USD', 'too_precise'],
    ['refuses negative amounts', '-1.00', 'USD', 'negative'],
    ['refuses exponent notation', '1e3', 'USD', 'not_a_decimal'],
    ['refuses padded text', ' 12.50', 'USD', 'not_a_decimal'],
    ['refuses the empty string', '', 'USD', 'not_a_decimal'],
    ['refuses amounts beyond a safe integer', '90071992547409.92', 'USD', 'too_large'],
  ];
  for (const [rule, amount, currency, problem] of cases) {
    it(`${rule}: ${JSON.stringify(amount)} ${currency}`, () =>
      assert.throws(
        () => toStripeAmount(amount, currency),
        (e: unknown) => e instanceof StripeAmountError && e.problem === problem,
      ));
  }
  it('an unknown currency is a RangeError, as in pricing', () => assert.throws(() => toStripeAmount('1', 'XYZ'), RangeError));
});

describe('fromStripeAmount: Stripe integer amount as the decimal amount, with ISO decimals', () => {
  const cases: Array<[rule: string, stripe: number, currency: string, amount: string]> = [
    ['two-decimal', 1250, 'usd', '12.50'],
    ['two-decimal zero', 0, 'EUR', '0.00'],
    ['zero-decimal JPY', 500, 'jpy', '500'],
    ['MGA: whole units at Stripe, two decimals in Tollgate', 10, 'MGA', '10.00'],
    ['ISK: two-decimal at Stripe, whole units in Tollgate', 500, 'isk', '5'],
    ['UGX: two-decimal at Stripe, whole units in Tollgate', 380000, 'UGX', '3800'],
    ['three-decimal KWD', 5120, 'kwd', '5.120'],
    ['an old fractional ISK charge keeps its digits rather than lose one', 550, 'ISK', '5.50'],
  ];
  for (const [rule, stripe, currency, amount] of cases)
    it(`${rule}: ${stripe} ${currency} → ${amount}`, () => assert.equal(fromStripeAmount(stripe, currency), amount));
  for (const bad of [1.5, -1, Number.MAX_SAFE_INTEGER + 1, Number.NaN]) {
    it(`refuses ${bad}`, () => assert.throws(() => fromStripeAmount(bad, 'USD'), RangeError));
  }
});

describe('roundToStripeChargeable: the rounding a caller may choose before finalizing (half up)', () => {
  const cases: Array<[rule: string, amount: string, currency: string, rounded: string]> = [
    ['three-decimal rounds to the nearest ten (down)', '5.124', 'KWD', '5.120'],
    ['three-decimal rounds to the nearest ten (a tie goes up)', '5.125', 'KWD', '5.130'],
    ['ISK to whole units', '5.5', 'ISK', '6'],
    ['MGA to whole units, written with two decimals', '10.50', 'MGA', '11.00'],
    ['an amount Stripe can charge keeps its value', '12.5', 'USD', '12.50'],
    ['no negative zero', '-0.001', 'KWD', '0.000'],
  ];
  for (const [rule, amount, currency, rounded] of cases)
    it(`${rule}: ${amount} ${currency} → ${rounded}`, () => assert.equal(roundToStripeChargeable(amount, currency), rounded));
});

describe('properties', () => {
  /** Any amount with up to three decimals, as text: 1234567 thousandths → "1234.567". */
  const thousandths = fc.bigInt({ min: 0n, max: 10n ** 12n }).map((n) => `${n / 1000n}.${String(n % 1000n).padStart(3, '0')}`);

  it('every chargeable amount survives the trip to Stripe and back', () => {
    fc.assert(
      fc.property(fc.constantFrom('USD', 'JPY', 'KWD', 'ISK', 'UGX', 'MGA', 'HUF', 'BHD'), thousandths, (currency, raw) => {
        const amount = roundToStripeChargeable(raw, currency);
        assert.equal(fromStripeAmount(toStripeAmount(amount, currency), currency), amount);
      }),
    );
  });
  it('a rounded amount always meets the special rules: ISK/UGX multiples of 100, three-decimal multiples of 10', () => {
    fc.assert(
      fc.property(fc.constantFrom('ISK', 'UGX', 'KWD', 'TND'), thousandths, (currency, raw) => {
        const stripe = toStripeAmount(roundToStripeChargeable(raw, currency), currency);
        assert.equal(stripe % (stripeExponent(currency) === 3 ? 10 : 100), 0);
      }),
    );
  });
});
