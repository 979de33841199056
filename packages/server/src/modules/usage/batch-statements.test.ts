import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { transaction } from '../../db/transaction.js';
import { decimalAdd } from '../../lib/money.js';
import type { Tenant } from '../../lib/tenant.js';
import type { AggregateDelta, ResolvedEvent } from './aggregate-batch.js';
import { claimEventIds } from './event-claims.repository.js';
import { addToAggregates, insertEvents } from './usage.repository.js';

// The write path's batch statements (one per table and up to 128 rows on SQLite, the tenant and
// times bound once; arrays on PostgreSQL): every row lands once, in order, with the batch's
// shared values, and the sums stay exact on both sides of SQLite's integer shortcut.

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const HOUR = Date.UTC(2026, 2, 10, 12);
const MONTH = Date.UTC(2026, 2, 1);
let n = 0;
const tenant = (): Tenant => ({ workspaceId: `ws_batch_stmt_${n++}`, environment: 'live' });
const inTx = <T>(fn: (trx: TestApp['deps']['db']) => Promise<T>) => transaction(t.deps.db, fn);

const event = (i: number): ResolvedEvent => ({
  customerId: `cus_${i % 3}`,
  metricName: 'calls',
  quantity: i,
  quantityText: String(i),
  occurredAt: HOUR + i,
  periodStart: MONTH,
  eventId: i % 2 === 0 ? `e${i}` : null,
  metadata: i % 2 === 0 ? JSON.stringify({ i }) : null,
  dimension: '',
});

describe('insertEvents', () => {
  // Across the SQLite statement size (128 rows): none, one, a statement less one, exactly one, one more, several and a remainder.
  for (const count of [1, 127, 128, 129, 300]) {
    it(`stores ${count} events once each, in batch order, with the batch's tenant, time and source`, async () => {
      const ten = tenant();
      const events = Array.from({ length: count }, (_, i) => event(i));
      await inTx((trx) => insertEvents(trx, t.deps.sqlite, ten, events, HOUR + 5000, 'upload'));
      const rows = await t.deps.db.selectFrom('usageEvents').selectAll().where('workspaceId', '=', ten.workspaceId).orderBy('seq').execute();
      assert.deepEqual(
        rows.map((r) => [
          r.environment,
          r.customerId,
          r.quantity,
          Number(r.occurredAt),
          Number(r.periodStart),
          Number(r.receivedAt),
          r.eventId,
          r.metadata,
          r.source,
        ]),
        events.map((e) => ['live', e.customerId, e.quantityText, e.occurredAt, MONTH, HOUR + 5000, e.eventId, e.metadata, 'upload']),
      );
    });
  }
});

describe('addToAggregates', () => {
  // [stored sum, added sum]: the new sum is their exact decimal sum (decimalAdd), whichever way it is added.
  const sums: Array<[string, string, string]> = [
    ['small integers', '1', '2'],
    ['zero', '0', '0'],
    ['15 digits each: added as integers', '999999999999999', '999999999999999'],
    ['a 16-digit sum', '9999999999999990', '10'],
    ['past 64 bits', '9223372036854775807', '9223372036854775807'],
    ['decimals', '0.1', '0.2'],
    ['an integer and a decimal', '5', '0.000001'],
  ];
  for (const [name, stored, added] of sums) {
    it(`adds exactly: ${name}`, async () => {
      const ten = tenant();
      const delta = (sum: string): AggregateDelta => ({ customerId: 'cus_a', metricName: 'calls', hourStart: HOUR, dimension: '', sum, count: 1 });
      await inTx((trx) => addToAggregates(trx, t.deps.sqlite, ten, [delta(stored)], HOUR));
      await inTx((trx) => addToAggregates(trx, t.deps.sqlite, ten, [delta(added)], HOUR + 1));
      const hourly = await t.deps.db.selectFrom('usageHourly').selectAll().where('workspaceId', '=', ten.workspaceId).execute();
      const monthly = await t.deps.db.selectFrom('usageAggregates').selectAll().where('workspaceId', '=', ten.workspaceId).execute();
      const expected = decimalAdd(stored, added);
      assert.deepEqual(
        hourly.map((r) => [r.quantitySum, Number(r.eventCount), Number(r.updatedAt)]),
        [[expected, 2, HOUR + 1]],
      );
      assert.deepEqual(
        monthly.map((r) => [r.quantitySum, Number(r.eventCount), Number(r.periodStart), r.dimension]),
        [[expected, 2, MONTH, '']],
      );
    });
  }

  it('writes every group of a batch larger than one statement, with its dimension rows and totals', async () => {
    const ten = tenant();
    // 150 customers x (a dimension share and the rest): 300 deltas, 150 total rows and 150 shares an hour, 150 month rows.
    const deltas: AggregateDelta[] = Array.from({ length: 150 }, (_, i) => [
      { customerId: `cus_${String(i).padStart(3, '0')}`, metricName: 'calls', hourStart: HOUR, dimension: 'ok', sum: '2', count: 1 },
      { customerId: `cus_${String(i).padStart(3, '0')}`, metricName: 'calls', hourStart: HOUR, dimension: '', sum: '3', count: 2 },
    ]).flat();
    await inTx((trx) => addToAggregates(trx, t.deps.sqlite, ten, deltas, HOUR));
    const hourly = await t.deps.db.selectFrom('usageHourly').selectAll().where('workspaceId', '=', ten.workspaceId).execute();
    const monthly = await t.deps.db.selectFrom('usageAggregates').selectAll().where('workspaceId', '=', ten.workspaceId).execute();
    assert.equal(hourly.length, 300);
    assert.deepEqual(new Set(hourly.map((r) => `${r.dimension}:${r.quantitySum}:${r.eventCount}`)), new Set([':5:3', 'ok:2:1']));
    assert.equal(monthly.length, 150);
    assert.deepEqual(new Set(monthly.map((r) => `${r.quantitySum}:${r.eventCount}`)), new Set(['5:3']));
  });
});

describe('claimEventIds', () => {
  it('claims a batch of more ids than one SQLite statement holds (256), and a second batch only its new ids', async () => {
    const ten = tenant();
    const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `id-${String(from + i).padStart(4, '0')}`);
    const first = await inTx((trx) => claimEventIds(trx, t.deps.sqlite, ten, ids(0, 600), HOUR, 86_400_000));
    assert.deepEqual([...first].sort(), ids(0, 600));
    const second = await inTx((trx) => claimEventIds(trx, t.deps.sqlite, ten, ids(500, 1000).reverse(), HOUR + 1, 86_400_000));
    assert.deepEqual([...second].sort(), ids(600, 1000));
  });
});
