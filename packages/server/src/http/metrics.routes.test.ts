import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';
import type { TenantHandle } from '../../test/helpers/seed.js';
import { parseExposition, valueOf } from '../../test/helpers/prometheus-text.js';
import { WebhookReceiver } from '../../test/helpers/webhook-receiver.js';
import { transaction } from '../db/transaction.js';
import { createMetric } from '../modules/metrics/create-metric.js';
import { emitWebhookEvents } from '../modules/outbound-webhooks/emit-webhook-events.js';

/** The series docs/production.md's "Metrics and tracing" promises on every node, whatever the database. */
const SERIES = [
  'tollgate_build_info',
  'tollgate_http_requests_total',
  'tollgate_http_request_duration_seconds',
  'tollgate_admission_in_flight',
  'tollgate_admission_limit',
  'tollgate_admission_shed_total',
  'tollgate_ingest_events_total',
  'tollgate_ingest_duplicate_events_total',
  'tollgate_ingest_batch_size',
  'tollgate_ingest_writer_queue_depth',
  'tollgate_ingest_writer_commit_seconds',
  'tollgate_ingest_writer_writes_total',
  'tollgate_cache_hits_total',
  'tollgate_cache_misses_total',
  'tollgate_webhook_verifications_total',
  'tollgate_outbound_webhook_attempts_total',
  'tollgate_outbound_webhook_queue_age_seconds',
  'tollgate_outbound_webhook_attempt_seconds',
  'tollgate_outbound_webhook_in_flight',
  'tollgate_billing_progress_total',
  'process_cpu_seconds_total',
  'nodejs_eventloop_lag_seconds',
];

/** Prefixes of Tollgate's ids (ARCHITECTURE.md, Storage) and of its keys: none may be a label value. */
const ID = /\b(ws|cus|prod|mtr|plan|off|sub|key|wsrc|evt|inv|cn|wses|sk_test|sk_live|pk_test|pk_live)_[A-Za-z0-9]/;

let t: TestApp;
let ws: TenantHandle;
let customerId: string;

async function scrape(app: TestApp = t) {
  const r = await app.seed.client(null).get('/metrics');
  assert.equal(r.status, 200, String(r.body));
  return { ...parseExposition(r.body as string), response: r };
}

before(async () => {
  t = await createTestApp();
  ws = await t.seed.workspace();
  await createMetric(t.deps, ws.test.ctx, { name: 'api_calls' });
  customerId = (await t.seed.customer(ws.test, { externalId: 'acme' })).id;
});
after(() => t.close());

