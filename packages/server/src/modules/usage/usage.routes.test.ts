import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, EnvHandle, TenantHandle } from '../../../test/helpers/seed.js';
import { createMetric } from '../metrics/create-metric.js';
import { readCustomerEvents } from './usage.repository.js';

let t: TestApp;
let ws: TenantHandle;
let api: Client;
let customerId: string;

const iso = (ms: number) => new Date(ms).toISOString();
const ev = (over: Record<string, unknown> = {}) => ({
  customerId,
  metricName: 'api_calls',
  quantity: 1,
  occurredAt: iso(t.clock.now() - 60_000),
  ...over,
});

async function metrics(env: EnvHandle, ...names: string[]) {
  for (const name of names) await createMetric(t.deps, env.ctx, { name });
}

/** The problems of a refused batch as [index, code, field]. */
const listed = (res: { body: { errors: Array<{ index: number; code: string; field: string }> } }) => res.body.errors.map((e) => [e.index, e.code, e.field]);
const aggregates = (cid: string) => t.deps.db.selectFrom('usageAggregates').selectAll().where('customerId', '=', cid).orderBy('metricName').execute();
const eventCount = async (cid: string) =>
  Number(
    (
      await t.deps.db
        .selectFrom('usageEvents')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('customerId', '=', cid)
        .executeTakeFirstOrThrow()
    ).n,
  );

before(async () => {
  t = await createTestApp();
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
  await metrics(ws.test, 'api_calls', 'tokens', 'revenue');
  customerId = (await t.seed.customer(ws.test, { externalId: 'acme' })).id;
});
after(() => t.close());

