import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatAmount, formatCount, formatExpiry, formatInstant, formatLineRate, formatPeriod, formatSignedAmount, formatUsage } from '../src/format.js';

describe('formatAmount: decimal text from the API, in its currency, never through a float', () => {
  const cases: Array<[string | null, string, string]> = [
    ['1234.5', 'USD', '$1,234.50'],
    ['0', 'USD', '$0.00'],
    // A negative amount (a discount, a credit) takes the minus sign, U+2212, as the widget writes it.
    ['-5', 'USD', '\u2212$5.00'],
    ['-0.0025', 'USD', '\u2212$0.0025'],
    ['-1200', 'JPY', '\u2212¥1,200'],
    ['-1.25', 'KWD', '\u2212KWD\u00a01.250'],
    ['0.1', 'USD', '$0.10'],
    // Past a float's precision: every digit is kept.
    ['90071992547409.93', 'USD', '$90,071,992,547,409.93'],
    ['0.30000000000000004', 'USD', '$0.30000000000000004'],
    // More digits than the minor unit are shown, not rounded away.
    ['0.0025', 'USD', '$0.0025'],
    ['1200', 'JPY', '¥1,200'],
    ['1.25', 'KWD', 'KWD\u00a01.250'],
    ['12.5', 'EUR', '€12.50'],
    ['12.5', 'CHF', 'CHF\u00a012.50'],
    [null, 'USD', '—'],
    ['', 'USD', '—'],
    ['1e3', 'USD', '1e3 USD'],
    ['12.50', 'ZZZ', '12.50 ZZZ'],
  ];
  for (const [amount, currency, want] of cases) it(`${String(amount)} ${currency} -> ${want}`, () => assert.equal(formatAmount(amount, currency), want));
});

describe('formatInstant and formatCount', () => {
  const instants: Array<[string | null, string]> = [
    ['2026-04-16T09:30:12.345Z', '2026-04-16 09:30 UTC'],
    ['2026-04-16T09:30Z', '2026-04-16 09:30 UTC'],
    ['2026-04-16T09:30:12+02:00', '2026-04-16T09:30:12+02:00'],
    [null, '—'],
  ];
  for (const [iso, want] of instants) it(`${String(iso)} -> ${want}`, () => assert.equal(formatInstant(iso), want));
  it('a full first page with more behind it reads 100+', () => assert.equal(formatCount(100, true), '100+'));
  it('a page with nothing behind it is the count', () => assert.equal(formatCount(37, false), '37'));
});

describe('formatUsage: a usage quantity, every digit kept', () => {
  const cases: Array<[string | null, string]> = [
    ['1200', '1,200'],
    ['0', '0'],
    ['2.50', '2.50'],
    ['1234567.125', '1,234,567.125'],
    ['9007199254740993', '9,007,199,254,740,993'],
    ['1e3', '1e3'],
    [null, '—'],
  ];
  for (const [q, want] of cases) it(`${String(q)} -> ${want}`, () => assert.equal(formatUsage(q), want));
});

describe('formatLineRate and formatPeriod: an invoice line and period', () => {
  const rates: Array<[string, string | null, string, string]> = [
    ['usage', '0.0025', 'USD', '$0.0025'],
    ['entry_price', '49', 'USD', '$49.00'],
    ['usage', '3', 'JPY', '¥3'],
    ['discount', '20', 'USD', '20%'],
    ['discount', '12.5', 'USD', '12.5%'],
    ['usage', null, 'USD', '—'],
    ['minimum_fee', 'x', 'USD', 'x USD'],
  ];
  for (const [type, rate, currency, want] of rates)
    it(`${type} ${String(rate)} ${currency} -> ${want}`, () => assert.equal(formatLineRate(type, rate, currency), want));
  it('a period, its end as sent', () =>
    assert.equal(formatPeriod('2026-04-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z'), '2026-04-01 00:00 UTC to 2026-05-01 00:00 UTC'));
});

describe('formatSignedAmount and formatExpiry: a credit ledger entry and a grant', () => {
  const signed: Array<[string | null, string, string]> = [
    ['50.00', 'USD', '+$50.00'],
    ['-12.50', 'USD', '\u2212$12.50'],
    ['1200', 'JPY', '+¥1,200'],
    ['0.0025', 'USD', '+$0.0025'],
    ['0.00', 'USD', '$0.00'],
    [null, 'USD', '—'],
    ['1e3', 'USD', '1e3 USD'],
  ];
  for (const [amount, currency, want] of signed) it(`${String(amount)} ${currency} -> ${want}`, () => assert.equal(formatSignedAmount(amount, currency), want));
  const expiries: Array<[string | null, string]> = [
    [null, 'never'],
    ['2099-01-01T00:00:00.000Z', '2099-01-01 00:00 UTC'],
  ];
  for (const [iso, want] of expiries) it(`${String(iso)} -> ${want}`, () => assert.equal(formatExpiry(iso), want));
});
