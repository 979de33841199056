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

describe('POST /api/v1/customers', () => {
  it('200 creates a customer and returns it with a cus_ id', async () => {
    const res = await api.post('/api/v1/customers', { externalId: 'c-1', name: 'Ada', email: 'ada@example.com', metadata: { plan: 'pro' } });
    assert.equal(res.status, 200);
    assert.match(res.body.id, /^cus_[0-9a-z]{26}$/);
    assert.equal(res.body.object, 'customer');
    assert.equal(res.body.environment, 'test');
    assert.equal(res.body.externalId, 'c-1');
    assert.deepEqual(res.body.metadata, { plan: 'pro' });
    assert.equal(res.body.createdAt, new Date(t.clock.now()).toISOString());
    assert.match(String(res.headers['x-request-id']), /^req_/);
  });

  it('200 replays the first response for the same Idempotency-Key and body, creating nothing twice', async () => {
    const headers = { 'idempotency-key': 'create-bob' };
    const first = await api.post('/api/v1/customers', { name: 'Bob' }, headers);
    const second = await api.post('/api/v1/customers', { name: 'Bob' }, headers);
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    const list = await api.get('/api/v1/customers?limit=100');
    assert.equal(list.body.data.filter((c: { name: string }) => c.name === 'Bob').length, 1);
  });

  it('400 names an unknown field', async () => {
    const res = await api.post('/api/v1/customers', { name: 'X', nmae: 'typo' });
    assert.equal(res.status, 400);
    assert.equal(res.body.success, false);
    assert.equal(res.body.errors[0].code, 'VALIDATION_FAILED');
    assert.equal(res.body.errors[0].field, 'body.nmae');
  });

  it('400 names a field of the wrong type and a bad email, together', async () => {
    const res = await api.post('/api/v1/customers', { name: 42, email: 'not-an-email' });
    assert.equal(res.status, 400);
    const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(fields, ['body.email', 'body.name']);
  });

  it('400 for malformed JSON, never 500', async () => {
    const res = await api.post('/api/v1/customers', '{"name": ');
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].code, 'INVALID_JSON');
  });

  it('409 names externalId when it is already taken', async () => {
    await api.post('/api/v1/customers', { externalId: 'dup' });
    const res = await api.post('/api/v1/customers', { externalId: 'dup' });
    assert.equal(res.status, 409);
    assert.equal(res.body.errors[0].field, 'body.externalId');
  });

  it('422 when an Idempotency-Key is reused with a different body', async () => {
    await api.post('/api/v1/customers', { name: 'Carol' }, { 'idempotency-key': 'k-carol' });
    const res = await api.post('/api/v1/customers', { name: 'Dave' }, { 'idempotency-key': 'k-carol' });
    assert.equal(res.status, 422);
    assert.equal(res.body.errors[0].code, 'IDEMPOTENCY_KEY_REUSED');
  });

  it('401 without a key, with the error envelope', async () => {
    const res = await t.seed.client(null).post('/api/v1/customers', { name: 'X' });
    assert.equal(res.status, 401);
    assert.deepEqual(Object.keys(res.body), ['success', 'errors']);
    assert.equal(res.body.errors[0].code, 'UNAUTHENTICATED');
  });

  it('403 for a workspace key without the admin scope', async () => {
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await t.seed.client(key.token).post('/api/v1/customers', { name: 'X' });
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/customers', () => {
  it('200 pages newest first with startingAfter and endingBefore', async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.live.secretKey);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await c.post('/api/v1/customers', { name: `n${i}` })).body.id);
      t.clock.advance(1);
    }
    const p1 = await c.get('/api/v1/customers?limit=2');
    assert.equal(p1.body.object, 'list');
    assert.deepEqual(
      p1.body.data.map((x: { id: string }) => x.id),
      [ids[4], ids[3]],
    );
    assert.equal(p1.body.hasMore, true);
    const p2 = await c.get(`/api/v1/customers?limit=2&startingAfter=${ids[3]}`);
    assert.deepEqual(
      p2.body.data.map((x: { id: string }) => x.id),
      [ids[2], ids[1]],
    );
    const p3 = await c.get(`/api/v1/customers?limit=2&startingAfter=${ids[1]}`);
    assert.deepEqual(
      p3.body.data.map((x: { id: string }) => x.id),
      [ids[0]],
    );
    assert.equal(p3.body.hasMore, false);
    const back = await c.get(`/api/v1/customers?limit=2&endingBefore=${ids[2]}`);
    assert.deepEqual(
      back.body.data.map((x: { id: string }) => x.id),
      [ids[4], ids[3]],
    );
  });

  it('400 names a limit out of range', async () => {
    const res = await api.get('/api/v1/customers?limit=1000');
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'query.limit');
  });

  it('an sk_live_ key never sees test customers', async () => {
    const created = await api.post('/api/v1/customers', { name: 'test-only' });
    const live = t.seed.client(ws.live.secretKey);
    const list = await live.get('/api/v1/customers?limit=100');
    assert.equal(list.status, 200);
    assert.ok(!list.body.data.some((c: { id: string }) => c.id === created.body.id));
    assert.equal((await live.get(`/api/v1/customers/${created.body.id}`)).status, 404);
  });
});

