import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nthPeriod } from './periods.js';
import { changeKind, prorateChange, type ChangeKind, type ChangeKindOffering, type ProrateChangeInput } from './proration.js';

const ms = (iso: string) => Date.parse(iso);
const DAY = 86_400;

interface Row {
  rule: string;
  currency?: string;
  period: [string, string];
  changeAt: string | number;
  old: string | null;
  new: string | null;
  credit: string;
  debit: string;
  net: string;
  /** Unused seconds / period seconds. */
  unused: [number, number];
}

// April 2026 (30 days), March 2026 (31 days).
const APRIL: [string, string] = ['2026-04-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z'];
const MARCH: [string, string] = ['2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z'];
// A monthly subscription anchored on January 31 at noon: February is 28 days, then 31 to March 31.
const janAnchor = { start: ms('2026-01-31T12:00:00.000Z'), interval: 'MONTHLY', alignment: 'anniversary' } as const;
const iso = (t: number | null) => new Date(t!).toISOString();
const FEB_FROM_JAN31: [string, string] = [iso(nthPeriod(janAnchor, 0).start), iso(nthPeriod(janAnchor, 0).end)];
const MAR_FROM_JAN31: [string, string] = [iso(nthPeriod(janAnchor, 1).start), iso(nthPeriod(janAnchor, 1).end)];