describe('GET /metrics', () => {
  it('200 in the text exposition format, without a key, with every documented series', async () => {
    const { families, response } = await scrape();
    assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    for (const name of SERIES) assert.ok(families.has(name), `${name} is exposed`);
    if (t.deps.dialect === 'postgres') {
      for (const name of ['tollgate_db_pool_connections', 'tollgate_db_pool_idle_connections', 'tollgate_db_pool_waiting_requests'])
        assert.ok(families.has(name), name);
    }
    if (t.deps.config.redisUrl) {
      assert.ok(families.has('tollgate_redis_up'), 'tollgate_redis_up with REDIS_URL');
      // The share a degraded node would allow: the nodes counted, at least REDIS_MIN_NODES (2).
      assert.ok(families.has('tollgate_rate_limit_nodes'), 'tollgate_rate_limit_nodes with REDIS_URL');
    }
  });

  it('200 names the build and this node once', async () => {
    const { samples } = await scrape();
    const info = samples.filter((s) => s.name === 'tollgate_build_info');
    assert.equal(info.length, 1);
    assert.equal(info[0]!.value, 1);
    assert.equal(info[0]!.labels.node_version, process.version);
    assert.equal(info[0]!.labels.node, t.deps.config.nodeName);
    assert.equal(info[0]!.labels.database, t.deps.dialect);
  });

  it('200 a request moves its route pattern’s counter and histogram, by status class, never by URL', async () => {
    const labels = { method: 'GET', route: '/api/v1/customers/:id', status_class: '4xx' };
    const before = (await scrape()).samples;
    const api = t.seed.client(ws.test.secretKey);
    assert.equal((await api.get('/api/v1/customers/cus_doesnotexist')).status, 404);
    assert.equal((await api.get(`/api/v1/customers/${customerId}`)).status, 200);
    assert.equal((await api.get('/no/such/route/ws_123')).status, 404);
    const { samples } = await scrape();
    const moved = (name: string, l: Record<string, string>) => valueOf(samples, name, l) - valueOf(before, name, l);
    assert.equal(moved('tollgate_http_requests_total', labels), 1);
    assert.equal(moved('tollgate_http_request_duration_seconds_count', labels), 1);
    assert.equal(moved('tollgate_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' }), 1);
    assert.equal(moved('tollgate_http_requests_total', { ...labels, status_class: '2xx' }), 1);
    assert.equal(moved('tollgate_http_requests_total', { method: 'GET', route: '(unmatched)', status_class: '4xx' }), 1);
  });

  it('200 an ingest moves the events counter and the batch size histogram', async () => {
    const before = (await scrape()).samples;
    const occurredAt = new Date(t.clock.now() - 60_000).toISOString();
    const events = [1, 2, 3].map((i) => ({ customerId, metricName: 'api_calls', quantity: i, occurredAt, eventId: `e-${i}` }));
    const api = t.seed.client(ws.test.secretKey);
    assert.equal((await api.post('/v1/ingest/batch', { events })).status, 200);
    // The same ids again: duplicates, not events.
    assert.equal((await api.post('/v1/ingest/batch', { events })).status, 200);
    const { samples } = await scrape();
    const moved = (name: string, l: Record<string, string> = {}) => valueOf(samples, name, l) - valueOf(before, name, l);
    assert.equal(moved('tollgate_ingest_events_total', { source: 'api' }), 3);
    assert.equal(moved('tollgate_ingest_duplicate_events_total', { source: 'api' }), 3);
    assert.equal(moved('tollgate_ingest_batch_size_count', { source: 'api' }), 2);
    assert.equal(moved('tollgate_ingest_batch_size_sum', { source: 'api' }), 6);
    assert.equal(moved('tollgate_ingest_batch_size_bucket', { source: 'api', le: '1' }), 0);
    assert.equal(moved('tollgate_ingest_batch_size_bucket', { source: 'api', le: '5' }), 2);
    assert.equal(moved('tollgate_ingest_writer_writes_total', { result: 'committed' }), 2);
    assert.equal(valueOf(samples, 'tollgate_ingest_writer_queue_depth'), 0, 'nothing left in the writer once answered');
    assert.equal(moved('tollgate_http_requests_total', { method: 'POST', route: '/v1/ingest/batch', status_class: '2xx' }), 2);
  });

  it('200 no label value is an id, a key or a URL with an id', async () => {
    const { samples } = await scrape();
    assert.ok(samples.length > 100);
    for (const s of samples) {
      for (const [label, value] of Object.entries(s.labels)) {
        assert.doesNotMatch(value, ID, `${s.name}{${label}="${value}"}`);
        assert.ok(!value.includes(ws.workspaceId) && !value.includes(customerId), `${s.name}{${label}="${value}"}`);
        if (label === 'route') assert.ok(value === '(unmatched)' || /^\/[\w/:.*-]*$/.test(value), `${label}="${value}" is a pattern`);
      }
    }
  });

  it('200 an admission gate shows its limit and counts what it sheds', async () => {
    const { samples } = await scrape();
    assert.equal(valueOf(samples, 'tollgate_admission_limit', { kind: 'ingestion' }), t.deps.config.ingestMaxInFlight);
    assert.equal(valueOf(samples, 'tollgate_admission_limit', { kind: 'webhook' }), t.deps.config.webhookMaxInFlight);
    assert.equal(valueOf(samples, 'tollgate_admission_in_flight', { kind: 'ingestion' }), 0);
  });

  it('200 the entitlement cache’s hits and misses are counted', async () => {
    const own = await createTestApp({ config: { entitlementCacheTtlMs: 1_000 } });
    try {
      const w = await own.seed.workspace();
      const { customer, product } = await own.seed.subscription(w.test);
      const url = `/v1/entitlements/check?accessorId=${customer.id}&productId=${product.id}`;
      const api = own.seed.client(w.test.secretKey);
      for (let i = 0; i < 3; i++) assert.equal((await api.get(url)).status, 200);
      const { samples } = await scrape(own);
      const misses = valueOf(samples, 'tollgate_cache_misses_total', { cache: 'entitlement_answers' });
      const hits = valueOf(samples, 'tollgate_cache_hits_total', { cache: 'entitlement_answers' });
      assert.equal(misses + hits, 3, 'three checks looked the answer up');
      assert.equal(hits, 2, 'the second and third found it');
    } finally {
      await own.close();
    }
  });

  it('200 is not in the OpenAPI document and is not rate limited', async () => {
    const own = await createTestApp({ config: { rateLimitPerMinute: 1 } });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await own.seed.client(null).get('/metrics')).status, 200);
      const doc = await own.seed.client(null).get('/openapi.json');
      assert.equal(doc.body.paths['/metrics'], undefined);
    } finally {
      await own.close();
    }
  });

  it('401 with METRICS_TOKEN set and no or a wrong bearer token; 200 with it', async () => {
    const token = 'a-long-metrics-token-0123456789';
    const own = await createTestApp({ config: { metricsToken: token } });
    try {
      const anyone = own.seed.client(null);
      const none = await anyone.get('/metrics');
      assert.equal(none.status, 401);
      assert.equal(none.body.errors[0].code, 'UNAUTHENTICATED');
      assert.equal(none.headers['www-authenticate'], 'Bearer realm="metrics"');
      assert.equal((await anyone.get('/metrics', { authorization: `Bearer ${token}x` })).status, 401);
      const ok = await anyone.get('/metrics', { authorization: `Bearer ${token}` });
      assert.equal(ok.status, 200);
      assert.match(ok.body as string, /^# HELP /m);
    } finally {
      await own.close();
    }
  });
});

