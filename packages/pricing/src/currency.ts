/**
 * ISO 4217 currencies as pricing accepts them, and the one rounding rule of money: half up
 * (ties away from zero) to the currency's minor unit.
 *
 * The table is ISO 4217 List One (current currency and funds codes) with its "minor unit"
 * column, as of the amendments through 2025: XCG replaced ANG (2025-03-31), ZWG replaced ZWL
 * (2024), SLE replaced SLL, and the euro replaced HRK (2023); the replaced codes are gone.
 * BGN is still listed while Bulgaria's 2026 euro changeover completes; drop it when ISO
 * withdraws it. CUC stays because ISO still lists it.
 *
 * Codes whose minor unit ISO gives as "N.A." are left out on purpose: the precious metals (XAU,
 * XAG, XPT, XPD), the IMF and regional units of account (XDR, XSU, XUA, XBA, XBB, XBC, XBD), the
 * test code XTS and "no currency" XXX. With no minor unit there is no amount to round a line to,
 * and none of them is money a customer pays an invoice in, so a plan priced in one could never
 * be billed.
 */
import { Decimal, isDecimalString } from './decimal.js';

// Grouped by digits so a wrong digit count is visible at a glance and in review diffs.
const CODES_BY_MINOR_UNIT: Readonly<Record<number, string>> = {
  0: 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF',
  2:
    'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN ' +
    'BZD CAD CDF CHE CHF CHW CNY COP COU CRC CUC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD ' +
    'FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD ' +
    'KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD ' +
    'NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP ' +
    'SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED ' +
    'VES WST XCD XCG YER ZAR ZMW ZWG',
  3: 'BHD IQD JOD KWD LYD OMR TND',
  4: 'CLF UYW',
};

// A Map, not an object, so that "constructor" or "__proto__" is never mistaken for a code.
const MINOR_UNIT_DIGITS: ReadonlyMap<string, number> = new Map(
  Object.entries(CODES_BY_MINOR_UNIT).flatMap(([digits, codes]) => codes.split(' ').map((code) => [code, Number(digits)] as const)),
);

/** Every accepted code, sorted. */
export const currencyCodes: readonly string[] = Object.freeze([...MINOR_UNIT_DIGITS.keys()].sort());

/** True for an active ISO 4217 code that has a minor unit (exact, upper case). */
export function isCurrencyCode(code: string): boolean {
  return MINOR_UNIT_DIGITS.has(code);
}

/** Digits after the decimal point of the currency's minor unit (USD 2, JPY 0, KWD 3, CLF 4). */
export function minorUnitDigits(code: string): number {
  const digits = MINOR_UNIT_DIGITS.get(code);
  if (digits === undefined) throw new RangeError(`Unknown or unpriceable currency code: ${JSON.stringify(code)}`);
  return digits;
}

/**
 * The value rounded half up (ties away from zero) to the currency's minor unit, as text with
 * exactly that many decimals: "12.50", "1000" (JPY), "0.125" (KWD).
 */
export function roundToMinorUnit(value: Decimal | string, currency: string): string {
  const digits = minorUnitDigits(currency);
  const rounded = new Decimal(value).toDecimalPlaces(digits, Decimal.ROUND_HALF_UP);
  // A small negative value rounds to negative zero; an invoice must never show "-0.00".
  return (rounded.isZero() ? new Decimal(0) : rounded).toFixed(digits);
}

/**
 * True when the decimal text needs no more decimals than the currency's minor unit, ignoring
 * trailing zeros: "10.00" fits JPY, "10.50" does not. False for text that is not a plain
 * decimal. Throws RangeError for an unknown currency, like minorUnitDigits.
 */
export function fitsMinorUnit(value: string, currency: string): boolean {
  const digits = minorUnitDigits(currency);
  if (!isDecimalString(value)) return false;
  const fraction = value.split('.')[1] ?? '';
  return fraction.replace(/0+$/, '').length <= digits;
}
