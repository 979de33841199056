// The forwarder against the real server built from this repository (an app on an in-memory
// SQLite database, or PostgreSQL in the suite's second pass, listening on 127.0.0.1), with a
// frozen clock, and a tiny loopback proxy for the faults. No sleep is real: it is injected.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createTestApp, type TestApp } from '../../server/test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../server/test/helpers/seed.js';
import { createMetric } from '../../server/src/modules/metrics/create-metric.js';
import { createHandler, type HandlerOptions } from '../src/handler.js';
import { createSdkBatchSender } from '../src/sdk-batch-sender.js';
import { DEFAULT_MAPPING } from '../src/map-access-log.js';
import { ForwarderError, type LogEvent } from '../src/types.js';
import { accessLogLine, sampleDir, subscriptionEvent } from './fixtures.js';
import { FaultProxy, type Fault } from './fault-proxy.js';

let t: TestApp;
let ws: TenantHandle;
let api: Client;
let url: string;
let nextId = 0;

/** A log event a minute before the frozen now, with a fresh CloudWatch id. */
const logEvent = (line: Record<string, string> | string, at = t.clock.now() - 60_000): LogEvent => ({
  id: `3758594847563584930038392764857584920001234567890${String(++nextId).padStart(6, '0')}`,
  timestamp: at,
  message: typeof line === 'string' ? line : JSON.stringify(line),
});

const slept: number[] = [];
const handlerFor = (base: string, over: Partial<HandlerOptions> = {}) =>
  createHandler({
    config: { url: base, apiKey: ws.test.secretKey, mapping: DEFAULT_MAPPING },
    sender: createSdkBatchSender({ url: base, apiKey: ws.test.secretKey, sleep: async (ms) => void slept.push(ms) }),
    log: () => undefined,
    ...over,
  });

