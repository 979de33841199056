import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { numberToDecimal } from '../../lib/money.js';
import { hourStart, monthStart } from '../../lib/periods.js';
import { aggregateBatch, monthTotals, withTotalRows, type AggregateDelta, type MonthTotalDelta, type ResolvedEvent } from './aggregate-batch.js';

/** Hour starts (the first hours of two months). */
const JAN = Date.UTC(2026, 0, 1);
const FEB = Date.UTC(2026, 1, 1);
const NOON = Date.UTC(2026, 0, 15, 12);

/** An independent reference: plain decimal.js with room for every digit the properties produce. */
const Exact = Decimal.clone({ precision: 200 });

function event(
  customerId: string,
  metricName: string,
  quantity: number,
  /** An instant: the hour start itself unless given otherwise. */
  occurredAt = JAN,
  quantityText = numberToDecimal(quantity),
  dimension = '',
): ResolvedEvent {
  return { customerId, metricName, quantity, quantityText, occurredAt, periodStart: monthStart(occurredAt), eventId: null, metadata: null, dimension };
}

const key = (d: AggregateDelta) => `${d.customerId}|${d.metricName}|${d.hourStart}|${d.dimension}|${d.sum}|${d.count}`;
const asSet = (deltas: readonly AggregateDelta[]) => deltas.map(key).sort();
const delta = (customerId: string, metricName: string, hour: number, sum: string, count: number, dimension = ''): AggregateDelta => ({
  customerId,
  metricName,
  hourStart: hour,
  dimension,
  sum,
  count,
});

