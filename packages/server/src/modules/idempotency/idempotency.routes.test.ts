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

const countNamed = async (name: string) =>
  (await t.deps.db.selectFrom('customers').select('id').where('workspaceId', '=', ws.workspaceId).where('name', '=', name).execute()).length;

describe('Idempotency-Key on creates', () => {
  it('10 concurrent requests with one key create exactly one resource and all answer the same', async () => {
    const headers = { 'idempotency-key': 'burst-1' };
    const responses = await Promise.all(Array.from({ length: 10 }, () => api.post('/api/v1/customers', { name: 'Burst' }, headers)));
    assert.ok(
      responses.every((r) => r.status === 200),
      responses.map((r) => r.status).join(','),
    );
    assert.equal(new Set(responses.map((r) => r.body.id)).size, 1);
    assert.equal(await countNamed('Burst'), 1);
  });

  it('the same key with the same body in different key order is the same request', async () => {
    const headers = { 'idempotency-key': 'order-1' };
    const a = await api.post('/api/v1/customers', '{"name":"Order","email":"o@example.com"}', headers);
    const b = await api.post('/api/v1/customers', '{"email":"o@example.com","name":"Order"}', headers);
    assert.equal(b.status, 200);
    assert.equal(b.body.id, a.body.id);
  });

  it('a failed request stores nothing: a retry with the same key runs again', async () => {
    const headers = { 'idempotency-key': 'fail-then-ok' };
    const failed = await api.post('/api/v1/subscriptions', { customerId: 'cus_missing', productId: 'prod_missing' }, headers);
    assert.equal(failed.status, 404);
    const customer = await t.seed.customer(ws.test);
    const product = await t.seed.product(ws.test);
    const retry = await api.post('/api/v1/subscriptions', { customerId: customer.id, productId: product.id }, headers);
    // A different body under the same key is allowed here because nothing was stored for it.
    assert.equal(retry.status, 200);
  });

  it('keys are scoped to the environment: the same key in live is a new request', async () => {
    const headers = { 'idempotency-key': 'env-scope' };
    const testRes = await api.post('/api/v1/customers', { name: 'Scoped' }, headers);
    const liveRes = await t.seed.client(ws.live.secretKey).post('/api/v1/customers', { name: 'Scoped' }, headers);
    assert.equal(liveRes.status, 200);
    assert.notEqual(liveRes.body.id, testRes.body.id);
    assert.equal(liveRes.headers['idempotent-replayed'], undefined);
  });

  it('after 24 hours the key is forgotten and the request runs again', async () => {
    const headers = { 'idempotency-key': 'day-old' };
    const first = await api.post('/api/v1/customers', { name: 'DayOld' }, headers);
    t.clock.advance(24 * 60 * 60 * 1000 + 1);
    const second = await api.post('/api/v1/customers', { name: 'DayOld' }, headers);
    assert.equal(second.status, 200);
    assert.notEqual(second.body.id, first.body.id);
    assert.equal(await countNamed('DayOld'), 2);
  });

  it('400 for an Idempotency-Key longer than 255 characters', async () => {
    const res = await api.post('/api/v1/customers', { name: 'Long' }, { 'idempotency-key': 'k'.repeat(256) });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'headers.idempotency-key');
  });
});