const rows: Row[] = [
  // Mid-period.
  {
    rule: 'an upgrade half way: half the old price back, half the new one charged',
    period: APRIL,
    changeAt: '2026-04-16T00:00:00.000Z',
    old: '30.00',
    new: '60.00',
    credit: '15.00',
    debit: '30.00',
    net: '15.00',
    unused: [15 * DAY, 30 * DAY],
  },
  {
    rule: 'a downgrade half way nets a negative amount: owed to the customer',
    period: APRIL,
    changeAt: '2026-04-16T00:00:00.000Z',
    old: '60.00',
    new: '30.00',
    credit: '30.00',
    debit: '15.00',
    net: '-15.00',
    unused: [15 * DAY, 30 * DAY],
  },
  {
    rule: 'each line rounds down on its own and the net is their difference (3.34, where the exact 3.336… rounds to 3.33)',
    period: APRIL,
    changeAt: '2026-04-21T00:00:00.000Z',
    old: '10.00',
    new: '20.01',
    credit: '3.33',
    debit: '6.67',
    net: '3.34',
    unused: [10 * DAY, 30 * DAY],
  },
  {
    rule: 'a share exactly on a tie rounds down on both lines (never more than was paid, and the lines keep the prices’ order)',
    period: APRIL,
    changeAt: '2026-04-16T00:00:00.000Z',
    old: '0.05',
    new: '0.15',
    credit: '0.02',
    debit: '0.07',
    net: '0.05',
    unused: [15 * DAY, 30 * DAY],
  },
  {
    rule: 'a lateral change at the same price nets zero, never "-0.00"',
    period: APRIL,
    changeAt: '2026-04-21T00:00:00.000Z',
    old: '10.00',
    new: '10.00',
    credit: '3.33',
    debit: '3.33',
    net: '0.00',
    unused: [10 * DAY, 30 * DAY],
  },
  // The edges of the period, and the second.
  {
    rule: 'a change at the very start credits the whole old price and charges the whole new one',
    period: APRIL,
    changeAt: APRIL[0],
    old: '30.00',
    new: '45.50',
    credit: '30.00',
    debit: '45.50',
    net: '15.50',
    unused: [30 * DAY, 30 * DAY],
  },
  {
    rule: 'a change 999 ms into the period is still in its first second, which goes to the new offering',
    period: APRIL,
    changeAt: ms(APRIL[0]) + 999,
    old: '30.00',
    new: '45.50',
    credit: '30.00',
    debit: '45.50',
    net: '15.50',
    unused: [30 * DAY, 30 * DAY],
  },
  {
    rule: 'a change one second in has one second used',
    period: APRIL,
    changeAt: ms(APRIL[0]) + 1000,
    old: '2592000',
    new: '0',
    currency: 'JPY',
    credit: '2591999',
    debit: '0',
    net: '-2591999',
    unused: [30 * DAY - 1, 30 * DAY],
  },
  {
    rule: 'a change in the last second leaves that one second unused',
    period: APRIL,
    changeAt: ms(APRIL[1]) - 1,
    old: '2592000',
    new: '5184000',
    currency: 'JPY',
    credit: '1',
    debit: '2',
    net: '1',
    unused: [1, 30 * DAY],
  },
  {
    rule: 'a change at the very end prorates nothing (what a PERIOD_END change comes to)',
    period: APRIL,
    changeAt: APRIL[1],
    old: '30.00',
    new: '60.00',
    credit: '0.00',
    debit: '0.00',
    net: '0.00',
    unused: [0, 30 * DAY],
  },
  // Month ends and leap years: the period's own length in seconds, whatever the month.
  {
    rule: 'a January 31 anchor: the period to February 28 is 28 days, half of it 14',
    period: FEB_FROM_JAN31,
    changeAt: '2026-02-14T12:00:00.000Z',
    old: '10.00',
    new: '25.00',
    credit: '5.00',
    debit: '12.50',
    net: '7.50',
    unused: [14 * DAY, 28 * DAY],
  },
  {
    rule: 'the next period of that anchor runs from February 28 to March 31: 31 days',
    period: MAR_FROM_JAN31,
    changeAt: '2026-03-21T12:00:00.000Z',
    old: '31.00',
    new: '10.00',
    credit: '10.00',
    debit: '3.22',
    net: '-6.78',
    unused: [10 * DAY, 31 * DAY],
  },
  {
    rule: 'February of a leap year has 29 days: its last day is 1/29',
    period: ['2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
    changeAt: '2028-02-29T00:00:00.000Z',
    old: '29.00',
    new: '58.00',
    credit: '1.00',
    debit: '2.00',
    net: '1.00',
    unused: [DAY, 29 * DAY],
  },
  {
    rule: 'February of a common year has 28: its last day is 1/28',
    period: ['2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z'],
    changeAt: '2026-02-28T00:00:00.000Z',
    old: '28.00',
    new: '56.00',
    credit: '1.00',
    debit: '2.00',
    net: '1.00',
    unused: [DAY, 28 * DAY],
  },
  {
    rule: 'a leap year has 366 days: its last day is 1/366 of an annual price',
    period: ['2028-01-01T00:00:00.000Z', '2029-01-01T00:00:00.000Z'],
    changeAt: '2028-12-31T00:00:00.000Z',
    old: '366.00',
    new: '732.00',
    credit: '1.00',
    debit: '2.00',
    net: '1.00',
    unused: [DAY, 366 * DAY],
  },
  // Minor units.
  {
    rule: 'JPY has no decimals: 11/31 of 1000 is 354.8 (354) and of 3000 is 1064.5 (1064)',
    currency: 'JPY',
    period: MARCH,
    changeAt: '2026-03-21T00:00:00.000Z',
    old: '1000',
    new: '3000',
    credit: '354',
    debit: '1064',
    net: '710',
    unused: [11 * DAY, 31 * DAY],
  },
  {
    rule: 'KWD has three decimals: 11/31 of 12.345 is 4.3804… (4.380) and of 20.000 is 7.0967… (7.096)',
    currency: 'KWD',
    period: MARCH,
    changeAt: '2026-03-21T00:00:00.000Z',
    old: '12.345',
    new: '20.000',
    credit: '4.380',
    debit: '7.096',
    net: '2.716',
    unused: [11 * DAY, 31 * DAY],
  },
  {
    rule: 'the new price may carry more decimals than the currency (a prorated partial period): the line rounds once',
    period: APRIL,
    changeAt: '2026-04-16T00:00:00.000Z',
    old: '10.00',
    new: '13.3333333333',
    credit: '5.00',
    debit: '6.66',
    net: '1.66',
    unused: [15 * DAY, 30 * DAY],
  },
  // A calendar-aligned first period (April 11 to May 1 of a monthly price of 30.00): its own
  // bounds, the amount it was invoiced (20.00) and the new price prorated the same way (40).
  {
    rule: 'a partial first period prorates over its own seconds and the amount it was invoiced',
    period: ['2026-04-11T00:00:00.000Z', '2026-05-01T00:00:00.000Z'],
    changeAt: '2026-04-21T00:00:00.000Z',
    old: '20.00',
    new: '40',
    credit: '10.00',
    debit: '20.00',
    net: '10.00',
    unused: [10 * DAY, 20 * DAY],
  },
  // Zero and missing entry prices.
  {
    rule: 'a zero old price (a free plan, or a trial that waived it) credits nothing',
    period: APRIL,
    changeAt: '2026-04-16T00:00:00.000Z',
    old: '0',
    new: '10.00',
    credit: '0.00',
    debit: '5.00',
    net: '5.00',
    unused: [15 * DAY, 30 * DAY],
  },
  {
    rule: 'a usage-only old offering (no entry price) credits nothing',
    period: APRIL,
    changeAt: '2026-04-16T00:00:00.000Z',
    old: null,
    new: '10.00',
    credit: '0.00',
    debit: '5.00',
    net: '5.00',
    unused: [15 * DAY, 30 * DAY],
  },
  {
    rule: 'a usage-only new offering, or a cancellation, charges nothing: the net is the credit, negative',
    period: APRIL,
    changeAt: '2026-04-16T00:00:00.000Z',
    old: '10.00',
    new: null,
    credit: '5.00',
    debit: '0.00',
    net: '-5.00',
    unused: [15 * DAY, 30 * DAY],
  },
  {
    rule: 'no entry price on either side: all zero',
    period: APRIL,
    changeAt: '2026-04-16T00:00:00.000Z',
    old: null,
    new: '0.00',
    credit: '0.00',
    debit: '0.00',
    net: '0.00',
    unused: [15 * DAY, 30 * DAY],
  },
];

const input = (row: Pick<Row, 'currency' | 'period' | 'changeAt' | 'old' | 'new'>): ProrateChangeInput => ({
  currency: row.currency ?? 'USD',
  periodStart: ms(row.period[0]),
  periodEnd: ms(row.period[1]),
  changeAt: typeof row.changeAt === 'number' ? row.changeAt : ms(row.changeAt),
  oldEntryPrice: row.old,
  newEntryPrice: row.new,
});

describe('prorateChange: by the second, each line rounded on its own, net = debit − credit', () => {
  for (const row of rows) {
    it(`${row.rule}: ${row.old ?? 'none'} -> ${row.new ?? 'none'} ${row.currency ?? 'USD'} gives ${row.credit} / ${row.debit} / ${row.net}`, () => {
      assert.deepEqual(prorateChange(input(row)), {
        credit: row.credit,
        debit: row.debit,
        net: row.net,
        unusedFraction: { numerator: row.unused[0], denominator: row.unused[1] },
      });
    });
  }
});

describe('prorateChange refuses what it cannot prorate, naming the field', () => {
  const ok = { period: APRIL, changeAt: '2026-04-16T00:00:00.000Z', old: '30.00', new: '60.00' } as const;
  const cases: Array<[string, ProrateChangeInput, RegExp]> = [
    ['a change before the period', input({ ...ok, changeAt: ms(APRIL[0]) - 1 }), /changeAt 2026-03-31T23:59:59.999Z is outside the current period/],
    ['a change after the period', input({ ...ok, changeAt: ms(APRIL[1]) + 1 }), /changeAt 2026-05-01T00:00:00.001Z is outside the current period/],
    ['a period that ends before it starts', input({ ...ok, period: [APRIL[1], APRIL[0]] }), /must last at least a second/],
    ['a period shorter than a second', input({ ...ok, period: [APRIL[0], '2026-04-01T00:00:00.999Z'], changeAt: APRIL[0] }), /must last at least a second/],
    ['an instant that is not whole milliseconds', { ...input(ok), changeAt: 1.5 }, /changeAt must be epoch milliseconds/],
    ['an instant out of range', { ...input(ok), periodEnd: Number.MAX_SAFE_INTEGER }, /periodEnd must be epoch milliseconds/],
    ['an unknown currency', { ...input(ok), currency: 'XAU' }, /XAU/],
    ['a negative price', input({ ...ok, old: '-1.00' }), /oldEntryPrice must be a non-negative decimal string/],
    ['exponent notation', input({ ...ok, new: '1e3' }), /newEntryPrice must be a non-negative decimal string/],
    [
      'an old price that was never invoiced (more decimals than JPY has)',
      { ...input(ok), currency: 'JPY', oldEntryPrice: '10.5' },
      /oldEntryPrice .* fits JPY/,
    ],
  ];
  for (const [what, bad, message] of cases) {
    it(`RangeError for ${what}`, () =>
      assert.throws(
        () => prorateChange(bad),
        (e: unknown) => e instanceof RangeError && message.test(e.message),
      ));
  }
});

describe('changeKind: entry prices compared per month, exactly', () => {
  const o = (entryPrice: string | null, billingPeriod: ChangeKindOffering['billingPeriod'] = 'MONTHLY', currency = 'USD'): ChangeKindOffering => ({
    currency,
    entryPrice,
    billingPeriod,
  });
  const cases: Array<[string, ChangeKindOffering, ChangeKindOffering, ChangeKind | null]> = [
    ['dearer a month is an UPGRADE', o('10.00'), o('20.00'), 'UPGRADE'],
    ['cheaper a month is a DOWNGRADE', o('20.00'), o('10.00'), 'DOWNGRADE'],
    ['the same price is LATERAL, however written', o('10'), o('10.000'), 'LATERAL'],
    ['ANNUAL 120.00 and MONTHLY 10.00 are the same a month: LATERAL', o('120.00', 'ANNUAL'), o('10.00'), 'LATERAL'],
    ['MONTHLY 10.00 and ANNUAL 120.00: LATERAL the other way too', o('10.00'), o('120.00', 'ANNUAL'), 'LATERAL'],
    ['QUARTERLY 30.00 and MONTHLY 10.00: LATERAL', o('30.00', 'QUARTERLY'), o('10.00'), 'LATERAL'],
    ['ANNUAL 100.00 (8.33 a month) to MONTHLY 10.00 is an UPGRADE', o('100.00', 'ANNUAL'), o('10.00'), 'UPGRADE'],
    ['QUARTERLY 30.00 (10 a month) to ANNUAL 110.00 (9.17 a month) is a DOWNGRADE', o('30.00', 'QUARTERLY'), o('110.00', 'ANNUAL'), 'DOWNGRADE'],
    ['ANNUAL 120.01 to MONTHLY 10.00 is a DOWNGRADE by a twelfth of a cent', o('120.01', 'ANNUAL'), o('10.00'), 'DOWNGRADE'],
    // Dividing 10 by 3 to 40 digits gives exactly this monthly price; cross-multiplying does not.
    ['QUARTERLY 10 to MONTHLY 3.333… (40 digits) is a DOWNGRADE, not LATERAL by rounding', o('10', 'QUARTERLY'), o('3.' + '3'.repeat(39)), 'DOWNGRADE'],
    ['usage-only (no entry price, 0 a month) to a priced offering is an UPGRADE', o(null), o('10.00'), 'UPGRADE'],
    ['a priced offering to usage-only is a DOWNGRADE', o('10.00', 'ANNUAL'), o(null), 'DOWNGRADE'],
    ['usage-only to usage-only is LATERAL whatever the usage rates', o(null), o(null, 'QUARTERLY'), 'LATERAL'],
    ['usage-only and a free entry price are the same: LATERAL', o(null), o('0.00', 'ANNUAL'), 'LATERAL'],
    ['from a ONE_TIME offering there is no kind', o('99.00', 'ONE_TIME'), o('10.00'), null],
    ['to a ONE_TIME offering there is no kind', o('10.00'), o('99.00', 'ONE_TIME'), null],
    ['a usage-only ONE_TIME offering has no kind either', o(null, 'ONE_TIME'), o(null), null],
    ['between currencies there is no kind', o('10.00'), o('20.00', 'MONTHLY', 'EUR'), null],
    ['currency codes compare without case', o('10.00', 'MONTHLY', 'usd'), o('20.00'), 'UPGRADE'],
  ];
  for (const [rule, from, to, kind] of cases) {
    it(`${rule}`, () => assert.equal(changeKind(from, to), kind));
  }

  it('a price that is not a non-negative decimal string is refused, naming which side', () => {
    assert.throws(() => changeKind(o('ten'), o('10')), /from\.entryPrice must be a non-negative decimal string/);
    assert.throws(() => changeKind(o('10'), o('-1')), /to\.entryPrice must be a non-negative decimal string/);
  });
});
