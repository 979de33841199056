import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backend, createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';
import { createMetric } from '../metrics/create-metric.js';
import { checkEntitlement } from '../entitlements/check-entitlement.js';
import { reportUsage } from './usage-report.js';

let t: TestApp;
let ws: TenantHandle;
let api: Client;
let a: string;
let b: string;
let c: string;

before(async () => {
  t = await createTestApp();
  t.clock.set(Date.UTC(2026, 1, 10, 12)); // February 10th
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
  for (const name of ['api_calls', 'revenue']) await createMetric(t.deps, ws.test.ctx, { name });
  a = (await t.seed.customer(ws.test, { externalId: 'a-corp' })).id;
  b = (await t.seed.customer(ws.test)).id;
  c = (await t.seed.customer(ws.test)).id;
  const e = (customerId: string, metricName: string, quantity: number, occurredAt: string, metadata?: Record<string, unknown>) => ({
    customerId,
    metricName,
    quantity,
    occurredAt,
    ...(metadata ? { metadata } : {}),
  });
  const res = await api.post('/v1/ingest/batch', {
    events: [
      e(a, 'api_calls', 1, '2026-01-20T10:00:00Z', { method: 'GET' }),
      e(a, 'api_calls', 1, '2026-02-01T10:00:00Z', { method: 'GET' }),
      e(a, 'api_calls', 1, '2026-02-02T10:00:00Z', { method: 'POST' }),
      e(a, 'api_calls', 1, '2026-02-03T10:00:00Z'),
      e(a, 'revenue', 19.99, '2026-02-03T10:00:00Z', { method: 'POST' }),
      e(a, 'revenue', 0.01, '2026-02-04T10:00:00Z', { method: 'POST' }),
      e(b, 'api_calls', 7, '2026-02-05T10:00:00Z', { method: 'GET' }),
      // January only, so the current month's rows above stay as they are.
      e(c, 'api_calls', 2, '2026-01-15T10:00:00Z', { method: true }),
      e(c, 'api_calls', 3, '2026-01-16T10:00:00Z', { method: 12.5 }),
      e(c, 'api_calls', 4, '2026-01-17T10:00:00Z', { method: null }),
      e(c, 'api_calls', 5, '2026-01-18T10:00:00Z', { method: false }),
    ],
  });
  assert.equal(res.status, 200);
});
after(() => t.close());

const who = (id: unknown) => (id === a ? 'a' : id === b ? 'b' : 'c');
const rows = (res: { body: { data: Array<Record<string, unknown>> } }) =>
  res.body.data.map((r) => [who(r.customerId), r.metricName, String(r.periodStart).slice(0, 7), r.groupValue, r.sum, r.count]);