async function usage(customerId: string, groupBy?: string) {
  const res = await api.get(`/api/v1/usage?customerId=${customerId}&metricName=api_calls${groupBy ? `&groupBy=${groupBy}` : ''}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as Array<{ customerId: string; sum: string; count: number; groupValue?: string | null }>;
}

before(async () => {
  t = await createTestApp();
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
  await createMetric(t.deps, ws.test.ctx, { name: 'api_calls' });
  // API Gateway API key ids as the customers' externalIds: what the consumer field carries.
  for (const externalId of ['key-acme', 'key-globex', 'key-twice', 'key-skips', 'key-refused', 'key-retry', 'key-big', 'key-cli']) {
    await t.seed.customer(ws.test, { externalId });
  }
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
after(() => t.close());

describe('handler(event) against a real server', () => {
  it('200: a subscription event is decoded and ingested, and its events are visible through GET /api/v1/usage', async () => {
    const at = Date.UTC(2026, 0, 15, 11, 58, 30, 123);
    const event = subscriptionEvent([
      logEvent(accessLogLine({ apiKeyId: 'key-acme', path: '/prod/pets/1' }), at),
      logEvent(accessLogLine({ apiKeyId: 'key-acme', path: '/prod/pets/2', httpMethod: 'POST', status: '201' }), at + 1),
      logEvent(accessLogLine({ apiKeyId: 'key-globex' }), at + 2),
    ]);
    const summary = await handlerFor(url)(event);
    assert.deepEqual(summary, { logEvents: 3, sent: 3, accepted: 3, duplicates: 0, skipped: {}, rejected: {}, controlMessages: 0, batches: 1 });
    const [acme] = await usage('key-acme');
    assert.equal(acme?.sum, '2');
    assert.deepEqual(
      (await usage('key-acme', 'path')).map((r) => [r.groupValue, r.count]),
      [
        ['/prod/pets/1', 1],
        ['/prod/pets/2', 1],
      ],
    );
    assert.equal((await usage('key-globex'))[0]?.sum, '1');
    const rows = await t.deps.db
      .selectFrom('usageEvents')
      .select(['occurredAt', 'metadata', 'eventId'])
      .where('workspaceId', '=', ws.workspaceId)
      .orderBy('occurredAt')
      .execute();
    assert.equal(rows[0]?.occurredAt, at, 'occurredAt is the log event time, not the time of delivery');
    const meta = typeof rows[1]?.metadata === 'string' ? JSON.parse(rows[1].metadata) : rows[1]?.metadata;
    assert.deepEqual(meta, { method: 'POST', path: '/prod/pets/2', statusCode: 201, latencyMs: 31, requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef' });
    assert.match(String(rows[0]?.eventId), /^cwl:37585948/);
  });

  it('200: the same subscription event delivered twice is counted once (eventIds from the log event ids)', async () => {
    const event = subscriptionEvent([logEvent(accessLogLine({ apiKeyId: 'key-twice' })), logEvent(accessLogLine({ apiKeyId: 'key-twice' }))]);
    const first = await handlerFor(url)(event);
    const again = await handlerFor(url)(event);
    assert.deepEqual([first.accepted, first.duplicates], [2, 0]);
    assert.deepEqual([again.sent, again.accepted, again.duplicates], [2, 0, 2]);
    assert.equal((await usage('key-twice'))[0]?.sum, '2');
  });

  it('lines lacking a method or a consumer key are skipped and reported by reason, never silently', async () => {
    const event = subscriptionEvent([
      logEvent(accessLogLine({ apiKeyId: 'key-skips' })),
      logEvent(accessLogLine({ apiKeyId: 'key-skips', httpMethod: '-' })),
      logEvent((({ httpMethod: _, ...rest }) => rest)(accessLogLine({ apiKeyId: 'key-skips' }))),
      logEvent(accessLogLine({ apiKeyId: '-' })),
      logEvent('[ERROR] First test message'),
    ]);
    const summary = await handlerFor(url)(event);
    assert.deepEqual(summary.skipped, { 'no-method': 2, 'no-consumer': 1, 'not-json': 1 });
    assert.deepEqual([summary.logEvents, summary.sent], [5, 1]);
    assert.equal((await usage('key-skips'))[0]?.sum, '1');
  });

  it(
    "AWS's documented sample event: both plain-text lines are skipped as not JSON, nothing is sent",
    { skip: sampleDir ? false : '../shared/testdata/aws-cloudwatch is not beside this clone' },
    async () => {
      const sample: unknown = JSON.parse(readFileSync(`${sampleDir}/lambda-sample-event.json`, 'utf8'));
      const summary = await handlerFor(url)(sample);
      assert.deepEqual(summary, {
        logEvents: 2,
        sent: 0,
        accepted: 0,
        duplicates: 0,
        skipped: { 'not-json': 2 },
        rejected: {},
        controlMessages: 0,
        batches: 0,
      });
    },
  );

  it('CONTROL_MESSAGE is acknowledged and ignored (counted; no request is sent)', async () => {
    const proxy = await FaultProxy.start(url);
    try {
      const summary = await handlerFor(proxy.url)(
        subscriptionEvent([{ id: '', timestamp: t.clock.now(), message: 'CWL CONTROL MESSAGE: Checking health of destination Lambda.' }], 'CONTROL_MESSAGE'),
      );
      assert.equal(summary.controlMessages, 1);
      assert.deepEqual([summary.logEvents, summary.sent], [0, 0]);
      assert.equal(proxy.seen.length, 0);
    } finally {
      await proxy.close();
    }
  });

  it('the decompressed size is capped: a larger event fails with PAYLOAD_TOO_LARGE and nothing is stored', async () => {
    const lines = Array.from({ length: 3000 }, () => logEvent(accessLogLine({ apiKeyId: 'key-big' })));
    const handler = handlerFor(url, { maxDecompressedBytes: 64 * 1024 });
    await assert.rejects(handler(subscriptionEvent(lines)), (err: unknown) => err instanceof ForwarderError && err.code === 'PAYLOAD_TOO_LARGE');
    assert.deepEqual(await usage('key-big'), []);
  });

  it('2,500 lines go as batches of at most 1,000, each with a fresh random-UUID X-Idempotency-Key and Bearer authentication', async () => {
    const proxy = await FaultProxy.start(url);
    try {
      const lines = Array.from({ length: 2500 }, () => logEvent(accessLogLine({ apiKeyId: 'key-big' })));
      const summary = await handlerFor(proxy.url)(subscriptionEvent(lines));
      assert.deepEqual([summary.sent, summary.accepted, summary.batches], [2500, 2500, 3]);
      assert.deepEqual(proxy.seen.map((s) => s.events).sort(), [1000, 1000, 500]);
      const keys = proxy.seen.map((s) => s.idempotencyKey);
      assert.equal(new Set(keys).size, 3);
      for (const k of keys) assert.match(String(k), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      for (const s of proxy.seen) assert.equal(s.authorization, `Bearer ${ws.test.secretKey}`);
      assert.equal((await usage('key-big'))[0]?.sum, '2500');
    } finally {
      await proxy.close();
    }
  });

  it('400: an event the server refuses (unknown customer) is reported by code, and the rest of its batch is stored', async () => {
    const summary = await handlerFor(url)(
      subscriptionEvent([
        logEvent(accessLogLine({ apiKeyId: 'key-refused' })),
        logEvent(accessLogLine({ apiKeyId: 'key-nobody' })),
        logEvent(accessLogLine({ apiKeyId: 'key-refused' })),
      ]),
    );
    assert.deepEqual(summary.rejected, { UNKNOWN_CUSTOMER: 1 });
    assert.deepEqual([summary.sent, summary.accepted], [2, 2]);
    assert.equal((await usage('key-refused'))[0]?.sum, '2');
  });
});

describe('retries (spec, Errors: back off by Retry-After seconds, 5 if absent, up to 3 retries)', () => {
  const cases: Array<[rule: string, faults: Fault[], waits: number[]]> = [
    ['503 with Retry-After is retried after that many seconds', [{ status: 503, retryAfter: '2' }], [2000]],
    ['503 without Retry-After is retried after 5 seconds', [{ status: 503 }], [5000]],
    [
      "429 is retried on the status alone, whatever the body (a gateway's)",
      [{ status: 429, retryAfter: '1', body: '{"message":"Too Many Requests"}' }],
      [1000],
    ],
    ['a dropped connection after the server stored the batch is retried and stored once (same X-Idempotency-Key)', [{ drop: 'after-forward' }], [5000]],
    ['three retries, then success', [{ status: 503 }, { status: 429, retryAfter: '3' }, { status: 503, retryAfter: '0' }], [5000, 3000, 0]],
  ];
  for (const [rule, faults, waits] of cases) {
    it(rule, async () => {
      const proxy = await FaultProxy.start(url);
      slept.length = 0;
      try {
        proxy.faults.push(...faults);
        const customer = await t.seed.customer(ws.test);
        const summary = await handlerFor(proxy.url, {
          config: { url: proxy.url, apiKey: ws.test.secretKey, mapping: { consumerField: 'apiKeyId', metricName: 'api_calls' } },
        })(subscriptionEvent([logEvent(accessLogLine({ apiKeyId: customer.id })), logEvent(accessLogLine({ apiKeyId: customer.id }))]));
        assert.deepEqual(slept, waits);
        assert.equal(proxy.seen.length, faults.length + 1);
        assert.equal(new Set(proxy.seen.map((s) => s.idempotencyKey)).size, 1, 'every attempt carries the batch key');
        assert.equal(summary.sent, 2);
        assert.equal((await usage(customer.id))[0]?.sum, '2', 'stored once');
      } finally {
        await proxy.close();
      }
    });
  }

  it('a fourth 503 is not retried: the invocation fails with SEND_FAILED (Lambda then redelivers; the eventIds keep that safe)', async () => {
    const proxy = await FaultProxy.start(url);
    slept.length = 0;
    try {
      proxy.faults.push({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
      await assert.rejects(
        handlerFor(proxy.url)(subscriptionEvent([logEvent(accessLogLine({ apiKeyId: 'key-retry' }))])),
        (err: unknown) => err instanceof ForwarderError && err.code === 'SEND_FAILED' && err.status === 503,
      );
      assert.equal(proxy.seen.length, 4);
      assert.deepEqual(slept, [5000, 5000, 5000]);
    } finally {
      await proxy.close();
    }
  });

  it('401 is never retried', async () => {
    const bad = createHandler({
      config: { url, apiKey: 'sk_test_00000000000000000000000000000000', mapping: DEFAULT_MAPPING },
      sender: createSdkBatchSender({ url, apiKey: 'sk_test_00000000000000000000000000000000', sleep: async (ms) => void slept.push(ms) }),
      log: () => undefined,
    });
    slept.length = 0;
    await assert.rejects(bad(subscriptionEvent([logEvent(accessLogLine())])), (err: unknown) => err instanceof ForwarderError && err.status === 401);
    assert.deepEqual(slept, []);
  });
});
