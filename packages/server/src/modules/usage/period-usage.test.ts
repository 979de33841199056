import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal } from 'decimal.js';
import type { KyselyPlugin } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';
import { TtlCache } from '../../lib/ttl-cache.js';
import type { Db } from '../../db/database.js';
import { createMetric } from '../metrics/create-metric.js';
import { countsSignature, periodParts, readPeriodUsage, sumEvents, type EdgeUsage, type PeriodUsage } from './period-usage.js';
import { sumHourlyShares, sumHourlyTotals } from './usage-hourly.repository.js';
import { dimensionKeyOf } from './rating-dimension.js';

const Exact = Decimal.clone({ precision: 200 });
const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);
const NOON = at('2026-02-27T12:00:00.000Z');
const EDGE = at('2026-02-27T12:34:56.789Z');
const BIG = 999_999_999_999_999;
const TEN_BIG = '9999999999999990';

describe('usage period parts (pure)', () => {
  const cases: [string, { start: number; end: number }, { fromHour: number; toHour: number; edges: Array<{ hour: number; edge: number; sign: 1 | -1 }> }][] = [
    ['a period on the hours has no raw edge', { start: NOON, end: NOON + 5 * HOUR }, { fromHour: NOON, toHour: NOON + 5 * HOUR, edges: [] }],
    [
      'a start inside an hour subtracts the raw events from its hour start to it',
      { start: EDGE, end: NOON + 5 * HOUR },
      { fromHour: NOON, toHour: NOON + 5 * HOUR, edges: [{ hour: NOON, edge: EDGE, sign: -1 }] },
    ],
    [
      'an end inside an hour adds the raw events from its hour start to it',
      { start: NOON, end: EDGE + 2 * HOUR },
      { fromHour: NOON, toHour: NOON + 2 * HOUR, edges: [{ hour: NOON + 2 * HOUR, edge: EDGE + 2 * HOUR, sign: 1 }] },
    ],
    [
      'one millisecond before the hour is the previous hour',
      { start: NOON - 1, end: NOON },
      { fromHour: NOON - HOUR, toHour: NOON, edges: [{ hour: NOON - HOUR, edge: NOON - 1, sign: -1 }] },
    ],
    [
      'both edges inside one hour: no whole hour, the later prefix less the earlier',
      { start: EDGE, end: EDGE + 1 },
      {
        fromHour: NOON,
        toHour: NOON,
        edges: [
          { hour: NOON, edge: EDGE, sign: -1 },
          { hour: NOON, edge: EDGE + 1, sign: 1 },
        ],
      },
    ],
  ];
  for (const [rule, period, expected] of cases) it(rule, () => assert.deepEqual(periodParts(period), expected));

  it('countsSignature: one hour, metrics in a fixed order, empty hours and zero counts give ""', () => {
    const counts = [
      { hourStart: NOON, metricName: 'tokens', events: 2 },
      { hourStart: NOON, metricName: 'calls', events: 5 },
      { hourStart: NOON + HOUR, metricName: 'calls', events: 9 },
    ];
    assert.equal(countsSignature(counts, NOON), countsSignature([...counts].reverse(), NOON));
    assert.notEqual(countsSignature(counts, NOON), countsSignature([{ ...counts[0]!, events: 3 }, counts[1]!], NOON));
    assert.equal(countsSignature(counts, NOON + 2 * HOUR), '');
    assert.equal(countsSignature([{ hourStart: NOON, metricName: 'calls', events: 0 }], NOON), '');
  });

  it('sumEvents: exact per metric, dimension shares only when asked', () => {
    const endpoint = JSON.stringify({ endpoint: '/a' });
    const events = [
      { metricName: 'gb', quantity: '0.1', metadata: null },
      { metricName: 'gb', quantity: '0.2', metadata: endpoint },
      { metricName: 'calls', quantity: '9007199254740993', metadata: endpoint },
      { metricName: 'calls', quantity: '1', metadata: JSON.stringify({ other: 1 }) },
    ];
    const key = dimensionKeyOf({ endpoint: '/a' });
    assert.deepEqual(
      sumEvents(events, true),
      new Map([
        ['gb', { quantity: '0.3', events: 2, dimensions: new Map([[key, { quantity: '0.2', events: 1 }]]) }],
        ['calls', { quantity: '9007199254740994', events: 2, dimensions: new Map([[key, { quantity: '9007199254740993', events: 1 }]]) }],
      ]),
    );
    assert.deepEqual(
      [...sumEvents(events, false).values()].map((m) => m.dimensions.size),
      [0, 0],
    );
  });
});