describe('GET /api/v1/usage', () => {
  it('200 sums per customer, metric and month for the current month by default, exactly', async () => {
    const res = await api.get('/api/v1/usage');
    assert.equal(res.status, 200);
    assert.equal(res.body.object, 'list');
    const got = rows(res).map((r) => [r[0], r[1], r[2], Number(r[4]) === Number(r[4]) ? String(Number(r[4])) : r[4], r[5]]);
    assert.deepEqual(
      got.sort(),
      [
        ['a', 'api_calls', '2026-02', '3', 3],
        ['a', 'revenue', '2026-02', '20', 2],
        ['b', 'api_calls', '2026-02', '7', 1],
      ].sort(),
    );
  });

  it('200 covers every month of from..to and filters by customer (externalId) and metric', async () => {
    const res = await api.get('/api/v1/usage?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&customerId=a-corp&metricName=api_calls');
    assert.deepEqual(
      rows(res).map((r) => [r[2], r[5]]),
      [
        ['2026-01', 1],
        ['2026-02', 3],
      ],
    );
    assert.equal(res.body.data[0].periodEnd, '2026-02-01T00:00:00.000Z');
  });

  it('200 splits by a metadata key with groupBy, exact sums, null for events without it', async () => {
    const res = await api.get('/api/v1/usage?customerId=a-corp&groupBy=method');
    const got = res.body.data.map((r: Record<string, unknown>) => [r.metricName, r.groupValue, Number(r.sum), r.count]);
    assert.deepEqual(
      got.sort(),
      [
        ['api_calls', 'GET', 1, 1],
        ['api_calls', 'POST', 1, 1],
        ['api_calls', null, 1, 1],
        ['revenue', 'POST', 20, 2],
      ].sort(),
    );
    const revenue = res.body.data.find((r: Record<string, unknown>) => r.metricName === 'revenue');
    assert.match(revenue.sum, /^20(\.0+)?$/, 'no float error such as 19.999999999');
  });

  it('200 pages with limit and startingAfter, each row once', async () => {
    const first = await api.get('/api/v1/usage?limit=2');
    assert.equal(first.body.data.length, 2);
    assert.equal(first.body.hasMore, true);
    const second = await api.get(`/api/v1/usage?limit=2&startingAfter=${first.body.data[1].id}`);
    assert.equal(second.body.data.length, 1);
    assert.equal(second.body.hasMore, false);
    const ids = [...first.body.data, ...second.body.data].map((r: { id: string }) => r.id);
    assert.equal(new Set(ids).size, 3);
  });

  const JAN_FEB = 'from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z';
  // Customers are ordered by id, and ids are time-sortable: a, b, c in the order they were made.
  const byMonthCustomerMetricValue = [
    ['a', 'api_calls', '2026-01', 'GET', 1, 1],
    ['c', 'api_calls', '2026-01', null, 4, 1],
    ['c', 'api_calls', '2026-01', '12.5', 3, 1],
    ['c', 'api_calls', '2026-01', 'false', 5, 1],
    ['c', 'api_calls', '2026-01', 'true', 2, 1],
    ['a', 'api_calls', '2026-02', null, 1, 1],
    ['a', 'api_calls', '2026-02', 'GET', 1, 1],
    ['a', 'api_calls', '2026-02', 'POST', 1, 1],
    ['a', 'revenue', '2026-02', 'POST', 20, 2],
    ['b', 'api_calls', '2026-02', 'GET', 7, 1],
  ];
  /** customer, metric, month, group value, sum, count */
  const brief = (res: { body: { data: Array<Record<string, unknown>> } }) => rows(res).map((r) => [r[0], r[1], r[2], r[3], Number(r[4]), r[5]]);

  it('200 groupBy orders rows by month, customer, metric and value (null first), each value as text on both backends', async () => {
    const res = await api.get(`/api/v1/usage?${JAN_FEB}&groupBy=method`);
    assert.equal(res.status, 200);
    assert.deepEqual(brief(res), byMonthCustomerMetricValue);
    assert.equal(res.body.hasMore, false);
  });

  it('200 groupBy pages one row at a time across customers and months: every row once, in order', async () => {
    const seen: unknown[] = [];
    let after = '';
    for (let page = 0; page < 20; page++) {
      const res = await api.get(`/api/v1/usage?${JAN_FEB}&groupBy=method&limit=1${after}`);
      assert.equal(res.status, 200);
      seen.push(...brief(res));
      if (!res.body.hasMore) break;
      after = `&startingAfter=${res.body.data[0].id}`;
    }
    assert.deepEqual(seen, byMonthCustomerMetricValue);
  });

  it('200 groupBy pages of three with customer and metric filters', async () => {
    const first = await api.get(`/api/v1/usage?${JAN_FEB}&groupBy=method&customerId=${c}&limit=3`);
    assert.deepEqual(brief(first), byMonthCustomerMetricValue.slice(1, 4));
    assert.equal(first.body.hasMore, true);
    const second = await api.get(`/api/v1/usage?${JAN_FEB}&groupBy=method&customerId=${c}&limit=3&startingAfter=${first.body.data[2].id}`);
    assert.deepEqual(brief(second), byMonthCustomerMetricValue.slice(4, 5));
    assert.equal(second.body.hasMore, false);
    const revenue = await api.get(`/api/v1/usage?${JAN_FEB}&groupBy=method&metricName=revenue`);
    assert.deepEqual(brief(revenue), [['a', 'revenue', '2026-02', 'POST', 20, 2]]);
  });

  it('200 without groupBy pages one row at a time across customers and months', async () => {
    const seen: unknown[] = [];
    let after = '';
    for (let page = 0; page < 20; page++) {
      const res = await api.get(`/api/v1/usage?${JAN_FEB}&limit=1${after}`);
      seen.push(...rows(res).map((r) => [r[0], r[1], r[2], r[5]]));
      if (!res.body.hasMore) break;
      after = `&startingAfter=${res.body.data[0].id}`;
    }
    assert.deepEqual(seen, [
      ['a', 'api_calls', '2026-01', 1],
      ['c', 'api_calls', '2026-01', 4],
      ['a', 'api_calls', '2026-02', 3],
      ['a', 'revenue', '2026-02', 2],
      ['b', 'api_calls', '2026-02', 1],
    ]);
  });

  it('200 a cursor from before the range starts at the range', async () => {
    for (const groupBy of ['', '&groupBy=method']) {
      const january = await api.get(`/api/v1/usage?${JAN_FEB}&limit=1${groupBy}`);
      const res = await api.get(`/api/v1/usage?from=2026-02-01T00:00:00Z&limit=1${groupBy}&startingAfter=${january.body.data[0].id}`);
      assert.deepEqual(
        rows(res).map((r) => [r[0], r[1], r[2]]),
        [['a', 'api_calls', '2026-02']],
      );
    }
  });

  it('groupBy gives the same rows whatever the number of events read at a time', async () => {
    const q = { from: '2026-01-01T00:00:00Z', to: '2026-03-01T00:00:00Z', groupBy: 'method' };
    const whole = await reportUsage(t.deps, ws.test.ctx, q);
    for (const eventsPerRead of [1, 2, 3]) assert.deepEqual(await reportUsage(t.deps, ws.test.ctx, q, { eventsPerRead }), whole);
  });

  it(
    'a groupBy report lets other requests run between its reads: an entitlement check started after it answers first',
    { skip: backend === 'postgres' ? 'SQLite only: on PostgreSQL queries do not run on the main thread' : false },
    async () => {
      const product = await t.seed.product(ws.test);
      const done: string[] = [];
      const q = { from: '2026-01-01T00:00:00Z', to: '2026-03-01T00:00:00Z', groupBy: 'method' };
      const report = reportUsage(t.deps, ws.test.ctx, q, { eventsPerRead: 1 }).then(() => done.push('report'));
      const check = checkEntitlement(t.deps, ws.test.ctx, a, product.id).then(() => done.push('check'));
      await Promise.all([report, check]);
      assert.deepEqual(done, ['check', 'report']);
    },
  );

  it('400 for a groupBy that is not a dotted path of [A-Za-z0-9_-] keys, a bad cursor, or to before from', async () => {
    for (const groupBy of ['a..b', 'a.b.c.d.e.f', '.a', 'items[0]', '$.a', 'a b']) {
      const res = await api.get(`/api/v1/usage?groupBy=${encodeURIComponent(groupBy)}`);
      assert.equal(res.status, 400, groupBy);
      assert.equal(res.body.errors[0].field, 'query.groupBy', groupBy);
    }
    assert.equal((await api.get("/api/v1/usage?groupBy=x')--")).status, 400);
    assert.equal((await api.get('/api/v1/usage?startingAfter=nonsense')).status, 400);
    assert.equal((await api.get('/api/v1/usage?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z')).status, 400);
  });

  it('404 for an unknown customer; another workspace sees none of it', async () => {
    assert.equal((await api.get('/api/v1/usage?customerId=ghost')).status, 404);
    const other = await t.seed.workspace();
    const res = await t.seed.client(other.test.secretKey).get('/api/v1/usage');
    assert.deepEqual(res.body.data, []);
  });
});

