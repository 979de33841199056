import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { daysFrom, seriesByKey } from '../src/chart.js';
import { issuedTotals, readFarEnough } from '../src/revenue.js';

const inv = (status: string, total: string, finalizedAt: string | null, currency = 'USD') => ({
  status,
  currency,
  total,
  finalizedAt,
  createdAt: '2026-04-01T00:00:00.000Z',
});

describe('issuedTotals: which invoices count as revenue, on which day', () => {
  const cases: Array<[ReturnType<typeof inv>, boolean]> = [
    [inv('finalized', '10.00', '2026-04-02T23:59:59.999Z'), true],
    [inv('paid', '10.00', '2026-04-02T10:00:00.000Z'), true],
    [inv('uncollectible', '10.00', '2026-04-02T10:00:00.000Z'), true],
    [inv('draft', '10.00', null), false],
    [inv('void', '10.00', '2026-04-02T10:00:00.000Z'), false],
  ];
  for (const [i, counts] of cases) {
    it(`${i.status} ${counts ? 'counts' : 'does not count'}`, () =>
      assert.deepEqual(issuedTotals([i]), counts ? [{ key: 'USD', day: '2026-04-02', value: '10.00' }] : []));
  }
});

describe('revenue per day and currency: exact sums, never across currencies', () => {
  it('sums a day per currency', () => {
    const rows = issuedTotals([
      inv('paid', '0.10', '2026-04-02T01:00:00.000Z'),
      inv('finalized', '0.20', '2026-04-02T02:00:00.000Z'),
      inv('paid', '1000', '2026-04-03T02:00:00.000Z', 'JPY'),
    ]);
    assert.deepEqual(seriesByKey(rows, daysFrom('2026-04-02', '2026-04-03')), [
      {
        key: 'JPY',
        series: [
          { label: '2026-04-02', value: '0' },
          { label: '2026-04-03', value: '1000' },
        ],
      },
      {
        key: 'USD',
        series: [
          { label: '2026-04-02', value: '0.3' },
          { label: '2026-04-03', value: '0' },
        ],
      },
    ]);
  });
});

describe('readFarEnough: when to stop reading the newest-first list', () => {
  const page = (createdAt: string) => [{ createdAt: '2026-04-10T00:00:00.000Z' }, { createdAt }];
  const cases: Array<[Array<{ createdAt: string }>, boolean]> = [
    [[], true],
    [page('2026-04-01T00:00:00.000Z'), false],
    [page('2025-12-23T00:00:00.000Z'), false],
    [page('2025-12-21T23:59:59.999Z'), true],
  ];
  for (const [p, want] of cases)
    it(`last created ${p[p.length - 1]?.createdAt ?? 'none'}, from 2026-04-01 -> ${want}`, () => assert.equal(readFarEnough(p, '2026-04-01'), want));
});