describe('POST /v1/ingest/batch', () => {
  it('200 stores 1,000 events once, after the commit, and sums them per customer, metric and month', async () => {
    const c = await t.seed.customer(ws.test);
    const events = Array.from({ length: 1000 }, (_, i) => ev({ customerId: c.id, quantity: i % 2 === 0 ? 1 : 2 }));
    const res = await api.post('/v1/ingest/batch', { events });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { object: 'ingest_result', environment: 'test', accepted: 1000, duplicates: 0, rejected: [], idempotentReplay: false });
    assert.equal(await eventCount(c.id), 1000);
    const [agg] = await aggregates(c.id);
    assert.equal(agg?.quantitySum, '1500');
    assert.equal(agg?.eventCount, 1000);
    assert.equal(agg?.periodStart, Date.UTC(2026, 0, 1));
  });

  it('200 accepts the customer by its externalId and keeps decimal quantities exact', async () => {
    const c = await t.seed.customer(ws.test, { externalId: 'decimal-co' });
    const res = await api.post('/v1/ingest/batch', {
      events: [ev({ customerId: 'decimal-co', metricName: 'revenue', quantity: 0.1 }), ev({ customerId: 'decimal-co', metricName: 'revenue', quantity: 0.2 })],
    });
    assert.equal(res.status, 200);
    await api.post('/v1/ingest/batch', { events: [ev({ customerId: c.id, metricName: 'revenue', quantity: 0.7 })] });
    const [agg] = await aggregates(c.id);
    assert.equal(agg?.quantitySum === '1' || agg?.quantitySum === '1.0', true, `sum is exactly 1, got ${agg?.quantitySum}`);
  });

  it('200 lands a late event in the month it occurred in, not the month it arrived', async () => {
    const c = await t.seed.customer(ws.test);
    t.clock.set(Date.UTC(2026, 1, 3, 12)); // February 3rd
    const res = await api.post('/v1/ingest/batch', { events: [ev({ customerId: c.id, occurredAt: '2026-01-31T23:59:59Z' }), ev({ customerId: c.id })] });
    assert.equal(res.status, 200);
    const rows = await aggregates(c.id);
    assert.deepEqual(rows.map((r) => [new Date(r.periodStart).toISOString(), r.quantitySum]).sort(), [
      ['2026-01-01T00:00:00.000Z', '1'],
      ['2026-02-01T00:00:00.000Z', '1'],
    ]);
  });

  it('200 skips events whose eventId was seen in the last 24 hours, and repeats within the batch', async () => {
    const c = await t.seed.customer(ws.test);
    const first = await api.post('/v1/ingest/batch', { events: [ev({ customerId: c.id, eventId: 'e-1' }), ev({ customerId: c.id, eventId: 'e-2' })] });
    assert.equal(first.body.accepted, 2);
    const retry = await api.post('/v1/ingest/batch', {
      events: [ev({ customerId: c.id, eventId: 'e-1' }), ev({ customerId: c.id, eventId: 'e-3' }), ev({ customerId: c.id, eventId: 'e-3' })],
    });
    assert.equal(retry.status, 200);
    assert.equal(retry.body.accepted, 1);
    assert.equal(retry.body.duplicates, 2);
    assert.equal(await eventCount(c.id), 3);
    t.clock.advance(24 * 60 * 60 * 1000 + 1);
    const dayLater = await api.post('/v1/ingest/batch', { events: [ev({ customerId: c.id, eventId: 'e-1' })] });
    assert.equal(dayLater.body.accepted, 1, 'an id older than 24 hours is new again');
  });

  it('200 replays the first response for the same X-Idempotency-Key and body, ingesting nothing twice', async () => {
    const c = await t.seed.customer(ws.test);
    const body = { events: [ev({ customerId: c.id, quantity: 5 })] };
    const headers = { 'x-idempotency-key': 'batch-1' };
    const first = await api.post('/v1/ingest/batch', body, headers);
    const second = await api.post('/v1/ingest/batch', body, headers);
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(second.body.accepted, 1);
    assert.equal(second.body.idempotentReplay, true);
    assert.equal(second.headers['idempotent-replayed'], undefined);
    assert.equal(await eventCount(c.id), 1);
  });

  it('200 for concurrent requests with one X-Idempotency-Key: they never both ingest', async () => {
    const c = await t.seed.customer(ws.test);
    const body = { events: [ev({ customerId: c.id })] };
    const responses = await Promise.all(Array.from({ length: 8 }, () => api.post('/v1/ingest/batch', body, { 'x-idempotency-key': 'race-1' })));
    assert.ok(
      responses.every((r) => r.status === 200 || r.status === 503),
      responses.map((r) => r.status).join(','),
    );
    assert.equal(await eventCount(c.id), 1);
  });

  it('422 IDEMPOTENCY_KEY_REUSED for the same X-Idempotency-Key with another body', async () => {
    await api.post('/v1/ingest/batch', { events: [ev({ quantity: 1 })] }, { 'x-idempotency-key': 'batch-2' });
    const res = await api.post('/v1/ingest/batch', { events: [ev({ quantity: 2 })] }, { 'x-idempotency-key': 'batch-2' });
    assert.equal(res.status, 422);
    assert.equal(res.body.errors[0].code, 'IDEMPOTENCY_KEY_REUSED');
  });

  const rejections: Array<[string, Record<string, unknown>, string, string]> = [
    ['an unknown customer', { customerId: 'nobody' }, 'UNKNOWN_CUSTOMER', 'customerId'],
    ['a misspelt metric name', { metricName: 'API_Calls' }, 'UNKNOWN_METRIC', 'metricName'],
    ['a quantity sent as a string', { quantity: '5' }, 'INVALID_QUANTITY', 'quantity'],
    ['a negative quantity', { quantity: -1 }, 'NEGATIVE_QUANTITY', 'quantity'],
    ['a quantity that is not finite', { quantity: '__INF__' }, 'INVALID_QUANTITY', 'quantity'],
    ['a timestamp that is not ISO 8601', { occurredAt: '15/01/2026' }, 'INVALID_TIMESTAMP', 'occurredAt'],
    ['a timestamp without a time zone', { occurredAt: '2026-01-15T10:00:00' }, 'INVALID_TIMESTAMP', 'occurredAt'],
    ['a date that does not exist', { occurredAt: '2026-02-30T10:00:00Z' }, 'INVALID_TIMESTAMP', 'occurredAt'],
    ['a timestamp 6 minutes in the future', { occurredAt: '__FUTURE__' }, 'TIMESTAMP_IN_FUTURE', 'occurredAt'],
    ['a timestamp 36 days old', { occurredAt: '__OLD__' }, 'TIMESTAMP_TOO_OLD', 'occurredAt'],
    ['an unknown field', { cost: 3 }, 'INVALID_EVENT', 'cost'],
    ['a missing customerId', { customerId: undefined }, 'INVALID_EVENT', 'customerId'],
    ['metadata that is not an object', { metadata: 'x' }, 'INVALID_METADATA', 'metadata'],
    ['metadata nested 6 levels deep', { metadata: { request: { a: { b: { c: { d: {} } } } } } }, 'INVALID_METADATA', 'metadata.request.a.b.c.d'],
  ];
  for (const [what, over, code, field] of rejections) {
    it(`400 names ${what} by index (${code}) and stores nothing of the batch`, async () => {
      const c = await t.seed.customer(ws.test);
      const bad: Record<string, unknown> = ev({ customerId: c.id, ...over });
      if (over.quantity === '__INF__') bad.quantity = 0;
      if (over.occurredAt === '__FUTURE__') bad.occurredAt = iso(t.clock.now() + 6 * 60_000);
      if (over.occurredAt === '__OLD__') bad.occurredAt = iso(t.clock.now() - 36 * 24 * 3600_000);
      let payload = JSON.stringify({ events: [ev({ customerId: c.id }), ev({ customerId: c.id }), bad] });
      if (over.quantity === '__INF__') {
        // JSON has no Infinity; a number too large for a double parses to it.
        const at = payload.lastIndexOf('"quantity":0');
        payload = `${payload.slice(0, at)}"quantity":1e999${payload.slice(at + '"quantity":0'.length)}`;
      }
      const res = await api.post('/v1/ingest/batch', payload);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.success, false);
      const rejected = res.body.errors.filter((e: { index?: number }) => e.index !== undefined);
      assert.equal(rejected.length, 1);
      assert.equal(rejected[0].index, 2);
      assert.equal(rejected[0].code, code);
      assert.equal(rejected[0].field, `events[2].${field}`);
      assert.match(rejected[0].message, /events\[2\]/);
      assert.equal(await eventCount(c.id), 0, 'all or nothing');
    });
  }

  it('400 suggests the exact name when a metric differs only in case', async () => {
    const res = await api.post('/v1/ingest/batch', { events: [ev({ metricName: 'API_CALLS' })] });
    assert.equal(res.status, 400);
    assert.match(res.body.errors[0].message, /Did you mean 'api_calls'\?/);
  });

  it('400 lists every rejected event, in index order', async () => {
    const res = await api.post('/v1/ingest/batch', { events: [ev({ quantity: -1 }), ev(), ev({ metricName: 'nope' }), ev({ customerId: 'ghost' })] });
    assert.equal(res.status, 400);
    assert.deepEqual(
      res.body.errors.map((e: { index: number; code: string }) => [e.index, e.code]),
      [
        [0, 'NEGATIVE_QUANTITY'],
        [2, 'UNKNOWN_METRIC'],
        [3, 'UNKNOWN_CUSTOMER'],
      ],
    );
  });

  it('400 names every problem of an event, in field order: unknown customer, quantity -1 and a 2020 date', async () => {
    const res = await api.post('/v1/ingest/batch', { events: [ev(), ev({ customerId: 'ghost', quantity: -1, occurredAt: '2020-03-01T00:00:00Z' })] });
    assert.equal(res.status, 400);
    assert.deepEqual(listed(res), [
      [1, 'UNKNOWN_CUSTOMER', 'events[1].customerId'],
      [1, 'NEGATIVE_QUANTITY', 'events[1].quantity'],
      [1, 'TIMESTAMP_TOO_OLD', 'events[1].occurredAt'],
    ]);
    assert.match(res.body.errors[0].message, /^events\[1\]\.customerId 'ghost'/);
  });

  it('400 names both an unknown customer and an unknown metric of one event, and each shape problem', async () => {
    const res = await api.post('/v1/ingest/batch', {
      events: [
        ev({ customerId: 'ghost', metricName: 'API_CALLS' }),
        ev({ cost: 1, customerId: '', quantity: '5', metadata: { a: { s: 'x'.repeat(501) }, b: Array.from({ length: 51 }, () => 0) } }),
      ],
    });
    assert.equal(res.status, 400);
    assert.deepEqual(listed(res), [
      [0, 'UNKNOWN_CUSTOMER', 'events[0].customerId'],
      [0, 'UNKNOWN_METRIC', 'events[0].metricName'],
      [1, 'INVALID_EVENT', 'events[1].cost'],
      [1, 'INVALID_EVENT', 'events[1].customerId'],
      [1, 'INVALID_QUANTITY', 'events[1].quantity'],
      [1, 'INVALID_METADATA', 'events[1].metadata.a.s'],
      [1, 'INVALID_METADATA', 'events[1].metadata.b'],
    ]);
    assert.match(res.body.errors[1].message, /Did you mean 'api_calls'\?/);
  });

  it('400 lists at most 10 problems of one event', async () => {
    const unknownFields = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`extra${i}`, i]));
    const res = await api.post('/v1/ingest/batch', { events: [ev(unknownFields)] });
    assert.equal(res.status, 400);
    assert.deepEqual(
      listed(res),
      Array.from({ length: 10 }, (_, i) => [0, 'INVALID_EVENT', `events[0].extra${i}`]),
    );
  });

  it('400 lists at most 1,000 problems in all, and every rejected event keeps its first', async () => {
    const bad = () => ev({ customerId: 'ghost', quantity: -1, occurredAt: '2020-03-01T00:00:00Z' });
    // 600 rejected events with 3 problems each: 600 first problems, then 400 more in index order.
    const res = await api.post('/v1/ingest/batch', { events: [...Array.from({ length: 600 }, bad), ...Array.from({ length: 400 }, () => ev())] });
    assert.equal(res.status, 400);
    const errors: Array<{ index: number; code: string }> = res.body.errors;
    assert.equal(errors.length, 1000);
    const perEvent = new Map<number, string[]>();
    for (const e of errors) perEvent.set(e.index, [...(perEvent.get(e.index) ?? []), e.code]);
    assert.deepEqual(
      [...perEvent.keys()],
      Array.from({ length: 600 }, (_, i) => i),
      'every rejected event, in index order',
    );
    assert.deepEqual(perEvent.get(0), ['UNKNOWN_CUSTOMER', 'NEGATIVE_QUANTITY', 'TIMESTAMP_TOO_OLD']);
    assert.deepEqual(perEvent.get(199), ['UNKNOWN_CUSTOMER', 'NEGATIVE_QUANTITY', 'TIMESTAMP_TOO_OLD']);
    assert.deepEqual(perEvent.get(200), ['UNKNOWN_CUSTOMER']);
    assert.deepEqual(perEvent.get(599), ['UNKNOWN_CUSTOMER']);
  });

  it('400 for a body without events, an empty batch, or another field', async () => {
    for (const body of [{}, { events: [] }, { events: [ev()], extra: 1 }, { events: 'x' }, [ev()]]) {
      const res = await api.post('/v1/ingest/batch', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.errors[0].field, /^body/);
    }
  });

  it('413 for more than 1,000 events, with a message that says so', async () => {
    const res = await api.post('/v1/ingest/batch', { events: Array.from({ length: 1001 }, () => ev()) });
    assert.equal(res.status, 413);
    assert.equal(res.body.errors[0].code, 'TOO_MANY_EVENTS');
    assert.match(res.body.errors[0].message, /at most 1000 events/);
  });

  it('the key decides the environment: an sk_live_ key cannot reach a test customer', async () => {
    await metrics(ws.live, 'api_calls');
    const res = await t.seed.client(ws.live.secretKey).post('/v1/ingest/batch', { events: [ev()] });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].code, 'UNKNOWN_CUSTOMER');
  });

  it('403 for a key without the ingest scope; 401 without a key', async () => {
    const key = await t.seed.workspaceKey(ws.test, ['entitlements:read']);
    assert.equal((await t.seed.client(key.token).post('/v1/ingest/batch', { events: [ev()] })).status, 403);
    assert.equal((await t.seed.client(null).post('/v1/ingest/batch', { events: [ev()] })).status, 401);
  });

  it('counts as one request against the rate limit', async () => {
    const res = await api.post('/v1/ingest/batch', { events: Array.from({ length: 10 }, () => ev()) });
    const after1 = Number(res.headers['x-ratelimit-remaining']);
    const res2 = await api.post('/v1/ingest/batch', { events: Array.from({ length: 10 }, () => ev()) });
    assert.equal(Number(res2.headers['x-ratelimit-remaining']), after1 - 1);
  });
});

