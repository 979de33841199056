import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { barFractions, daysFrom, maxValue, periodOf, seriesByKey, sumDecimals } from '../src/chart.js';

describe('maxValue and barFractions: bar heights from decimal text, compared exactly', () => {
  const cases: Array<[string[], string | null, number[]]> = [
    [['1', '2', '4'], '4', [0.25, 0.5, 1]],
    [['0', '0'], '0', [0, 0]],
    [[], null, []],
    // Beyond a float's precision the larger one still wins, and keeps its text.
    [['9007199254740993', '9007199254740992'], '9007199254740993', [1, 0.9999999999999999]],
    [['0.1', '0.30000000000000004'], '0.30000000000000004', [0.1 / 0.30000000000000004, 1]],
    [['-5', '10'], '10', [0, 1]],
    [['abc', '3'], '3', [0, 1]],
    [['-1', '-2'], '-1', [0, 0]],
    [['2.50', '5'], '5', [0.5, 1]],
  ];
  for (const [values, max, fractions] of cases) {
    it(`${JSON.stringify(values)} -> max ${String(max)}, ${JSON.stringify(fractions)}`, () => {
      assert.equal(maxValue(values), max);
      assert.deepEqual(barFractions(values), fractions);
    });
  }
});

describe('sumDecimals: exact sums of decimal text', () => {
  const cases: Array<[string[], string]> = [
    [[], '0'],
    [['0.1', '0.2'], '0.3'],
    [['1234.50', '0.50'], '1235'],
    [['90071992547409.93', '0.07'], '90071992547410'],
    [['5', '-7.25'], '-2.25'],
    [['0.0025', '0.0025'], '0.005'],
  ];
  for (const [values, want] of cases) it(`${JSON.stringify(values)} -> ${want}`, () => assert.equal(sumDecimals(values), want));
  it('text that is not a decimal is an error, not a zero', () => assert.throws(() => sumDecimals(['1', '1e3']), /not a decimal/));
});

describe('daysFrom and periodOf: UTC calendar days', () => {
  it('inclusive, across a month end', () => assert.deepEqual(daysFrom('2026-01-30', '2026-02-02'), ['2026-01-30', '2026-01-31', '2026-02-01', '2026-02-02']));
  it('one day', () => assert.deepEqual(daysFrom('2026-03-05', '2026-03-05'), ['2026-03-05']));
  it('to before from: none', () => assert.deepEqual(daysFrom('2026-03-05', '2026-03-04'), []));
  it('not a day: none', () => assert.deepEqual(daysFrom('2026-3-5', '2026-03-05'), []));
  it('a leap day', () => assert.deepEqual(daysFrom('2028-02-28', '2028-03-01'), ['2028-02-28', '2028-02-29', '2028-03-01']));
  const today = Date.parse('2026-04-16T23:59:59.999Z');
  const periods: Array<[Parameters<typeof periodOf>[0], { from: string; to: string }]> = [
    ['month', { from: '2026-04-01', to: '2026-04-16' }],
    ['7', { from: '2026-04-10', to: '2026-04-16' }],
    ['30', { from: '2026-03-18', to: '2026-04-16' }],
    ['90', { from: '2026-01-17', to: '2026-04-16' }],
  ];
  for (const [choice, want] of periods) it(`${choice} on 2026-04-16 -> ${want.from}..${want.to}`, () => assert.deepEqual(periodOf(choice, today), want));
  it('90 days is within the API limit of 93', () => assert.equal(daysFrom(periodOf('90', today).from, periodOf('90', today).to).length, 90));
});

describe('seriesByKey: a series per key, a bar per day, exact sums', () => {
  const days = ['2026-04-01', '2026-04-02', '2026-04-03'];
  it('fills days without rows with 0 and sorts the keys', () => {
    const rows = [
      { key: 'storage', day: '2026-04-02', value: '1.5' },
      { key: 'api_calls', day: '2026-04-01', value: '10' },
      { key: 'api_calls', day: '2026-04-03', value: '7' },
    ];
    assert.deepEqual(seriesByKey(rows, days), [
      {
        key: 'api_calls',
        series: [
          { label: '2026-04-01', value: '10' },
          { label: '2026-04-02', value: '0' },
          { label: '2026-04-03', value: '7' },
        ],
      },
      {
        key: 'storage',
        series: [
          { label: '2026-04-01', value: '0' },
          { label: '2026-04-02', value: '1.5' },
          { label: '2026-04-03', value: '0' },
        ],
      },
    ]);
  });
  it('sums rows of one key and day exactly (invoice totals of a day)', () => {
    const rows = [
      { key: 'USD', day: '2026-04-02', value: '0.1' },
      { key: 'USD', day: '2026-04-02', value: '0.2' },
      { key: 'EUR', day: '2026-04-02', value: '5' },
    ];
    const got = seriesByKey(rows, days);
    assert.deepEqual(
      got.map((g) => [g.key, g.series[1]?.value]),
      [
        ['EUR', '5'],
        ['USD', '0.3'],
      ],
    );
  });
  it('leaves out rows outside the days', () => assert.deepEqual(seriesByKey([{ key: 'x', day: '2026-05-01', value: '1' }], days), []));
  it('no rows, no series', () => assert.deepEqual(seriesByKey([], days), []));
});
