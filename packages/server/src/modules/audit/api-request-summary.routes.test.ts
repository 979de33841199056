import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../app.js';
import { AppError } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { TenantHandle } from '../../../test/helpers/seed.js';
import { until } from '../../../test/helpers/sse-client.js';

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const summariesOf = (workspaceId: string | null) => {
  let q = t.deps.db.selectFrom('auditEvents').selectAll().where('eventType', '=', 'api.requests_summarized');
  q = workspaceId === null ? q.where('workspaceId', 'is', null) : q.where('workspaceId', '=', workspaceId);
  return q.orderBy('id').execute();
};

describe('api.requests_summarized', () => {
  it('one event per tenant and window counts its requests per route pattern and status class', async () => {
    const ws = await t.seed.workspace();
    const api = t.seed.client(ws.test.secretKey);
    assert.equal((await api.get('/api/v1/customers')).status, 200);
    assert.equal((await api.get('/api/v1/customers')).status, 200);
    assert.equal((await api.get('/api/v1/customers/cus_missing')).status, 404);
    await t.app.flushRequestSummaries();

    const rows = await summariesOf(ws.workspaceId);
    assert.equal(rows.length, 1);
    const e = rows[0]!;
    assert.equal(e.environment, 'test');
    assert.equal(e.severity, 'INFO');
    assert.equal(e.source, 'system');
    assert.equal(e.actorType, 'SYSTEM');
    assert.equal(e.actorId, 'api-request-summary');
    assert.equal(e.targetType, null);
    assert.match(e.correlationId, /^req_/);
    const p = JSON.parse(e.payload);
    assert.deepEqual(Object.keys(p).sort(), ['node', 'routes', 'total', 'windowEnd', 'windowStart']);
    assert.equal(p.total, 3);
    assert.match(p.node, /^[0-9a-f]{12}$/);
    assert.equal(p.windowEnd, new Date(t.clock.now()).toISOString());
    assert.ok(p.windowStart <= p.windowEnd);
    // The pattern, never the raw URL with its ids; only the classes that occurred.
    assert.deepEqual(Object.keys(p.routes).sort(), ['GET /api/v1/customers', 'GET /api/v1/customers/:id']);
    assert.equal(p.routes['GET /api/v1/customers']['2xx'], 2);
    assert.equal(p.routes['GET /api/v1/customers']['4xx'], undefined);
    assert.equal(p.routes['GET /api/v1/customers/:id']['4xx'], 1);
    for (const r of Object.values<{ p50Ms: number; p99Ms: number }>(p.routes)) {
      assert.ok(Number.isInteger(r.p50Ms) && r.p50Ms >= 0 && r.p50Ms <= r.p99Ms, JSON.stringify(r));
    }
  });

  it("another workspace's traffic, and another environment's, land in their own summaries only", async () => {
    const a = await t.seed.workspace();
    const b = await t.seed.workspace();
    await t.seed.client(a.test.secretKey).get('/api/v1/customers');
    await t.seed.client(a.test.secretKey).get('/api/v1/products');
    await t.seed.client(a.live.secretKey).get('/api/v1/customers');
    await t.seed.client(b.test.secretKey).get('/api/v1/products');
    await t.app.flushRequestSummaries();

    const summary = async (w: TenantHandle, env: string) => {
      const rows = (await summariesOf(w.workspaceId)).filter((r) => r.environment === env);
      assert.equal(rows.length, 1, `one summary for ${env}`);
      return JSON.parse(rows[0]!.payload);
    };
    const aTest = await summary(a, 'test');
    assert.equal(aTest.total, 2);
    assert.deepEqual(Object.keys(aTest.routes).sort(), ['GET /api/v1/customers', 'GET /api/v1/products']);
    assert.equal((await summary(a, 'live')).total, 1);
    const bTest = await summary(b, 'test');
    assert.equal(bTest.total, 1);
    assert.deepEqual(Object.keys(bTest.routes), ['GET /api/v1/products']);
    assert.equal((await summariesOf(b.workspaceId)).length, 1, 'b had no live traffic');
  });

  it('a window with no traffic writes no summary, and a flushed window is not written again', async () => {
    const ws = await t.seed.workspace();
    await t.app.flushRequestSummaries();
    assert.equal((await summariesOf(ws.workspaceId)).length, 0);

    await t.seed.client(ws.test.secretKey).get('/api/v1/customers');
    await t.app.flushRequestSummaries();
    await t.app.flushRequestSummaries();
    assert.equal((await summariesOf(ws.workspaceId)).length, 1);
  });

  it('unauthenticated requests and failed authentications are not summarised', async () => {
    await t.app.flushRequestSummaries();
    const before = (await summariesOf(null)).length;
    const ws = await t.seed.workspace();
    await t.seed.client(null).get('/health');
    await t.seed.client(null).get('/no/such/route');
    assert.equal((await t.seed.client(`sk_test_${'c'.repeat(32)}`).get('/api/v1/customers')).status, 401);
    await t.app.flushRequestSummaries();
    assert.equal((await summariesOf(null)).length, before);
    assert.equal((await summariesOf(ws.workspaceId)).length, 0);
  });

  it('requests still counted when the server closes are written then', async () => {
    const own = await createTestApp();
    try {
      const ws = await own.seed.workspace();
      await own.seed.client(ws.test.secretKey).get('/api/v1/customers');
      await own.app.close();
      const rows = await own.deps.db
        .selectFrom('auditEvents')
        .selectAll()
        .where('eventType', '=', 'api.requests_summarized')
        .where('workspaceId', '=', ws.workspaceId)
        .execute();
      assert.equal(rows.length, 1);
      assert.equal(JSON.parse(rows[0]!.payload).total, 1);
    } finally {
      await own.close();
    }
  });
});