describe('usage.aggregateBatch', () => {
  const MAX = Number.MAX_SAFE_INTEGER;
  const cases: [string, ResolvedEvent[], AggregateDelta[]][] = [
    ['an empty batch has no groups', [], []],
    [
      'one customer, metric and month is one group',
      [event('c1', 'calls', 3), event('c1', 'calls', 4), event('c1', 'calls', 5)],
      [delta('c1', 'calls', JAN, '12', 3)],
    ],
    [
      'two customers are two groups',
      [event('c1', 'calls', 3), event('c2', 'calls', 4), event('c1', 'calls', 1)],
      [delta('c1', 'calls', JAN, '4', 2), delta('c2', 'calls', JAN, '4', 1)],
    ],
    [
      'two metrics are two groups',
      [event('c1', 'calls', 3), event('c1', 'tokens', 400)],
      [delta('c1', 'calls', JAN, '3', 1), delta('c1', 'tokens', JAN, '400', 1)],
    ],
    [
      'two months are two groups',
      [event('c1', 'calls', 3, JAN), event('c1', 'calls', 7, FEB), event('c1', 'calls', 1, FEB)],
      [delta('c1', 'calls', JAN, '3', 1), delta('c1', 'calls', FEB, '8', 2)],
    ],
    [
      '11:59:59.999 and 12:00:00.000 are two hours; 12:00:00.000 and 12:59:59.999 are one',
      [event('c1', 'calls', 1, NOON - 1), event('c1', 'calls', 2, NOON), event('c1', 'calls', 4, NOON + 3_599_999)],
      [delta('c1', 'calls', NOON - 3_600_000, '1', 1), delta('c1', 'calls', NOON, '6', 2)],
    ],
    ['decimals add exactly: 0.1 + 0.2 = 0.3', [event('c1', 'gb', 0.1), event('c1', 'gb', 0.2)], [delta('c1', 'gb', JAN, '0.3', 2)]],
    ['an integer after a decimal stays exact', [event('c1', 'gb', 0.1), event('c1', 'gb', 2), event('c1', 'gb', 0.2)], [delta('c1', 'gb', JAN, '2.3', 3)]],
    [
      'integers past 2^53 switch to decimal and stay exact',
      [event('c1', 'calls', MAX), event('c1', 'calls', 2)],
      [delta('c1', 'calls', JAN, '9007199254740993', 2)],
    ],
    [
      'the sum keeps growing exactly after the switch',
      [event('c1', 'calls', MAX), event('c1', 'calls', MAX), event('c1', 'calls', 1)],
      [delta('c1', 'calls', JAN, '18014398509481983', 3)],
    ],
    [
      'an integer above 2^53 is summed from its quantityText, as the client sent it',
      [event('c1', 'calls', 1e20), event('c1', 'calls', 5)],
      [delta('c1', 'calls', JAN, '100000000000000000005', 2)],
    ],
    ['a tiny quantity in exponent form is expanded', [event('c1', 'gb', 1e-9), event('c1', 'gb', 1)], [delta('c1', 'gb', JAN, '1.000000001', 2)]],
    [
      'two rating dimensions of one metric and month are two groups',
      [
        event('c1', 'calls', 3, JAN, '3', '["SUCCESS",null,null]'),
        event('c1', 'calls', 4, JAN, '4', '["ERROR",null,null]'),
        event('c1', 'calls', 1, JAN, '1', '["SUCCESS",null,null]'),
      ],
      [delta('c1', 'calls', JAN, '4', 2, '["SUCCESS",null,null]'), delta('c1', 'calls', JAN, '4', 1, '["ERROR",null,null]')],
    ],
    ['zero quantities count but add nothing', [event('c1', 'calls', 0), event('c1', 'calls', 0)], [delta('c1', 'calls', JAN, '0', 2)]],
  ];
  for (const [rule, events, expected] of cases) {
    it(rule, () => assert.deepEqual(asSet(aggregateBatch(events)), asSet(expected)));
  }

  // Quantities as they arrive: small and large integers (up to and around 2^53) and decimals with
  // up to six fraction digits, so every exact sum fits well inside 40 significant digits.
  const quantity = fc.oneof(
    fc.nat({ max: 1000 }),
    fc.integer({ min: Number.MAX_SAFE_INTEGER - 1000, max: Number.MAX_SAFE_INTEGER }),
    fc.tuple(fc.integer({ min: 0, max: 1_000_000_000 }), fc.integer({ min: 0, max: 6 })).map(([n, digits]) => n / 10 ** digits),
  );
  const resolvedEvent = fc
    .tuple(fc.constantFrom('c1', 'c2', 'c3'), fc.constantFrom('calls', 'tokens'), fc.constantFrom(JAN, JAN + 3_599_999, NOON - 1, NOON, FEB), quantity)
    .map(([c, m, p, q]) => event(c, m, q, p));
  const batch = fc.array(resolvedEvent, { maxLength: 60 });
  const groupOf = (e: ResolvedEvent | AggregateDelta) => `${e.customerId}|${e.metricName}|${'hourStart' in e ? e.hourStart : hourStart(e.occurredAt)}`;

  it('property: the result does not depend on the order of the events', () => {
    fc.assert(
      fc.property(
        batch.chain((events) => fc.tuple(fc.constant(events), fc.shuffledSubarray(events, { minLength: events.length, maxLength: events.length }))),
        ([events, shuffled]) => assert.deepEqual(asSet(aggregateBatch(shuffled)), asSet(aggregateBatch(events))),
      ),
    );
  });

  it('property: one delta per group, and the counts add up to the number of events', () => {
    fc.assert(
      fc.property(batch, (events) => {
        const deltas = aggregateBatch(events);
        assert.equal(new Set(deltas.map(groupOf)).size, deltas.length);
        assert.equal(new Set(events.map(groupOf)).size, deltas.length);
        assert.equal(
          deltas.reduce((n, d) => n + d.count, 0),
          events.length,
        );
        for (const d of deltas) assert.equal(d.count, events.filter((e) => groupOf(e) === groupOf(d)).length);
      }),
    );
  });

  it('property: each group sum equals the decimal.js sum of its quantityText values', () => {
    fc.assert(
      fc.property(batch, (events) => {
        for (const d of aggregateBatch(events)) {
          const expected = events.filter((e) => groupOf(e) === groupOf(d)).reduce((s, e) => s.plus(e.quantityText), new Exact(0));
          assert.equal(d.sum, expected.toFixed());
        }
      }),
    );
  });
});

