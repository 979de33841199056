import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { backend, createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';
import { createMetric } from '../metrics/create-metric.js';

// The embedded default writes usage on a writer thread with its own connection to the file; these
// tests run the ingestion rules through that path (the rest of the suite uses SQLite in memory).
const skip = backend === 'sqlite' ? false : 'the writer thread serves the SQLite file only (this is the PostgreSQL pass)';

let t: TestApp;
let ws: TenantHandle;
let api: Client;
const iso = (ms: number) => new Date(ms).toISOString();

describe('usage through the SQLite writer thread', { skip }, () => {
  before(async () => {
    t = await createTestApp({ sqliteFile: true });
    ws = await t.seed.workspace();
    api = t.seed.client(ws.test.secretKey);
    await createMetric(t.deps, ws.test.ctx, { name: 'api_calls' });
  });
  after(() => t.close());

  it(
    'the writer thread runs at USAGE_WRITER_NICE, the rest of the process at its own priority',
    { skip: existsSync('/proc/self/task') ? false : 'reads thread priorities from /proc (Linux only)' },
    async () => {
      await t.composition.usage.warm();
      // Field 19 of /proc/<pid>/task/<tid>/stat is the thread's nice value (after the ")" that ends its name).
      const nices = readdirSync('/proc/self/task').map((tid) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]));
      // The writer and the batch checker.
      assert.equal(nices.filter((n) => n === t.deps.config.usageWriterNice).length, 2, `thread nice values: ${nices.join(',')}`);
      assert.equal(nices[0], getPriority(), 'the main thread keeps the priority the process was started with');
    },
  );

  const ev = (customerId: string, over: Record<string, unknown> = {}) => ({
    customerId,
    metricName: 'api_calls',
    quantity: 2,
    occurredAt: iso(t.clock.now() - 1000),
    ...over,
  });
  const stored = async (customerId: string) => (await t.deps.db.selectFrom('usageEvents').select('seq').where('customerId', '=', customerId).execute()).length;

  it('200 after the writer thread committed: events and aggregates are readable at once', async () => {
    const c = await t.seed.customer(ws.test);
    const res = await api.post('/v1/ingest/batch', { events: Array.from({ length: 1000 }, () => ev(c.id)) });
    assert.equal(res.status, 200);
    assert.equal(res.body.accepted, 1000);
    assert.equal(await stored(c.id), 1000);
    const agg = await t.deps.db.selectFrom('usageAggregates').selectAll().where('customerId', '=', c.id).executeTakeFirstOrThrow();
    assert.equal(agg.quantitySum, '2000');
    const audit = await t.deps.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('eventType', '=', 'usage.batch_ingested')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    assert.equal(audit.createdAt, t.clock.now(), 'the thread writes at the caller’s clock');
  });

  it('concurrent batches with one X-Idempotency-Key ingest once; another body under it gets 422', async () => {
    const c = await t.seed.customer(ws.test);
    const body = { events: [ev(c.id)] };
    const res = await Promise.all(Array.from({ length: 6 }, () => api.post('/v1/ingest/batch', body, { 'x-idempotency-key': 'thread-1' })));
    assert.ok(
      res.every((r) => r.status === 200 || r.status === 503),
      res.map((r) => r.status).join(','),
    );
    assert.equal(await stored(c.id), 1);
    const other = await api.post('/v1/ingest/batch', { events: [ev(c.id, { quantity: 3 })] }, { 'x-idempotency-key': 'thread-1' });
    assert.equal(other.status, 422);
    assert.equal(other.body.errors[0].code, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('eventIds are deduplicated across batches', async () => {
    const c = await t.seed.customer(ws.test);
    await api.post('/v1/ingest/batch', { events: [ev(c.id, { eventId: 'x1' })] });
    const again = await api.post('/v1/ingest/batch', { events: [ev(c.id, { eventId: 'x1' }), ev(c.id, { eventId: 'x2' })] });
    assert.deepEqual([again.body.accepted, again.body.duplicates], [1, 1]);
    assert.equal(await stored(c.id), 2);
  });

  it('a batch is checked on the checker thread as on the main thread: every problem of every event, nothing stored', async () => {
    const c = await t.seed.customer(ws.test);
    const res = await api.post('/v1/ingest/batch', {
      events: [ev(c.id), ev('cus_nobody', { quantity: -1 }), ev(c.id, { metricName: 'API_calls' })],
    });
    assert.equal(res.status, 400);
    assert.deepEqual(
      res.body.errors.map((e: { index: number; field: string; code: string }) => `${e.index} ${e.field} ${e.code}`),
      ['1 events[1].customerId UNKNOWN_CUSTOMER', '1 events[1].quantity NEGATIVE_QUANTITY', '2 events[2].metricName UNKNOWN_METRIC'],
    );
    assert.match(res.body.errors[2].message, /Did you mean 'api_calls'/);
    assert.equal(await stored(c.id), 0);
  });

  it('the checker thread refuses what the body parser refuses: bad JSON, NUL, deep nesting, a bad envelope', async () => {
    const post = (body: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/ingest/batch',
        headers: { authorization: `Bearer ${ws.test.secretKey}`, 'content-type': 'application/json' },
        payload: body,
      });
    const cases: Array<[string, number, string, string | undefined]> = [
      ['{"events": [', 400, 'INVALID_JSON', undefined],
      ['{"events": [{"customerId": "a\\u0000b"}]}', 400, 'VALIDATION_FAILED', 'body.events.0.customerId'],
      [`{"events": [{"metadata": ${'['.repeat(100)}${']'.repeat(100)}}]}`, 400, 'INVALID_JSON', undefined],
      ['{"__proto__": {"x": 1}}', 400, 'INVALID_JSON', undefined],
      ['', 400, 'VALIDATION_FAILED', 'body'],
      ['[]', 400, 'VALIDATION_FAILED', 'body'],
      ['{"events": [], "more": 1}', 400, 'VALIDATION_FAILED', 'body.more'],
      ['{"events": []}', 400, 'VALIDATION_FAILED', 'body.events'],
      [JSON.stringify({ events: Array.from({ length: 1001 }, () => ({})) }), 413, 'TOO_MANY_EVENTS', 'body.events'],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await post(body);
      assert.equal(res.statusCode, status, body.slice(0, 60));
      const err = res.json().errors[0];
      assert.equal(err.code, code, body.slice(0, 60));
      if (field !== undefined) assert.equal(err.field, field, body.slice(0, 60));
    }
  });

  it('the main connection keeps working (creates, reads) while the thread writes', async () => {
    const c = await t.seed.customer(ws.test);
    const writes = Array.from({ length: 5 }, () => api.post('/v1/ingest/batch', { events: Array.from({ length: 500 }, () => ev(c.id)) }));
    const created = await api.post('/api/v1/customers', { name: 'during writes' });
    const results = await Promise.all(writes);
    assert.equal(created.status, 200);
    const ok = results.filter((r) => r.status === 200).length;
    assert.equal(await stored(c.id), ok * 500);
  });
});