describe('api.request_failed', () => {
  // The real routes do not fail on purpose: a second app on the same storage gets routes that do.
  let boom: App;
  before(async () => {
    boom = await buildApp(t.composition);
    boom.get('/test/boom/:id', { config: { auth: { kind: 'workspace', scope: 'events:read' } } }, async () => {
      throw new Error('boom');
    });
    boom.get('/test/public-boom', { config: { auth: { kind: 'none' } } }, async () => {
      throw new Error('boom');
    });
    // What admission control answers when a server is full.
    boom.get('/test/shed', { config: { auth: { kind: 'workspace', scope: 'events:read' } } }, async () => {
      throw new AppError('SERVICE_UNAVAILABLE', 'full', { headers: { 'retry-after': '1' } });
    });
    await boom.ready();
  });
  after(() => boom.close());

  const failures = (requestId: string) =>
    t.deps.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('eventType', '=', 'api.request_failed')
      .execute()
      .then((rows) => rows.filter((r) => JSON.parse(r.payload).requestId === requestId));
  // The event is written once the response has gone out, so shortly after inject() resolves:
  // wait for it with a generous bound (a loaded machine may take a while), never a fixed time.
  const failuresSoon = async (requestId: string) => {
    let rows: Awaited<ReturnType<typeof failures>> = [];
    await until(async () => (rows = await failures(requestId)).length > 0, `the api.request_failed event of ${requestId}`);
    return rows;
  };

  it("a 5xx is written at once, as ERROR, with the caller as actor and the request's correlation id", async () => {
    const ws = await t.seed.workspace();
    const res = await boom.inject({
      method: 'GET',
      url: '/test/boom/cus_123',
      headers: { authorization: `Bearer ${ws.test.secretKey}`, 'x-correlation-id': 'corr-500' },
    });
    assert.equal(res.statusCode, 500);
    const requestId = String(res.headers['x-request-id']);
    const rows = await failuresSoon(requestId);
    assert.equal(rows.length, 1, 'written without waiting for a flush');
    const e = rows[0]!;
    assert.equal(e.severity, 'ERROR');
    assert.equal(e.workspaceId, ws.workspaceId);
    assert.equal(e.environment, 'test');
    assert.equal(e.actorType, 'WORKSPACE_KEY');
    assert.equal(e.actorId, ws.test.keyId);
    assert.equal(e.correlationId, 'corr-500');
    assert.equal(e.source, 'api');
    assert.deepEqual(JSON.parse(e.payload), { method: 'GET', route: '/test/boom/:id', status: 500, requestId });

    // It is counted in the tenant's summary as well.
    await boom.flushRequestSummaries();
    const [summary] = await summariesOf(ws.workspaceId);
    assert.deepEqual(JSON.parse(summary!.payload).routes['GET /test/boom/:id']['5xx'], 1);
  });

  it('an unauthenticated 5xx has the caller IP as anonymous actor and no tenant', async () => {
    const res = await boom.inject({ method: 'GET', url: '/test/public-boom', remoteAddress: '10.9.9.9' });
    assert.equal(res.statusCode, 500);
    const requestId = String(res.headers['x-request-id']);
    const [e] = await failuresSoon(requestId);
    assert.ok(e);
    assert.equal(e.workspaceId, null);
    assert.equal(e.environment, null);
    assert.equal(e.actorType, 'ANONYMOUS');
    assert.equal(e.actorId, '10.9.9.9');
    assert.equal(e.correlationId, requestId);
  });

  it('a shed 503 is not written on its own: it is counted as shed in the summary, and costs no audit row', async () => {
    const ws = await t.seed.workspace();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await boom.inject({ method: 'GET', url: '/test/shed', headers: { authorization: `Bearer ${ws.test.secretKey}` } })).statusCode);
    }
    assert.deepEqual(statuses, [503, 503, 503]);
    await boom.flushRequestSummaries(); // waits for failure events still being written
    const failed = await t.deps.db
      .selectFrom('auditEvents')
      .select('id')
      .where('eventType', '=', 'api.request_failed')
      .where('workspaceId', '=', ws.workspaceId)
      .execute();
    assert.equal(failed.length, 0);
    const [summary] = await summariesOf(ws.workspaceId);
    const route = JSON.parse(summary!.payload).routes['GET /test/shed'];
    assert.equal(route.shed, 3);
    assert.equal(route['5xx'], undefined);
  });

  it('a 4xx is not written on its own', async () => {
    const ws = await t.seed.workspace();
    const res = await t.seed.client(ws.test.secretKey).get('/api/v1/customers/cus_missing');
    assert.equal(res.status, 404);
    await t.app.flushRequestSummaries(); // waits for failure events still being written
    assert.equal((await failures(String(res.headers['x-request-id']))).length, 0);
  });
});