describe('usage.withTotalRows', () => {
  const S = '["SUCCESS",null,null]';
  const E = '["ERROR",null,"/v1/chat"]';
  const cases: [string, AggregateDelta[], AggregateDelta[]][] = [
    ['no deltas, no rows', [], []],
    [
      'events without a dimension: one total row per group, as before',
      [delta('c1', 'calls', JAN, '3', 2), delta('c2', 'calls', JAN, '4', 1)],
      [delta('c1', 'calls', JAN, '3', 2), delta('c2', 'calls', JAN, '4', 1)],
    ],
    [
      'a dimension adds its own row and to the total row',
      [delta('c1', 'calls', JAN, '4', 1, S)],
      [delta('c1', 'calls', JAN, '4', 1), delta('c1', 'calls', JAN, '4', 1, S)],
    ],
    [
      'the total row sums events without a dimension and every dimension',
      [delta('c1', 'calls', JAN, '3', 2), delta('c1', 'calls', JAN, '4', 1, S), delta('c1', 'calls', JAN, '5', 5, E)],
      [delta('c1', 'calls', JAN, '12', 8), delta('c1', 'calls', JAN, '4', 1, S), delta('c1', 'calls', JAN, '5', 5, E)],
    ],
    [
      'customers, metrics and months keep totals of their own',
      [delta('c1', 'calls', JAN, '1', 1, S), delta('c2', 'calls', JAN, '2', 1, S), delta('c1', 'tokens', JAN, '3', 1, S), delta('c1', 'calls', FEB, '4', 1, S)],
      [
        delta('c1', 'calls', JAN, '1', 1),
        delta('c1', 'calls', JAN, '1', 1, S),
        delta('c2', 'calls', JAN, '2', 1),
        delta('c2', 'calls', JAN, '2', 1, S),
        delta('c1', 'tokens', JAN, '3', 1),
        delta('c1', 'tokens', JAN, '3', 1, S),
        delta('c1', 'calls', FEB, '4', 1),
        delta('c1', 'calls', FEB, '4', 1, S),
      ],
    ],
    [
      'decimal totals add exactly',
      [delta('c1', 'gb', JAN, '0.1', 1, S), delta('c1', 'gb', JAN, '0.2', 1, E)],
      [delta('c1', 'gb', JAN, '0.3', 2), delta('c1', 'gb', JAN, '0.1', 1, S), delta('c1', 'gb', JAN, '0.2', 1, E)],
    ],
    [
      'totals past 2^53 stay exact',
      [delta('c1', 'calls', JAN, '9007199254740993', 2, S), delta('c1', 'calls', JAN, '9007199254740993', 2, E)],
      [
        delta('c1', 'calls', JAN, '18014398509481986', 4),
        delta('c1', 'calls', JAN, '9007199254740993', 2, S),
        delta('c1', 'calls', JAN, '9007199254740993', 2, E),
      ],
    ],
  ];
  for (const [rule, deltas, expected] of cases) {
    it(rule, () => assert.deepEqual(asSet(withTotalRows(deltas)), asSet(expected)));
  }
});

describe('usage.monthTotals', () => {
  const S = '["SUCCESS",null,null]';
  const month = (customerId: string, metricName: string, periodStart: number, sum: string, count: number): MonthTotalDelta => ({
    customerId,
    metricName,
    periodStart,
    sum,
    count,
  });
  const LAST_JAN_HOUR = Date.UTC(2026, 0, 31, 23);
  const cases: [string, AggregateDelta[], MonthTotalDelta[]][] = [
    ['no deltas, no rows', [], []],
    [
      'the hours of a month, with and without dimensions, add into one total',
      [delta('c1', 'calls', JAN, '3', 2), delta('c1', 'calls', NOON, '4', 1, S), delta('c1', 'calls', LAST_JAN_HOUR, '0.5', 1)],
      [month('c1', 'calls', JAN, '7.5', 4)],
    ],
    [
      "the month's last hour and the next month's first are two months",
      [delta('c1', 'calls', LAST_JAN_HOUR, '1', 1), delta('c1', 'calls', FEB, '2', 1)],
      [month('c1', 'calls', JAN, '1', 1), month('c1', 'calls', FEB, '2', 1)],
    ],
    [
      'customers and metrics keep totals of their own, past 2^53 exactly',
      [
        delta('c1', 'calls', JAN, '9007199254740993', 1),
        delta('c1', 'calls', NOON, '9007199254740993', 1),
        delta('c2', 'calls', JAN, '1', 1),
        delta('c1', 'gb', JAN, '0.1', 1),
      ],
      [month('c1', 'calls', JAN, '18014398509481986', 2), month('c2', 'calls', JAN, '1', 1), month('c1', 'gb', JAN, '0.1', 1)],
    ],
  ];
  const mkey = (d: MonthTotalDelta) => `${d.customerId}|${d.metricName}|${d.periodStart}|${d.sum}|${d.count}`;
  for (const [rule, deltas, expected] of cases) {
    it(rule, () => assert.deepEqual(monthTotals(deltas).map(mkey).sort(), expected.map(mkey).sort()));
  }
});
