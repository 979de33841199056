import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { currencyCodes, fitsMinorUnit, isCurrencyCode, minorUnitDigits, roundToMinorUnit } from './currency.js';
import { Decimal } from './decimal.js';

describe('minorUnitDigits', () => {
  const cases: [string, number][] = [
    ['USD', 2],
    ['EUR', 2],
    ['GBP', 2],
    ['CHF', 2],
    ['IDR', 2],
    ['HUF', 2],
    ['XCG', 2],
    ['ZWG', 2],
    ['SLE', 2],
    ['VED', 2],
    ['VES', 2],
    ['USN', 2],
    ['MGA', 2],
    ['MRU', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['CLP', 0],
    ['ISK', 0],
    ['VND', 0],
    ['UGX', 0],
    ['XAF', 0],
    ['XOF', 0],
    ['XPF', 0],
    ['PYG', 0],
    ['UYI', 0],
    ['BHD', 3],
    ['KWD', 3],
    ['JOD', 3],
    ['OMR', 3],
    ['TND', 3],
    ['LYD', 3],
    ['IQD', 3],
    ['CLF', 4],
    ['UYW', 4],
  ];
  for (const [code, digits] of cases) {
    it(`${code} has ${digits} minor-unit digits`, () => assert.equal(minorUnitDigits(code), digits));
  }

  const refused: [code: string, why: string][] = [
    ['XAU', 'gold has no minor unit'],
    ['XAG', 'silver'],
    ['XPT', 'platinum'],
    ['XPD', 'palladium'],
    ['XDR', 'SDR'],
    ['XSU', 'sucre'],
    ['XUA', 'ADB unit of account'],
    ['XBA', 'bond market unit'],
    ['XTS', 'test code'],
    ['XXX', 'no currency'],
    ['HRK', 'withdrawn (euro)'],
    ['ANG', 'withdrawn (XCG)'],
    ['ZWL', 'withdrawn (ZWG)'],
    ['SLL', 'withdrawn (SLE)'],
    ['usd', 'lower case'],
    ['US', 'too short'],
    ['', 'empty'],
    ['constructor', 'prototype name'],
    ['__proto__', 'prototype name'],
  ];
  for (const [code, why] of refused) {
    it(`refuses ${JSON.stringify(code)}: ${why}`, () => {
      assert.equal(isCurrencyCode(code), false);
      assert.throws(() => minorUnitDigits(code), RangeError);
    });
  }

  it('accepts every code of the table and only upper-case three-letter codes', () => {
    assert.ok(currencyCodes.length > 150);
    for (const code of currencyCodes) {
      assert.match(code, /^[A-Z]{3}$/);
      assert.equal(isCurrencyCode(code), true, code);
    }
    assert.equal(new Set(currencyCodes).size, currencyCodes.length);
  });
});

describe('roundToMinorUnit (half up, ties away from zero)', () => {
  const cases: [value: string, currency: string, expected: string, rule: string][] = [
    ['12.5', 'USD', '12.50', 'pads to the minor unit'],
    ['12', 'USD', '12.00', 'pads an integer'],
    ['0', 'USD', '0.00', 'zero'],
    ['0.005', 'USD', '0.01', 'a tie rounds up'],
    ['0.0049999', 'USD', '0.00', 'below a tie rounds down'],
    ['0.015', 'USD', '0.02', 'a tie rounds up, not to even'],
    ['0.025', 'USD', '0.03', 'a tie rounds up, not to even (2)'],
    ['2.675', 'USD', '2.68', 'no binary floating point error'],
    ['-0.005', 'USD', '-0.01', 'a negative tie rounds away from zero'],
    ['-0.004', 'USD', '0.00', 'never negative zero'],
    ['-0.0001', 'JPY', '0', 'never negative zero with 0 digits'],
    ['1000', 'JPY', '1000', 'no decimals for a 0-digit currency'],
    ['1000.5', 'JPY', '1001', '0-digit tie rounds up'],
    ['1000.4999', 'JPY', '1000', '0-digit below a tie'],
    ['0.125', 'KWD', '0.125', '3-digit value kept'],
    ['0.1245', 'KWD', '0.125', '3-digit tie rounds up'],
    ['0.1', 'BHD', '0.100', '3-digit padding'],
    ['1.00005', 'CLF', '1.0001', '4-digit tie rounds up'],
    ['123456789012345.675', 'USD', '123456789012345.68', 'large amount keeps every digit'],
    ['0.000000000000000000000000000001', 'USD', '0.00', 'tiny amount'],
    ['1e3', 'USD', '1000.00', 'exponent input still prints plainly'],
  ];
  for (const [value, currency, expected, rule] of cases) {
    it(`${rule}: ${value} ${currency} -> ${expected}`, () => {
      assert.equal(roundToMinorUnit(value, currency), expected);
      assert.equal(roundToMinorUnit(new Decimal(value), currency), expected);
    });
  }

  it('throws RangeError for an unknown currency', () => {
    assert.throws(() => roundToMinorUnit('1', 'XAU'), RangeError);
  });
});

describe('fitsMinorUnit', () => {
  const cases: [value: string, currency: string, expected: boolean, rule: string][] = [
    ['12.50', 'USD', true, 'two decimals fit USD'],
    ['12.5', 'USD', true, 'one decimal fits USD'],
    ['12', 'USD', true, 'no decimals fit USD'],
    ['12.505', 'USD', false, 'three decimals do not fit USD'],
    ['12.500', 'USD', true, 'trailing zeros are ignored'],
    ['12.5000000', 'USD', true, 'many trailing zeros are ignored'],
    ['1000', 'JPY', true, 'integer fits JPY'],
    ['1000.00', 'JPY', true, 'zero decimals fit JPY'],
    ['1000.5', 'JPY', false, 'a decimal does not fit JPY'],
    ['0.125', 'KWD', true, 'three decimals fit KWD'],
    ['0.1255', 'KWD', false, 'four decimals do not fit KWD'],
    ['0.0001', 'CLF', true, 'four decimals fit CLF'],
    ['-1.25', 'USD', true, 'a negative amount is judged by its decimals'],
    ['1e-2', 'USD', false, 'exponent text is not plain decimal'],
    ['1.', 'USD', false, 'a trailing dot is not plain decimal'],
    ['.5', 'USD', false, 'a leading dot is not plain decimal'],
    [' 1', 'USD', false, 'spaces are not plain decimal'],
    ['', 'USD', false, 'empty text'],
  ];
  for (const [value, currency, expected, rule] of cases) {
    it(`${rule}: ${JSON.stringify(value)} ${currency} -> ${expected}`, () => {
      assert.equal(fitsMinorUnit(value, currency), expected);
    });
  }

  it('throws RangeError for an unknown currency', () => {
    assert.throws(() => fitsMinorUnit('1', 'XXX'), RangeError);
  });
});