describe('POST /v1/ingest', () => {
  it('200 stores one event', async () => {
    const c = await t.seed.customer(ws.test);
    const res = await api.post('/v1/ingest', ev({ customerId: c.id, metricName: 'tokens', quantity: 1234 }));
    assert.equal(res.status, 200);
    assert.equal(res.body.accepted, 1);
    const [agg] = await aggregates(c.id);
    assert.equal(agg?.quantitySum, '1234');
  });

  it('400 names the field as body.<field>', async () => {
    const res = await api.post('/v1/ingest', ev({ quantity: -3 }));
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].code, 'NEGATIVE_QUANTITY');
    assert.equal(res.body.errors[0].field, 'body.quantity');
  });
});

describe('POST /v1/ingest/test', () => {
  it('200 says what would happen, for a live key too, and stores nothing', async () => {
    const c = await t.seed.customer(ws.test);
    await api.post('/v1/ingest/batch', { events: [ev({ customerId: c.id, eventId: 'seen-1' })] });
    const before = await eventCount(c.id);
    const res = await api.post('/v1/ingest/test', {
      events: [ev({ customerId: c.id }), ev({ customerId: c.id, eventId: 'seen-1' }), ev({ customerId: c.id, metricName: 'nope' })],
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.object, 'ingest_test_result');
    assert.equal(res.body.environment, 'test');
    assert.equal(res.body.sandbox, true);
    assert.equal(res.body.wouldAccept, false);
    assert.deepEqual(
      res.body.rejected.map((r: { index: number; code: string }) => [r.index, r.code]),
      [[2, 'UNKNOWN_METRIC']],
    );
    const ok = await api.post('/v1/ingest/test', { events: [ev({ customerId: c.id }), ev({ customerId: c.id, eventId: 'seen-1' })] });
    assert.equal(ok.body.wouldAccept, true);
    assert.equal(ok.body.accepted, 1);
    assert.equal(ok.body.duplicates, 1);
    assert.equal(await eventCount(c.id), before, 'nothing stored');
    const live = await t.seed.client(ws.live.secretKey).post('/v1/ingest/test', { events: [ev()] });
    assert.equal(live.status, 200);
    assert.equal(live.body.environment, 'live');
  });
});

describe('admission control', () => {
  it('503 with Retry-After when more ingestion requests are in flight than allowed', async () => {
    const small = await createTestApp({ config: { ingestMaxInFlight: 1 } });
    try {
      const w = await small.seed.workspace();
      await createMetric(small.deps, w.test.ctx, { name: 'api_calls' });
      const c = await small.seed.customer(w.test);
      const body = JSON.stringify({
        events: Array.from({ length: 1000 }, () => ({ customerId: c.id, metricName: 'api_calls', quantity: 1, occurredAt: iso(small.clock.now()) })),
      });
      const client = small.seed.client(w.test.secretKey);
      const responses = await Promise.all(Array.from({ length: 4 }, () => client.post('/v1/ingest/batch', body)));
      const statuses = responses.map((r) => r.status).sort();
      assert.ok(statuses.includes(200), statuses.join(','));
      const refused = responses.filter((r) => r.status === 503);
      assert.ok(refused.length > 0, statuses.join(','));
      assert.equal(refused[0]!.headers['retry-after'], '1');
      assert.equal(refused[0]!.body.errors[0].code, 'SERVICE_UNAVAILABLE');
    } finally {
      await small.close();
    }
  });
});

describe('ingestion with no body at all (no Content-Type either)', () => {
  // The SQLite file database sends batches to the writer's checker thread as text: a missing body
  // once reached it as undefined and was answered 500 (found from outside, issue 38).
  let threaded: TestApp;
  let key: string;
  before(async () => {
    threaded = await createTestApp({ sqliteFile: true });
    key = (await threaded.seed.workspace()).test.secretKey;
  });
  after(() => threaded?.close());

  const cases = [
    { name: 'no headers but the key', headers: {} },
    { name: 'Content-Length: 0', headers: { 'content-length': '0' } },
    { name: 'Content-Type: application/json and no body', headers: { 'content-type': 'application/json' } },
  ];
  for (const url of ['/v1/ingest/batch', '/v1/ingest/test', '/v1/ingest']) {
    for (const c of cases) {
      it(`POST ${url}, ${c.name}: 400 naming the body, in memory and through the writer thread`, async () => {
        for (const [app, secret] of [
          [t, ws.test.secretKey],
          [threaded, key],
        ] as const) {
          const res = await app.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${secret}`, ...c.headers } });
          assert.equal(res.statusCode, 400, res.body);
          const body = res.json<{ errors: Array<{ field?: string }> }>();
          assert.equal(body.errors[0]?.field, 'body', res.body);
        }
      });
    }
  }
});

describe('nested metadata (POST /v1/ingest/batch)', () => {
  // An SQLite file database checks batches on the writer's checker thread (batch-body.ts): the
  // same rules must hold there as on the main thread.
  let threaded: TestApp;
  let threadedEnv: EnvHandle;
  let threadedCustomer: string;
  before(async () => {
    threaded = await createTestApp({ sqliteFile: true });
    threadedEnv = (await threaded.seed.workspace()).test;
    await createMetric(threaded.deps, threadedEnv.ctx, { name: 'api_calls' });
    threadedCustomer = (await threaded.seed.customer(threadedEnv)).id;
  });
  after(() => threaded?.close());

  const nested = {
    request: { method: 'POST', route: '/v1/chat', headers: { 'user-agent': 'curl/8', accept: ['application/json', 'text/plain'] } },
    model: { name: 'large', tokens: { in: 1200, out: 80 }, cached: false },
    tags: ['beta', 2, null, { region: 'eu' }, []],
    'key.with.dots': 'kept as a key',
    empty: {},
  };

  it('200 stores nested objects and arrays intact, read back through the report and as stored, in memory and through the writer thread', async () => {
    const apps: Array<[TestApp, EnvHandle, string]> = [
      [t, ws.test, (await t.seed.customer(ws.test)).id],
      [threaded, threadedEnv, threadedCustomer],
    ];
    for (const [app, env, cid] of apps) {
      const client = app.seed.client(env.secretKey);
      const occurredAt = iso(app.clock.now() - 60_000);
      const res = await client.post('/v1/ingest/batch', {
        events: [
          { customerId: cid, metricName: 'api_calls', quantity: 2, occurredAt, metadata: nested },
          { customerId: cid, metricName: 'api_calls', quantity: 3, occurredAt, metadata: { request: { method: 'GET' } } },
        ],
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.accepted, 2);
      const report = await client.get(`/api/v1/usage?customerId=${cid}&groupBy=request.method`);
      assert.equal(report.status, 200, JSON.stringify(report.body));
      assert.deepEqual(
        report.body.data.map((r: { groupValue: string; sum: string; count: number }) => [r.groupValue, r.sum, r.count]),
        [
          ['GET', '3', 1],
          ['POST', '2', 1],
        ],
      );
      const deep = await client.get(`/api/v1/usage?customerId=${cid}&groupBy=model.tokens.in`);
      assert.deepEqual(
        deep.body.data.map((r: { groupValue: string | null; count: number }) => [r.groupValue, r.count]),
        [
          [null, 1],
          ['1200', 1],
        ],
      );
      const stored = await readCustomerEvents(app.deps.db, env, cid, 0, app.clock.now() + 1, true);
      assert.deepEqual(
        stored.map((e) => JSON.parse(e.metadata!) as unknown),
        [nested, { request: { method: 'GET' } }],
      );
    }
  });

  const k = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
  const bounds: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['objects 6 levels deep', { request: { headers: { a: { b: { c: {} } } } } }, 'metadata.request.headers.a.b.c', /at most 5 levels deep/],
    ['arrays 6 levels deep', { tags: [[[[[1]]]]] }, 'metadata.tags[0][0][0][0]', /at most 5 levels deep/],
    ['51 keys in a nested object', { request: { headers: k(51) } }, 'metadata.request.headers', /at most 50 keys/],
    ['51 items in an array', { tags: Array.from({ length: 51 }, () => 'x') }, 'metadata.tags', /at most 50 items/],
    ['a nested key of 41 characters', { request: { ['h'.repeat(41)]: 1 } }, `metadata.request.${'h'.repeat(40)}…`, /longer than 40 characters/],
    ['a nested string of 501 characters', { request: { headers: { ua: 'x'.repeat(501) } } }, 'metadata.request.headers.ua', /at most 500 characters/],
    ['257 values in all', { a: k(49), b: k(49), c: k(49), d: k(49), e: k(49), f: k(10) }, 'metadata.f.k5', /at most 256 values in all/],
    [
      'more than 32,768 characters of keys and strings',
      Object.fromEntries(Array.from({ length: 3 }, (_, g) => [`g${g}`, Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`s${i}`, 'x'.repeat(500)]))])),
      'metadata.g2.s15',
      /32,768 characters/,
    ],
  ];
  for (const [what, metadata, field, bound] of bounds) {
    it(`400 INVALID_METADATA for ${what}, naming the path and the bound, in memory and through the writer thread`, async () => {
      for (const [app, env, cid] of [
        [t, ws.test, customerId],
        [threaded, threadedEnv, threadedCustomer],
      ] as const) {
        const occurredAt = iso(app.clock.now() - 60_000);
        const res = await app.seed.client(env.secretKey).post('/v1/ingest/batch', {
          events: [
            { customerId: cid, metricName: 'api_calls', quantity: 1, occurredAt },
            { customerId: cid, metricName: 'api_calls', quantity: 1, occurredAt, metadata },
          ],
        });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.deepEqual(listed(res), [[1, 'INVALID_METADATA', `events[1].${field}`]]);
        assert.ok(res.body.errors[0].message.startsWith(`events[1].${field} `), res.body.errors[0].message);
        assert.match(res.body.errors[0].message, bound);
      }
    });
  }
});
