import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';
import { createMetric } from '../metrics/create-metric.js';
import { dayStartOf } from './daily-usage.js';

let t: TestApp;
let ws: TenantHandle;
let api: Client;
let a: string;
let b: string;

before(async () => {
  t = await createTestApp();
  t.clock.set(Date.UTC(2026, 1, 10, 12));
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
  for (const name of ['api_calls', 'tokens']) await createMetric(t.deps, ws.test.ctx, { name });
  a = (await t.seed.customer(ws.test, { externalId: 'a-corp' })).id;
  b = (await t.seed.customer(ws.test)).id;
  const e = (customerId: string, metricName: string, quantity: number, occurredAt: string) => ({ customerId, metricName, quantity, occurredAt });
  const res = await api.post('/v1/ingest/batch', {
    events: [
      e(a, 'api_calls', 1, '2026-02-01T00:00:00Z'),
      e(a, 'api_calls', 2, '2026-02-01T23:59:59Z'),
      e(b, 'api_calls', 4, '2026-02-01T12:00:00Z'),
      e(a, 'api_calls', 1, '2026-02-02T00:00:00Z'),
      e(a, 'tokens', 0.1, '2026-02-02T01:00:00Z'),
      e(a, 'tokens', 0.2, '2026-02-02T02:00:00Z'),
      e(b, 'tokens', 1000, '2026-02-09T10:00:00Z'),
      e(a, 'api_calls', 9, '2026-01-31T23:59:59Z'),
    ],
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  // The live environment's usage never shows in test.
  const live = t.seed.client(ws.live.secretKey);
  for (const name of ['api_calls']) await createMetric(t.deps, ws.live.ctx, { name });
  const liveCustomer = (await t.seed.customer(ws.live)).id;
  assert.equal((await live.post('/v1/ingest/batch', { events: [e(liveCustomer, 'api_calls', 100, '2026-02-01T10:00:00Z')] })).status, 200);
});
after(() => t.close());

const rows = (res: { body: { data: Array<{ date: string; metricName: string; sum: string; count: number }> } }) =>
  res.body.data.map((r) => [r.date, r.metricName, r.sum, r.count]);

describe('GET /api/v1/usage/daily', () => {
  it('200 sums every customer per UTC day and metric, exactly, days inclusive, in order', async () => {
    const res = await api.get('/api/v1/usage/daily?from=2026-02-01&to=2026-02-09');
    assert.equal(res.status, 200);
    assert.equal(res.body.object, 'list');
    assert.equal(res.body.hasMore, false);
    assert.equal(res.body.data[0].object, 'usage_day');
    assert.deepEqual(rows(res), [
      ['2026-02-01', 'api_calls', '7', 3],
      ['2026-02-02', 'api_calls', '1', 1],
      ['2026-02-02', 'tokens', '0.3', 2],
      ['2026-02-09', 'tokens', '1000', 1],
    ]);
  });

  it('200 for one customer (by id or externalId) and one metric', async () => {
    const byExternal = await api.get('/api/v1/usage/daily?from=2026-01-31&to=2026-02-02&customerId=a-corp&metricName=api_calls');
    assert.deepEqual(rows(byExternal), [
      ['2026-01-31', 'api_calls', '9', 1],
      ['2026-02-01', 'api_calls', '3', 2],
      ['2026-02-02', 'api_calls', '1', 1],
    ]);
    const byId = await api.get(`/api/v1/usage/daily?from=2026-02-01&to=2026-02-01&customerId=${b}`);
    assert.deepEqual(rows(byId), [['2026-02-01', 'api_calls', '4', 1]]);
  });

  it('200 an empty list for days without usage', async () => {
    const res = await api.get('/api/v1/usage/daily?from=2025-12-01&to=2025-12-31');
    assert.deepEqual(res.body.data, []);
  });

  it('400 names the bad day or range', async () => {
    for (const [query, field] of [
      ['from=2026-02-30&to=2026-03-01', 'query.from'],
      ['from=2026-02-01&to=2026-1-5', 'query.to'],
      ['from=2026-02-05&to=2026-02-01', 'query.to'],
      ['from=2026-01-01&to=2026-04-04', 'query.to'],
      ['to=2026-02-01', 'query.from'],
    ] as const) {
      const res = await api.get(`/api/v1/usage/daily?${query}`);
      assert.equal(res.status, 400, query);
      assert.ok(
        res.body.errors.some((e: { field?: string }) => e.field === field),
        `${query}: ${JSON.stringify(res.body.errors)}`,
      );
    }
    assert.equal((await api.get('/api/v1/usage/daily?from=2026-01-01&to=2026-04-03')).status, 200, '93 days is the most');
  });

  it('404 for a customer of another workspace', async () => {
    const other = await t.seed.workspace();
    const theirs = (await t.seed.customer(other.test)).id;
    const res = await api.get(`/api/v1/usage/daily?from=2026-02-01&to=2026-02-02&customerId=${theirs}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].field, 'query.customerId');
  });
});

describe('dayStartOf', () => {
  const cases: Array<[string, number | null]> = [
    ['2026-02-01', Date.UTC(2026, 1, 1)],
    ['2024-02-29', Date.UTC(2024, 1, 29)],
    ['2026-02-29', null],
    ['2026-13-01', null],
    ['2026-00-10', null],
    ['2026-2-01', null],
    ['2026-02-01T00', null],
  ];
  for (const [day, expected] of cases) it(`${day} -> ${expected}`, () => assert.equal(dayStartOf(day), expected));
});
