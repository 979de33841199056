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
import { planTotalParts } from './period-total-parts.js';
import { sumHourlyShares, sumTotalParts } from './usage-hourly.repository.js';
import { DEFAULT_DIMENSIONS, dimensionKeyOf, dimensionReaderOf } from './rating-dimension.js';
import { DEFAULT_DIMENSION_PATHS } from '../metrics/metric.js';

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

  it('sumEvents: exact per metric, dimension shares only when asked, read at each metric’s paths', () => {
    const endpoint = JSON.stringify({ endpoint: '/a' });
    const events = [
      { metricName: 'gb', quantity: '0.1', metadata: null },
      { metricName: 'gb', quantity: '0.2', metadata: endpoint },
      { metricName: 'calls', quantity: '9007199254740993', metadata: endpoint },
      { metricName: 'calls', quantity: '1', metadata: JSON.stringify({ other: 1 }) },
    ];
    const key = dimensionKeyOf({ endpoint: '/a' });
    assert.deepEqual(
      sumEvents(
        events,
        new Map([
          ['gb', DEFAULT_DIMENSIONS],
          ['calls', DEFAULT_DIMENSIONS],
        ]),
      ),
      new Map([
        ['gb', { quantity: '0.3', events: 2, dimensions: new Map([[key, { quantity: '0.2', events: 1 }]]) }],
        ['calls', { quantity: '9007199254740994', events: 2, dimensions: new Map([[key, { quantity: '9007199254740993', events: 1 }]]) }],
      ]),
    );
    assert.deepEqual(
      [...sumEvents(events, null).values()].map((m) => m.dimensions.size),
      [0, 0],
    );
    // A metric whose endpoint is at call.endpoint: the top-level endpoint is just another key.
    const nested = [
      { metricName: 'calls', quantity: '2', metadata: JSON.stringify({ call: { endpoint: '/b' }, endpoint: '/a' }) },
      { metricName: 'calls', quantity: '3', metadata: endpoint },
    ];
    const reader = dimensionReaderOf({ ...DEFAULT_DIMENSION_PATHS, endpoint: 'call.endpoint' });
    assert.deepEqual(
      sumEvents(nested, new Map([['calls', reader]])),
      new Map([['calls', { quantity: '5', events: 2, dimensions: new Map([[dimensionKeyOf({ endpoint: '/b' }), { quantity: '2', events: 1 }]]) }]]),
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
    // The same sums as monthly total rows, one a month from June.
    await t.deps.db
      .insertInto('usageAggregates')
      .values(
        rows.map((q, i) => ({
          ...tenant,
          customerId: 'cus_big',
          metricName: 'calls',
          periodStart: Date.UTC(2026, 5 + i, 1),
          dimension: '',
          quantitySum: q,
          eventCount: 1,
          updatedAt: 0,
        })),
      )
      .execute();
    const sum = rows.reduce((s, q) => s.plus(q), new Exact(0)).toFixed();
    const parts = [
      { source: 'hours', sign: 1, from: hour, to: hour + 100 * HOUR },
      { source: 'months', sign: 1, from: hour, to: Date.UTC(2027, 0, 1) },
    ] as const;
    const byPart = (a: { part: number }, b: { part: number }) => a.part - b.part;
    assert.deepEqual((await sumTotalParts(t.deps.db, t.deps.dialect, tenant, 'cus_big', parts)).sort(byPart), [
      { part: 0, metricName: 'calls', quantity: sum, events: rows.length },
      { part: 1, metricName: 'calls', quantity: sum, events: rows.length },
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
    const tokens = (await sumTotalParts(t.deps.db, t.deps.dialect, tenant, 'cus_big', [parts[0]])).find((r) => r.metricName === 'tokens');
    assert.deepEqual(tokens, { part: 0, metricName: 'tokens', quantity: new Exact(eighteen).times(30).toFixed(), events: 60 });
  });
});

describe('readPeriodUsage from monthly rows, less the hours of their months outside the period', () => {
  let c: string;
  const MONTHS = [0, 1, 2, 3, 4].map((m) => Date.UTC(2026, m, 1)); // January to May 2026

  /** A fixed sequence in [0, 1) (mulberry32): the same periods on every run. */
  function random(seed: number): () => number {
    return () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
      return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
    };
  }

  before(async () => {
    c = (await t.seed.customer(ws.test)).id;
    const next = random(16);
    const quantities = [1, 512, 0.001, BIG, 2.5];
    const metadata: Array<Record<string, string> | undefined> = [undefined, { endpoint: '/a' }, { executionStatus: 'ERROR' }];
    const now = t.clock.now();
    try {
      for (const month of MONTHS) {
        const end = Date.UTC(2026, new Date(month).getUTCMonth() + 1, 1);
        // The API takes events up to 35 days old: the clock at the month's end takes all of its.
        t.clock.set(end);
        const instants = [month, month + 1, end - 1, month + HOUR - 1, month + 2 * HOUR];
        for (let i = 0; i < 80; i++) instants.push(month + Math.floor(next() * (end - month)));
        await send(
          instants.map((occurredAt, i) => {
            const m = metadata[i % 3];
            return {
              customerId: c,
              metricName: i % 4 === 0 ? 'gb' : 'calls',
              quantity: quantities[Math.floor(next() * quantities.length)]!,
              occurredAt,
              ...(m ? { metadata: m } : {}),
            };
          }),
        );
      }
    } finally {
      t.clock.set(now);
    }
  });

  const read = (start: number, end: number) => readPeriodUsage(t.deps.db, t.deps.dialect, null, ws.test.ctx, c, { start, end }, ['calls']);

  it('subtracts events of the same month just outside the period, on both sides', async () => {
    const start = at('2026-03-03T00:00:00.000Z');
    const end = at('2026-03-29T00:00:00.000Z');
    const plan = planTotalParts(start, end);
    assert.deepEqual(
      plan.map((p) => `${p.source} ${p.sign}`),
      ['hours -1', 'months 1', 'hours -1'],
    );
    const now = t.clock.now();
    t.clock.set(at('2026-04-01T00:00:00.000Z'));
    await createMetric(t.deps, ws.test.ctx, { name: 'tokens' });
    await send([
      { customerId: c, metricName: 'calls', quantity: 1000, occurredAt: start - 1 },
      { customerId: c, metricName: 'calls', quantity: 2000, occurredAt: start },
      { customerId: c, metricName: 'calls', quantity: 4000, occurredAt: end - 1 },
      { customerId: c, metricName: 'calls', quantity: 8000, occurredAt: end },
      { customerId: c, metricName: 'tokens', quantity: 7, occurredAt: end }, // a metric only outside: absent
    ]).finally(() => t.clock.set(now));
    const got = await read(start, end);
    assert.deepEqual(got, expected(c, start, end, ['calls']));
    assert.equal(got.has('tokens'), false);
    const outside = await read(at('2026-03-01T00:00:00.000Z'), start);
    assert.deepEqual(outside, expected(c, at('2026-03-01T00:00:00.000Z'), start, ['calls']));
  });

  it('equals the sum of the events sent in it for 200 periods at random instants, on and off the hour, across months', async () => {
    const next = random(61);
    const from = at('2025-12-20T00:00:00.000Z');
    const to = at('2026-06-10T00:00:00.000Z');
    let subtracted = 0;
    for (let i = 0; i < 200; i++) {
      let start = from + Math.floor(next() * (to - from));
      const lengths = [HOUR, 3 * 24 * HOUR, 40 * 24 * HOUR, 150 * 24 * HOUR];
      let end = start + 1 + Math.floor(next() * lengths[i % lengths.length]!);
      if (i % 3 === 1) [start, end] = [Math.floor(start / HOUR) * HOUR, Math.ceil(end / HOUR) * HOUR];
      if (i % 7 === 2) start = Date.UTC(new Date(start).getUTCFullYear(), new Date(start).getUTCMonth(), 1);
      const plan = planTotalParts(Math.floor(start / HOUR) * HOUR, Math.floor(end / HOUR) * HOUR);
      if (plan.some((p) => p.sign === -1)) subtracted += 1;
      const label = `[${new Date(start).toISOString()}, ${new Date(end).toISOString()})`;
      assert.deepEqual(await read(start, end), expected(c, start, end, ['calls']), label);
    }
    assert.ok(subtracted >= 40, `only ${subtracted} periods read a month row less some hours`);
  });
});
