import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';

let t: TestApp;
let ws: TenantHandle;
let api: Client;

before(async () => {
  t = await createTestApp();
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
});
after(() => t.close());

const eventsFor = (targetId: string) =>
  t.deps.db.selectFrom('auditEvents').selectAll().where('targetId', '=', targetId).orderBy('id').execute();

describe('audit events written with every change', () => {
  it("a create records the spec's fields, the key as actor and the caller's correlation id", async () => {
    const res = await api.post('/api/v1/products', { name: 'Search', kind: 'STANDARD_API' }, { 'x-correlation-id': 'corr-42' });
    assert.equal(res.status, 200);
    const [e] = await eventsFor(res.body.id);
    assert.ok(e);
    assert.match(e.id, /^evt_/);
    assert.equal(e.workspaceId, ws.workspaceId);
    assert.equal(e.environment, 'test');
    assert.equal(e.eventType, 'product.created');
    assert.equal(e.source, 'api');
    assert.equal(e.severity, 'INFO');
    assert.equal(e.actorType, 'WORKSPACE_KEY');
    assert.equal(e.actorId, ws.test.keyId);
    assert.equal(e.targetType, 'product');
    assert.equal(e.correlationId, 'corr-42');
    assert.equal(e.createdAt, t.clock.now());
    assert.deepEqual(JSON.parse(e.payload), { name: 'Search', kind: 'STANDARD_API' });
  });

  it('without X-Correlation-Id the request id is the correlation id', async () => {
    const res = await api.post('/api/v1/customers', { name: 'Corr' });
    const [e] = await eventsFor(res.body.id);
    assert.equal(e?.correlationId, res.headers['x-request-id']);
  });

  it('a change that fails writes no event: the event commits or rolls back with it', async () => {
    const before = await t.deps.db.selectFrom('auditEvents').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    await api.post('/api/v1/metrics', { name: 'dup_metric' });
    const dup = await api.post('/api/v1/metrics', { name: 'dup_metric' });
    assert.equal(dup.status, 409);
    const afterCount = await t.deps.db.selectFrom('auditEvents').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(afterCount.n) - Number(before.n), 1);
  });

  it('an update records what changed', async () => {
    const c = await api.post('/api/v1/customers', { name: 'Old' });
    await api.patch(`/api/v1/customers/${c.body.id}`, { name: 'New' });
    const events = await eventsFor(c.body.id);
    assert.deepEqual(events.map((e) => e.eventType), ['customer.created', 'customer.updated']);
    assert.deepEqual(JSON.parse(events[1]!.payload), { changed: ['name'] });
  });
});

describe('audit events for failed authentication', () => {
  it('an unknown key records auth.failed (WARN) without the presented secret', async () => {
    const secret = `sk_live_${'b'.repeat(32)}`;
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/customers', headers: { authorization: `Bearer ${secret}` }, remoteAddress: '10.1.1.1' });
    assert.equal(res.statusCode, 401);
    const rows = await t.deps.db.selectFrom('auditEvents').selectAll().where('eventType', '=', 'auth.failed').where('actorId', '=', '10.1.1.1').execute();
    assert.equal(rows.length, 1);
    const e = rows[0]!;
    assert.equal(e.severity, 'WARN');
    assert.equal(e.actorType, 'ANONYMOUS');
    assert.equal(e.workspaceId, null);
    assert.equal(JSON.parse(e.payload).reason, 'unknown_key');
    assert.ok(!JSON.stringify(e).includes(secret));
  });

  it("a revoked key's failure is recorded in its own workspace", async () => {
    const key = await t.seed.productKey(ws.test);
    await api.delete(`/api/v1/api-keys/${key.id}`);
    const res = await t.seed.client(key.token).get(`/api/v1/api-keys/${key.id}`);
    assert.equal(res.status, 401);
    const rows = await t.deps.db.selectFrom('auditEvents').selectAll().where('eventType', '=', 'auth.failed').where('targetId', '=', key.id).execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.workspaceId, ws.workspaceId);
    assert.equal(JSON.parse(rows[0]!.payload).reason, 'revoked');
  });
});