describe('tracing', () => {
  it('off by default: no tracer, and no span even when an SDK is registered globally', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    const own = await createTestApp();
    try {
      assert.equal(own.deps.config.tracing, 'off');
      assert.equal(own.deps.tracer, null);
      await own.seed.client(null).get('/health');
      assert.deepEqual(exporter.getFinishedSpans(), []);
    } finally {
      await own.close();
      trace.disable();
      await provider.shutdown();
    }
  });

  it('on: a server span per request named by its route pattern, and a span per writer commit inside it', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    // The context manager the node SDK registers: it carries the request's span into its handler.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const own = await createTestApp({ tracer: provider.getTracer('tollgate') });
    try {
      const w = await own.seed.workspace();
      await createMetric(own.deps, w.test.ctx, { name: 'api_calls' });
      const c = await own.seed.customer(w.test);
      const api = own.seed.client(w.test.secretKey);
      const occurredAt = new Date(own.clock.now() - 60_000).toISOString();
      assert.equal((await api.post('/v1/ingest/batch', { events: [{ customerId: c.id, metricName: 'api_calls', quantity: 1, occurredAt }] })).status, 200);
      assert.equal((await api.get(`/api/v1/customers/${c.id}`)).status, 200);
      assert.equal((await api.get('/api/v1/customers/cus_missing')).status, 404);
      const spans = exporter.getFinishedSpans();
      const named = (n: string) => spans.filter((s) => s.name === n);
      assert.equal(named('POST /v1/ingest/batch').length, 1);
      assert.equal(named('POST /v1/ingest/batch')[0]!.attributes['http.response.status_code'], 200);
      assert.equal(named('ingest.write').length, 1);
      assert.equal(named('ingest.write')[0]!.attributes['tollgate.write.kind'], 'usage');
      assert.equal(named('ingest.write')[0]!.parentSpanContext?.spanId, named('POST /v1/ingest/batch')[0]!.spanContext().spanId);
      assert.equal(named('GET /api/v1/customers/:id').length, 2);
      for (const s of spans) assert.doesNotMatch(s.name, ID, `span name ${s.name} holds no id`);
    } finally {
      await own.close();
      context.disable();
      await provider.shutdown();
    }
  });
});

describe('outbound webhook series', () => {
  it('an attempt counts its outcome and how long its delivery queued, with a webhook.deliver span', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const own = await createTestApp({
      tracer: provider.getTracer('tollgate'),
      webhooks: { sender: true },
      config: { outboundWebhookPollMs: 3_600_000, outboundWebhookTimeoutMs: 10_000 },
    });
    const receiver = await WebhookReceiver.start();
    try {
      const w = await own.seed.workspace();
      const api = own.seed.client(w.test.secretKey);
      assert.equal((await api.post('/api/v1/webhook-endpoints', { url: receiver.url(), eventTypes: ['*'] })).status, 200);
      const before = (await scrape(own)).samples;
      await transaction(own.deps.db, (trx) =>
        emitWebhookEvents(trx, own.deps, [
          {
            origin: { workspaceId: w.workspaceId, environment: 'test', correlationId: 'req_metrics_test' },
            event: { type: 'subscription.renewed', orderingKey: null, data: { object: { id: 'sub_1', object: 'subscription' } } },
          },
        ]),
      );
      await own.sender!.drain();
      const { samples } = await scrape(own);
      const moved = (name: string, l: Record<string, string> = {}) => valueOf(samples, name, l) - valueOf(before, name, l);
      assert.equal(moved('tollgate_outbound_webhook_attempts_total', { outcome: 'succeeded', reason: 'none' }), 1);
      assert.equal(moved('tollgate_outbound_webhook_queue_age_seconds_count'), 1);
      assert.equal(moved('tollgate_outbound_webhook_attempt_seconds_count'), 1);
      assert.equal(valueOf(samples, 'tollgate_outbound_webhook_in_flight'), 0);
      const deliver = exporter.getFinishedSpans().filter((s) => s.name === 'webhook.deliver');
      assert.equal(deliver.length, 1);
      assert.equal(deliver[0]!.attributes['tollgate.webhook.outcome'], 'succeeded');
      assert.equal(deliver[0]!.attributes['tollgate.webhook.event_type'], 'subscription.renewed');
    } finally {
      await own.close();
      await receiver.close();
      await provider.shutdown();
    }
  });
});