let t: TestApp;
let ws: TenantHandle;
let api: Client;

interface Sent {
  customerId: string;
  metricName: string;
  quantity: number;
  occurredAt: number;
  metadata?: Record<string, string>;
}
const sent: Sent[] = [];

async function send(events: Sent[]) {
  const res = await api.post('/v1/ingest/batch', { events: events.map((e) => ({ ...e, occurredAt: new Date(e.occurredAt).toISOString() })) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  sent.push(...events);
}

/** The reference: the events sent, filtered by instant and summed in decimal.js. */
function expected(customerId: string, start: number, end: number, dimensionMetrics: readonly string[]): PeriodUsage {
  const out: PeriodUsage = new Map();
  for (const e of sent) {
    if (e.customerId !== customerId || e.occurredAt < start || e.occurredAt >= end) continue;
    const m = out.get(e.metricName) ?? { quantity: '0', events: 0, dimensions: new Map() };
    out.set(e.metricName, { ...m, quantity: new Exact(m.quantity).plus(e.quantity).toFixed(), events: m.events + 1 });
    const key = dimensionKeyOf(e.metadata ?? null);
    if (key === '' || !dimensionMetrics.includes(e.metricName)) continue;
    const d = m.dimensions.get(key) ?? { quantity: '0', events: 0 };
    m.dimensions.set(key, { quantity: new Exact(d.quantity).plus(e.quantity).toFixed(), events: d.events + 1 });
  }
  return out;
}

/** deps.db counting the queries that read usage_events. */
function countingEventReads(db: Db): { db: Db; reads: () => number } {
  let reads = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      if (args.node.kind === 'SelectQueryNode' && JSON.stringify(args.node.from).includes('"usage_events"')) reads += 1;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  return { db: db.withPlugin(plugin), reads: () => reads };
}

let customerId: string;
let otherCustomerId: string;

before(async () => {
  t = await createTestApp();
  // The API takes events up to 35 days old: the clock sits after them all.
  t.clock.set(at('2026-03-20T00:00:00.000Z'));
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
  for (const name of ['calls', 'gb']) await createMetric(t.deps, ws.test.ctx, { name });
  customerId = (await t.seed.customer(ws.test)).id;
  otherCustomerId = (await t.seed.customer(ws.test)).id;
  const c = customerId;
  await send([
    { customerId: c, metricName: 'calls', quantity: 1, occurredAt: NOON - 1 },
    { customerId: c, metricName: 'calls', quantity: 2, occurredAt: NOON },
    { customerId: c, metricName: 'calls', quantity: 4, occurredAt: EDGE - 1, metadata: { endpoint: '/a' } },
    { customerId: c, metricName: 'calls', quantity: 8, occurredAt: EDGE, metadata: { endpoint: '/a' } },
    { customerId: c, metricName: 'calls', quantity: 16, occurredAt: EDGE + 1, metadata: { executionStatus: 'ERROR' } },
    { customerId: c, metricName: 'calls', quantity: 32, occurredAt: at('2026-02-28T23:59:59.999Z') },
    { customerId: c, metricName: 'calls', quantity: 64, occurredAt: at('2026-03-01T00:00:00.000Z'), metadata: { endpoint: '/a' } },
    // Ten of the largest quantity the API takes, over two hours: sums past 2^53.
    ...Array.from({ length: 10 }, (_, i) => ({ customerId: c, metricName: 'calls', quantity: BIG, occurredAt: at('2026-03-02T08:00:00.000Z') + i * 600_000 })),
    { customerId: c, metricName: 'gb', quantity: 0.1, occurredAt: EDGE - 1 },
    { customerId: c, metricName: 'gb', quantity: 0.2, occurredAt: EDGE, metadata: { tool: 'search' } },
    { customerId: c, metricName: 'gb', quantity: 0.000001, occurredAt: at('2026-03-05T10:30:00.000Z') },
    // Another customer at the same instants: never counted.
    { customerId: otherCustomerId, metricName: 'calls', quantity: 1000, occurredAt: EDGE },
    { customerId: otherCustomerId, metricName: 'calls', quantity: 1000, occurredAt: NOON },
  ]);
});
after(() => t.close());

describe('readPeriodUsage: usage over exactly [start, end)', () => {
  // Every pair of these instants is a period: event instants, a millisecond either side, hour
  // starts, month starts.
  const instants = [
    NOON - HOUR,
    NOON - 1,
    NOON,
    EDGE - 1,
    EDGE,
    EDGE + 1,
    EDGE + 2,
    NOON + HOUR,
    at('2026-02-28T23:59:59.999Z'),
    at('2026-03-01T00:00:00.000Z'),
    at('2026-03-01T00:00:00.001Z'),
    at('2026-03-02T08:30:00.000Z'),
    at('2026-03-05T10:30:00.000Z'),
    at('2026-03-05T10:30:00.001Z'),
    at('2026-04-27T12:34:56.789Z'),
  ];

  it('equals the sum of the events sent in it, for every pair of boundary instants, with dimension shares', async () => {
    for (const start of instants) {
      for (const end of instants) {
        if (end <= start) continue;
        const label = `[${new Date(start).toISOString()}, ${new Date(end).toISOString()})`;
        const got = await readPeriodUsage(t.deps.db, t.deps.dialect, null, ws.test.ctx, customerId, { start, end }, ['calls']);
        assert.deepEqual(got, expected(customerId, start, end, ['calls']), label);
      }
    }
  });

  it('11:59:59.999 belongs to the period that ends at noon, 12:00:00.000 to the one that starts there; likewise at 12:34:56.789', async () => {
    const read = (start: number, end: number) => readPeriodUsage(t.deps.db, t.deps.dialect, null, ws.test.ctx, customerId, { start, end }, []);
    assert.equal((await read(NOON - HOUR, NOON)).get('calls')?.quantity, '1');
    assert.equal((await read(NOON, NOON + HOUR)).get('calls')?.quantity, String(2 + 4 + 8 + 16));
    assert.equal((await read(NOON, EDGE)).get('calls')?.quantity, String(2 + 4));
    assert.equal((await read(EDGE, NOON + HOUR)).get('calls')?.quantity, String(8 + 16));
    assert.equal((await read(EDGE, NOON + HOUR)).get('gb')?.quantity, '0.2');
    // Across a month and two integers summing past 2^53.
    assert.equal((await read(EDGE, at('2026-04-27T12:34:56.789Z'))).get('calls')?.quantity, new Exact(8 + 16 + 32 + 64).plus(TEN_BIG).toFixed());
    assert.equal((await read(NOON, NOON)).size, 0);
  });

  it('caches a raw edge, reads it again when a late event lands in its hour, and reads nothing for an hour without events', async () => {
    const cache = new TtlCache<EdgeUsage>(t.clock, 60_000);
    const counting = countingEventReads(t.deps.db);
    const period = { start: EDGE, end: at('2026-03-27T12:34:56.789Z') }; // its end hour has no events
    const read = () => readPeriodUsage(counting.db, t.deps.dialect, cache, ws.test.ctx, customerId, period, ['calls']);
    assert.deepEqual(await read(), expected(customerId, period.start, period.end, ['calls']));
    assert.equal(counting.reads(), 1, 'the start edge, once; the end edge hour is empty');
    assert.deepEqual(await read(), expected(customerId, period.start, period.end, ['calls']));
    assert.equal(counting.reads(), 1, 'from the cache');
    // Late events in the edge's hour: one before the edge (not in the period), one after.
    await send([
      { customerId, metricName: 'calls', quantity: 128, occurredAt: EDGE - 10_000, metadata: { endpoint: '/a' } },
      { customerId, metricName: 'calls', quantity: 256, occurredAt: EDGE + 10_000, metadata: { endpoint: '/a' } },
    ]);
    const after = await read();
    assert.equal(counting.reads(), 2, 'the edge read again');
    assert.deepEqual(after, expected(customerId, period.start, period.end, ['calls']));
    assert.equal(after.get('calls')?.quantity, new Exact(8 + 16 + 32 + 64 + 256).plus(TEN_BIG).toFixed());
    // A late event of another customer in that hour changes nothing of this customer's.
    await send([{ customerId: otherCustomerId, metricName: 'calls', quantity: 1, occurredAt: EDGE - 5 }]);
    await read();
    assert.equal(counting.reads(), 2);
  });

  it('sums in the database a row per metric and dimension, exactly past 64 bits and with decimals', async () => {
    const hour = at('2026-06-01T00:00:00.000Z');
    const tenant = { workspaceId: ws.test.ctx.workspaceId, environment: ws.test.ctx.environment };
    const rows = ['9223372036854775807', '9223372036854775807', '5', '0.1', '99999999999999999999999', '1000000000', '999999999'];
    await t.deps.db
      .insertInto('usageHourly')
      .values(
        rows.flatMap((q, i) => [
          { ...tenant, customerId: 'cus_big', metricName: 'calls', hourStart: hour + i * HOUR, dimension: '', quantitySum: q, eventCount: 1, updatedAt: 0 },
          {
            ...tenant,
            customerId: 'cus_big',
            metricName: 'calls',
            hourStart: hour + i * HOUR,
            dimension: '["OK",null,null]',
            quantitySum: q,
            eventCount: 1,
            updatedAt: 0,
          },
        ]),
      )
      .execute();
    const sum = rows.reduce((s, q) => s.plus(q), new Exact(0)).toFixed();
    assert.deepEqual(await sumHourlyTotals(t.deps.db, t.deps.dialect, tenant, 'cus_big', hour, hour + 100 * HOUR), [
      { metricName: 'calls', dimension: '', quantity: sum, events: rows.length },
    ]);
    assert.deepEqual(await sumHourlyShares(t.deps.db, t.deps.dialect, tenant, 'cus_big', hour, hour + 100 * HOUR, ['calls']), [
      { metricName: 'calls', dimension: '["OK",null,null]', quantity: sum, events: rows.length },
    ]);
    // Integers only (the fast form on SQLite), summing far past 2^63.
    const eighteen = '999999999999999999';
    await t.deps.db
      .insertInto('usageHourly')
      .values(
        Array.from({ length: 30 }, (_, i) => ({
          ...tenant,
          customerId: 'cus_big',
          metricName: 'tokens',
          hourStart: hour + i * HOUR,
          dimension: '',
          quantitySum: eighteen,
          eventCount: 2,
          updatedAt: 0,
        })),
      )
      .execute();
    const tokens = (await sumHourlyTotals(t.deps.db, t.deps.dialect, tenant, 'cus_big', hour, hour + 100 * HOUR)).find((r) => r.metricName === 'tokens');
    assert.deepEqual(tokens, { metricName: 'tokens', dimension: '', quantity: new Exact(eighteen).times(30).toFixed(), events: 60 });
  });
});
