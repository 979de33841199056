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

const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((x) => x.id);

describe('POST /api/v1/products', () => {
  it('200 creates a product and returns it with a prod_ id', async () => {
    const res = await api.post('/api/v1/products', {
      name: 'Search API',
      kind: 'STANDARD_API',
      description: 'Full-text search',
      metadata: { team: 'search' },
    });
    assert.equal(res.status, 200);
    assert.match(res.body.id, /^prod_[0-9a-z]{26}$/);
    assert.equal(res.body.object, 'product');
    assert.equal(res.body.environment, 'test');
    assert.equal(res.body.name, 'Search API');
    assert.equal(res.body.kind, 'STANDARD_API');
    assert.equal(res.body.description, 'Full-text search');
    assert.deepEqual(res.body.metadata, { team: 'search' });
    assert.equal(res.body.createdAt, new Date(t.clock.now()).toISOString());
    assert.equal(res.body.updatedAt, res.body.createdAt);
  });

  it('200 accepts each of the four kinds', async () => {
    for (const kind of ['STANDARD_API', 'AGENTIC_API', 'AI_AGENT', 'MCP_SERVER']) {
      const res = await api.post('/api/v1/products', { name: `k-${kind}`, kind });
      assert.equal(res.status, 200, kind);
      assert.equal(res.body.kind, kind);
    }
  });

  it('200 defaults description to null and metadata to {}', async () => {
    const res = await api.post('/api/v1/products', { name: 'Bare', kind: 'AI_AGENT' });
    assert.equal(res.status, 200);
    assert.equal(res.body.description, null);
    assert.deepEqual(res.body.metadata, {});
  });

  it('200 replays the first response for the same Idempotency-Key and body, creating nothing twice', async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.test.secretKey);
    const headers = { 'idempotency-key': 'create-prod' };
    const first = await c.post('/api/v1/products', { name: 'Once', kind: 'MCP_SERVER' }, headers);
    const second = await c.post('/api/v1/products', { name: 'Once', kind: 'MCP_SERVER' }, headers);
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.deepEqual(ids(await c.get('/api/v1/products?limit=100')), [first.body.id]);
  });

  it('400 for a kind outside the four, listing the allowed values and naming body.kind', async () => {
    const res = await api.post('/api/v1/products', { name: 'X', kind: 'GRAPHQL_API' });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors.length, 1);
    const [err] = res.body.errors;
    assert.equal(err.code, 'VALIDATION_FAILED');
    assert.equal(err.field, 'body.kind');
    for (const kind of ['STANDARD_API', 'AGENTIC_API', 'AI_AGENT', 'MCP_SERVER']) assert.ok(err.message.includes(kind), err.message);
  });

  it('400 names body.kind when it is missing', async () => {
    const res = await api.post('/api/v1/products', { name: 'X' });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'body.kind');
    assert.match(res.body.errors[0].message, /required/);
  });

  it('400 names an empty name and an unknown field, together', async () => {
    const res = await api.post('/api/v1/products', { name: '', kind: 'STANDARD_API', price: '10' });
    assert.equal(res.status, 400);
    const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(fields, ['body.name', 'body.price']);
  });

  it('401 without a key, with the error envelope', async () => {
    const res = await t.seed.client(null).post('/api/v1/products', { name: 'X', kind: 'STANDARD_API' });
    assert.equal(res.status, 401);
    assert.deepEqual(Object.keys(res.body), ['success', 'errors']);
    assert.equal(res.body.errors[0].code, 'UNAUTHENTICATED');
  });

  it('403 for a workspace key without the admin scope', async () => {
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await t.seed.client(key.token).post('/api/v1/products', { name: 'X', kind: 'STANDARD_API' });
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/products', () => {
  it('200 pages newest first with startingAfter and endingBefore', async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.live.secretKey);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push((await c.post('/api/v1/products', { name: `p${i}`, kind: 'STANDARD_API' })).body.id);
      t.clock.advance(1);
    }
    const p1 = await c.get('/api/v1/products?limit=2');
    assert.equal(p1.status, 200);
    assert.equal(p1.body.object, 'list');
    assert.deepEqual(ids(p1), [made[4], made[3]]);
    assert.equal(p1.body.hasMore, true);
    const p2 = await c.get(`/api/v1/products?limit=2&startingAfter=${made[3]}`);
    assert.deepEqual(ids(p2), [made[2], made[1]]);
    assert.equal(p2.body.hasMore, true);
    const p3 = await c.get(`/api/v1/products?limit=2&startingAfter=${made[1]}`);
    assert.deepEqual(ids(p3), [made[0]]);
    assert.equal(p3.body.hasMore, false);
    const back = await c.get(`/api/v1/products?limit=2&endingBefore=${made[2]}`);
    assert.deepEqual(ids(back), [made[4], made[3]]);
  });

  it('200 with ?kind= returns only products of that kind', async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.test.secretKey);
    const agent = (await c.post('/api/v1/products', { name: 'Agent', kind: 'AI_AGENT' })).body.id;
    t.clock.advance(1);
    await c.post('/api/v1/products', { name: 'Api', kind: 'STANDARD_API' });
    t.clock.advance(1);
    const mcp = (await c.post('/api/v1/products', { name: 'Mcp', kind: 'MCP_SERVER' })).body.id;
    t.clock.advance(1);
    const agent2 = (await c.post('/api/v1/products', { name: 'Agent 2', kind: 'AI_AGENT' })).body.id;

    const agents = await c.get('/api/v1/products?kind=AI_AGENT');
    assert.equal(agents.status, 200);
    assert.deepEqual(ids(agents), [agent2, agent]);
    assert.deepEqual(ids(await c.get('/api/v1/products?kind=MCP_SERVER')), [mcp]);
    assert.deepEqual(ids(await c.get('/api/v1/products?kind=AGENTIC_API')), []);

    const firstPage = await c.get('/api/v1/products?kind=AI_AGENT&limit=1');
    assert.deepEqual(ids(firstPage), [agent2]);
    assert.equal(firstPage.body.hasMore, true);
    const next = await c.get(`/api/v1/products?kind=AI_AGENT&limit=1&startingAfter=${agent2}`);
    assert.deepEqual(ids(next), [agent]);
    assert.equal(next.body.hasMore, false);
  });

  it('400 for an unknown ?kind=, naming query.kind', async () => {
    const res = await api.get('/api/v1/products?kind=SOAP');
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'query.kind');
    assert.match(res.body.errors[0].message, /STANDARD_API/);
  });

  it('400 names a limit out of range', async () => {
    const res = await api.get('/api/v1/products?limit=0');
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'query.limit');
  });

  it('an sk_live_ key never sees test products, and the reverse', async () => {
    const testProduct = await api.post('/api/v1/products', { name: 'test-only', kind: 'STANDARD_API' });
    const live = t.seed.client(ws.live.secretKey);
    const liveProduct = await live.post('/api/v1/products', { name: 'live-only', kind: 'STANDARD_API' });
    assert.equal(liveProduct.body.environment, 'live');

    const liveList = await live.get('/api/v1/products?limit=100');
    assert.ok(!ids(liveList).includes(testProduct.body.id));
    assert.ok(ids(liveList).includes(liveProduct.body.id));
    assert.equal((await live.get(`/api/v1/products/${testProduct.body.id}`)).status, 404);

    const testList = await api.get('/api/v1/products?limit=100');
    assert.ok(!ids(testList).includes(liveProduct.body.id));
    assert.equal((await api.get(`/api/v1/products/${liveProduct.body.id}`)).status, 404);
  });

  it('401 without a key', async () => {
    const res = await t.seed.client(null).get('/api/v1/products');
    assert.equal(res.status, 401);
    assert.equal(res.body.errors[0].code, 'UNAUTHENTICATED');
  });

  it('403 for a workspace key without the admin scope', async () => {
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await t.seed.client(key.token).get('/api/v1/products');
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/products/:id', () => {
  it('200 returns the product as it was created', async () => {
    const created = await api.post('/api/v1/products', { name: 'Fetch me', kind: 'AGENTIC_API', metadata: { a: 'b' } });
    const res = await api.get(`/api/v1/products/${created.body.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, created.body);
  });

  it("404 for another workspace's product, revealing nothing", async () => {
    const created = await api.post('/api/v1/products', { name: 'Mallory target', kind: 'STANDARD_API' });
    const other = await t.seed.workspace();
    const res = await t.seed.client(other.test.secretKey).get(`/api/v1/products/${created.body.id}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.ok(!JSON.stringify(res.body).includes('Mallory'));
  });

  it('404 for an unknown id', async () => {
    const res = await api.get('/api/v1/products/prod_nope');
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
  });
});

describe('PATCH /api/v1/products/:id', () => {
  it('200 replaces given fields, clears a null description and keeps the kind', async () => {
    const created = await api.post('/api/v1/products', {
      name: 'Old name',
      kind: 'MCP_SERVER',
      description: 'old',
      metadata: { v: '1' },
    });
    t.clock.advance(1000);
    const res = await api.patch(`/api/v1/products/${created.body.id}`, { name: 'New name', description: null, metadata: { v: '2' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.id, created.body.id);
    assert.equal(res.body.name, 'New name');
    assert.equal(res.body.description, null);
    assert.deepEqual(res.body.metadata, { v: '2' });
    assert.equal(res.body.kind, 'MCP_SERVER');
    assert.equal(res.body.createdAt, created.body.createdAt);
    assert.equal(res.body.updatedAt, new Date(t.clock.now()).toISOString());
    assert.deepEqual((await api.get(`/api/v1/products/${created.body.id}`)).body, res.body);
  });

  it('200 leaves fields not sent unchanged', async () => {
    const created = await api.post('/api/v1/products', { name: 'Keep', kind: 'STANDARD_API', description: 'kept', metadata: { k: 'v' } });
    const res = await api.patch(`/api/v1/products/${created.body.id}`, { name: 'Kept' });
    assert.equal(res.status, 200);
    assert.equal(res.body.description, 'kept');
    assert.deepEqual(res.body.metadata, { k: 'v' });
  });

  it('400 when asked to change the kind, naming body.kind as an unknown field, and the kind stays', async () => {
    const created = await api.post('/api/v1/products', { name: 'Fixed', kind: 'STANDARD_API' });
    const res = await api.patch(`/api/v1/products/${created.body.id}`, { kind: 'AI_AGENT' });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].code, 'VALIDATION_FAILED');
    assert.equal(res.body.errors[0].field, 'body.kind');
    assert.match(res.body.errors[0].message, /not a known field/);
    assert.equal((await api.get(`/api/v1/products/${created.body.id}`)).body.kind, 'STANDARD_API');
  });

  it('400 for an empty patch', async () => {
    const created = await api.post('/api/v1/products', { name: 'E', kind: 'STANDARD_API' });
    const res = await api.patch(`/api/v1/products/${created.body.id}`, {});
    assert.equal(res.status, 400);
  });

  it("404 for another workspace's product, which stays unchanged", async () => {
    const created = await api.post('/api/v1/products', { name: 'Untouchable', kind: 'STANDARD_API' });
    const other = await t.seed.workspace();
    const res = await t.seed.client(other.test.secretKey).patch(`/api/v1/products/${created.body.id}`, { name: 'Hijacked' });
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.equal((await api.get(`/api/v1/products/${created.body.id}`)).body.name, 'Untouchable');
  });

  it('404 from the live key for a test product', async () => {
    const created = await api.post('/api/v1/products', { name: 'Test side', kind: 'STANDARD_API' });
    const res = await t.seed.client(ws.live.secretKey).patch(`/api/v1/products/${created.body.id}`, { name: 'x' });
    assert.equal(res.status, 404);
  });

  it('403 for a workspace key without the admin scope', async () => {
    const created = await api.post('/api/v1/products', { name: 'Scoped', kind: 'STANDARD_API' });
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await t.seed.client(key.token).patch(`/api/v1/products/${created.body.id}`, { name: 'x' });
    assert.equal(res.status, 403);
    assert.equal((await api.get(`/api/v1/products/${created.body.id}`)).body.name, 'Scoped');
  });
});