describe('GET /api/v1/usage by a dotted metadata path (groupBy, filterBy)', () => {
  let napi: Client;
  let d: string;
  let e: string;
  before(async () => {
    const nws = await t.seed.workspace();
    napi = t.seed.client(nws.test.secretKey);
    await createMetric(t.deps, nws.test.ctx, { name: 'api_calls' });
    d = (await t.seed.customer(nws.test)).id;
    e = (await t.seed.customer(nws.test)).id;
    const ev = (customerId: string, quantity: number, metadata?: unknown) => ({
      customerId,
      metricName: 'api_calls',
      quantity,
      occurredAt: '2026-02-05T10:00:00Z',
      ...(metadata === undefined ? {} : { metadata }),
    });
    const res = await napi.post('/v1/ingest/batch', {
      events: [
        ev(d, 1, { request: { method: 'GET', route: '/a' } }),
        ev(d, 2, { request: { method: 'GET', route: '/b' } }),
        ev(d, 4, { request: { method: 'POST', route: '/a' } }),
        ev(d, 8, { request: { method: 'GET' } }),
        // Nothing at request.method: a string on the way, an object or an array there, a key
        // with a dot (not a path), an array on the way (items are not addressable), no metadata.
        ev(d, 16, { request: 'GET' }),
        ev(d, 32, { request: { method: { verb: 'GET' } } }),
        ev(d, 64, { request: { method: ['GET'] } }),
        ev(d, 128, { 'request.method': 'GET' }),
        ev(d, 256, { items: [{ method: 'GET' }] }),
        ev(d, 512),
        ev(d, 1024, { request: { method: true } }),
        ev(e, 2048, { request: { method: 'GET', route: '/a' } }),
      ],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });

  const whom = (id: unknown) => (id === d ? 'd' : id === e ? 'e' : String(id));
  const got = (res: { body: { data: Array<Record<string, unknown>> } }) =>
    res.body.data.map((r) => ('groupValue' in r ? [whom(r.customerId), r.groupValue, r.sum, r.count] : [whom(r.customerId), r.sum, r.count]));

  it('200 groupBy=request.method splits by the nested value as text; nothing, an object, an array, null or a dotted key group under null', async () => {
    const res = await napi.get(`/api/v1/usage?customerId=${d}&groupBy=request.method`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(got(res), [
      ['d', null, '1008', 6],
      ['d', 'GET', '11', 3],
      ['d', 'POST', '4', 1],
      ['d', 'true', '1024', 1],
    ]);
  });

  it('200 filterBy=request.method&filterValue=GET with groupBy=request.route counts only the GET events of each customer', async () => {
    const res = await napi.get('/api/v1/usage?filterBy=request.method&filterValue=GET&groupBy=request.route');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      got(res).sort(),
      [
        ['d', null, '8', 1],
        ['d', '/a', '1', 1],
        ['d', '/b', '2', 1],
        ['e', '/a', '2048', 1],
      ].sort(),
    );
  });

  it('200 filterBy alone gives one row per customer, metric and month of the matching events, without groupValue', async () => {
    const get = await napi.get('/api/v1/usage?filterBy=request.method&filterValue=GET');
    assert.deepEqual(
      got(get).sort(),
      [
        ['d', '11', 3],
        ['e', '2048', 1],
      ].sort(),
    );
    // A boolean matches its text; a value nobody sent matches nothing (the months are read, no row).
    assert.deepEqual(got(await napi.get('/api/v1/usage?filterBy=request.method&filterValue=true')), [['d', '1024', 1]]);
    assert.deepEqual(got(await napi.get('/api/v1/usage?filterBy=request.method&filterValue=DELETE')), []);
  });

  it('200 a path through an array finds nothing: items.0.method groups every event under null', async () => {
    const res = await napi.get(`/api/v1/usage?customerId=${d}&groupBy=items.0.method`);
    assert.deepEqual(got(res), [['d', null, '2047', 11]]);
  });

  it('200 pages a filtered, grouped report one row at a time: every row once, in order', async () => {
    const q = 'filterBy=request.method&filterValue=GET&groupBy=request.route';
    const whole = (await napi.get(`/api/v1/usage?${q}`)).body.data;
    const paged: unknown[] = [];
    let cursor = '';
    for (let i = 0; i < 10; i++) {
      const page = await napi.get(`/api/v1/usage?${q}&limit=1${cursor}`);
      paged.push(...page.body.data);
      if (!page.body.hasMore) break;
      cursor = `&startingAfter=${page.body.data[0].id}`;
    }
    assert.deepEqual(paged, whole);
  });

  it('400 for filterBy without filterValue and the other way round, naming the missing one, and for a filterBy that is no dotted path', async () => {
    const missingValue = await napi.get('/api/v1/usage?filterBy=request.method');
    assert.equal(missingValue.status, 400);
    assert.equal(missingValue.body.errors[0].field, 'query.filterValue');
    const missingPath = await napi.get('/api/v1/usage?filterValue=GET');
    assert.equal(missingPath.status, 400);
    assert.equal(missingPath.body.errors[0].field, 'query.filterBy');
    for (const filterBy of ['request..method', "x')--", 'items[0]']) {
      const res = await napi.get(`/api/v1/usage?filterBy=${encodeURIComponent(filterBy)}&filterValue=GET`);
      assert.equal(res.status, 400, filterBy);
      assert.equal(res.body.errors[0].field, 'query.filterBy', filterBy);
    }
  });
});