describe('GET /api/v1/customers/:id', () => {
  it('200 returns the customer', async () => {
    const created = await api.post('/api/v1/customers', { name: 'Eve' });
    const res = await api.get(`/api/v1/customers/${created.body.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, created.body);
  });

  it("200 by the customer's externalId too, as ingestion names customers, percent-encoded; the answer carries the cus_ id", async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.test.secretKey);
    const acme = await t.seed.customer(other.test, { externalId: 'acme' });
    const spaced = await t.seed.customer(other.test, { externalId: 'team a/eu 1' });
    // An externalId that is another customer's id: the id match wins, as in ingestion.
    const bob = await t.seed.customer(other.test);
    await t.seed.customer(other.test, { externalId: bob.id });
    for (const [ref, customer] of [
      ['acme', acme],
      [acme.id, acme],
      ['team a/eu 1', spaced],
      [bob.id, bob],
    ] as const) {
      const res = await c.get(`/api/v1/customers/${encodeURIComponent(ref)}`);
      assert.equal(res.status, 200, `${ref}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.id, customer.id, ref);
      assert.equal(res.body.externalId, customer.externalId, ref);
    }
  });

  it("404 names path.id for a reference that names nobody here: unknown, or the other environment's externalId", async () => {
    const other = await t.seed.workspace();
    await t.seed.customer(other.live, { externalId: 'live-only' });
    const stranger = await t.seed.workspace();
    await t.seed.customer(stranger.test, { externalId: 'strangers' });
    const c = t.seed.client(other.test.secretKey);
    for (const ref of ['nobody', 'cus_nope', 'live-only', 'strangers']) {
      const res = await c.get(`/api/v1/customers/${ref}`);
      assert.equal(res.status, 404, ref);
      assert.deepEqual(res.body.errors, [
        { code: 'NOT_FOUND', field: 'path.id', message: `No customer with id or externalId '${ref}' exists in this workspace and environment.` },
      ]);
    }
  });

  it("404 for another workspace's customer, revealing nothing", async () => {
    const created = await api.post('/api/v1/customers', { name: 'Mallory target' });
    const other = await t.seed.workspace();
    const res = await t.seed.client(other.test.secretKey).get(`/api/v1/customers/${created.body.id}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
  });
});

describe('PATCH /api/v1/customers/:id', () => {
  it('200 replaces given fields, clears nulls and keeps the rest', async () => {
    const created = await api.post('/api/v1/customers', { name: 'Frank', email: 'f@example.com' });
    t.clock.advance(1000);
    const res = await api.patch(`/api/v1/customers/${created.body.id}`, { name: 'Frank B', email: null });
    assert.equal(res.status, 200);
    assert.equal(res.body.name, 'Frank B');
    assert.equal(res.body.email, null);
    assert.notEqual(res.body.updatedAt, created.body.updatedAt);
  });

  it('400 for an empty patch', async () => {
    const created = await api.post('/api/v1/customers', { name: 'G' });
    const res = await api.patch(`/api/v1/customers/${created.body.id}`, {});
    assert.equal(res.status, 400);
  });

  it('200 names the customer by its externalId too, even while renaming it; the answer and the audit event carry the cus_ id', async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.test.secretKey);
    const acme = await t.seed.customer(other.test, { externalId: 'acme' });
    const renamed = await c.patch('/api/v1/customers/acme', { name: 'Acme Ltd', externalId: 'acme-2' });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.deepEqual([renamed.body.id, renamed.body.name, renamed.body.externalId], [acme.id, 'Acme Ltd', 'acme-2']);
    const byNewName = await c.patch('/api/v1/customers/acme-2', { email: 'ap@acme.example' });
    assert.deepEqual([byNewName.status, byNewName.body.id, byNewName.body.name], [200, acme.id, 'Acme Ltd']);
    const byId = await c.patch(`/api/v1/customers/${acme.id}`, { name: 'Acme' });
    assert.deepEqual([byId.status, byId.body.id, byId.body.email], [200, acme.id, 'ap@acme.example']);
    assert.equal((await c.patch('/api/v1/customers/acme', { name: 'x' })).status, 404, 'the old externalId names nobody now');
    const events = await t.deps.db
      .selectFrom('auditEvents')
      .select('targetId')
      .where('workspaceId', '=', other.workspaceId)
      .where('eventType', '=', 'customer.updated')
      .execute();
    assert.deepEqual(
      events.map((e) => e.targetId),
      [acme.id, acme.id, acme.id],
    );
  });

  it("404 names path.id for an unknown id or externalId, or the other environment's externalId, changing nothing", async () => {
    const other = await t.seed.workspace();
    const live = await t.seed.customer(other.live, { externalId: 'live-only', name: 'Live' });
    const c = t.seed.client(other.test.secretKey);
    for (const ref of ['cus_nope', 'nobody', 'live-only']) {
      const res = await c.patch(`/api/v1/customers/${ref}`, { name: 'x' });
      assert.equal(res.status, 404, ref);
      assert.deepEqual(res.body.errors, [
        { code: 'NOT_FOUND', field: 'path.id', message: `No customer with id or externalId '${ref}' exists in this workspace and environment.` },
      ]);
    }
    assert.equal((await t.seed.client(other.live.secretKey).get(`/api/v1/customers/${live.id}`)).body.name, 'Live');
  });
});
