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

describe('POST /api/v1/metrics', () => {
  it('200 creates a metric with an mtr_ id and the name exactly as given', async () => {
    const res = await api.post('/api/v1/metrics', {
      name: 'LLM.Tokens:in-v2_x',
      displayName: 'Input tokens',
      description: 'Tokens sent to the model',
      unit: 'token',
    });
    assert.equal(res.status, 200);
    assert.match(res.body.id, /^mtr_[0-9a-z]{26}$/);
    assert.equal(res.body.object, 'metric');
    assert.equal(res.body.environment, 'test');
    assert.equal(res.body.name, 'LLM.Tokens:in-v2_x');
    assert.equal(res.body.displayName, 'Input tokens');
    assert.equal(res.body.description, 'Tokens sent to the model');
    assert.equal(res.body.unit, 'token');
    assert.equal(res.body.createdAt, new Date(t.clock.now()).toISOString());
    assert.deepEqual((await api.get(`/api/v1/metrics/${res.body.id}`)).body, res.body);
  });

  it('200 defaults displayName, description and unit to null, and the dimension paths to the top-level keys', async () => {
    const res = await api.post('/api/v1/metrics', { name: 'bare' });
    assert.equal(res.status, 200);
    assert.equal(res.body.displayName, null);
    assert.equal(res.body.description, null);
    assert.equal(res.body.unit, null);
    assert.deepEqual(res.body.dimensionPaths, { executionStatus: 'executionStatus', tool: 'tool', endpoint: 'endpoint' });
  });

  it('200 takes dotted dimension paths, a dimension left out keeping its default', async () => {
    const res = await api.post('/api/v1/metrics', { name: 'nested.calls', dimensionPaths: { tool: 'call.tool', endpoint: 'request.route.name' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const paths = { executionStatus: 'executionStatus', tool: 'call.tool', endpoint: 'request.route.name' };
    assert.deepEqual(res.body.dimensionPaths, paths);
    assert.deepEqual((await api.get(`/api/v1/metrics/${res.body.id}`)).body.dimensionPaths, paths);
  });

  const badPaths: Array<[string, string]> = [
    ['an empty segment', 'call..tool'],
    ['six segments', 'a.b.c.d.e.f'],
    ['a space', 'call tool'],
    ['an array index', 'calls[0].tool'],
    ['a quote', 'call".tool'],
  ];
  for (const [why, path] of badPaths) {
    it(`400 names body.dimensionPaths.tool for a path with ${why}`, async () => {
      const res = await api.post('/api/v1/metrics', { name: `bad.path.${why.length}`, dimensionPaths: { tool: path } });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.errors[0].field, 'body.dimensionPaths.tool');
    });
  }

  it('200 for the same name in the live environment and in another workspace', async () => {
    const first = await api.post('/api/v1/metrics', { name: 'api_calls' });
    assert.equal(first.status, 200);
    const live = await t.seed.client(ws.live.secretKey).post('/api/v1/metrics', { name: 'api_calls' });
    assert.equal(live.status, 200);
    assert.equal(live.body.environment, 'live');
    const other = await t.seed.workspace();
    const elsewhere = await t.seed.client(other.test.secretKey).post('/api/v1/metrics', { name: 'api_calls' });
    assert.equal(elsewhere.status, 200);
    assert.equal(new Set([first.body.id, live.body.id, elsewhere.body.id]).size, 3);
  });

  it('200 replays the first response for the same Idempotency-Key and body, instead of a 409', async () => {
    const headers = { 'idempotency-key': 'create-metric-once' };
    const first = await api.post('/api/v1/metrics', { name: 'replayed' }, headers);
    const second = await api.post('/api/v1/metrics', { name: 'replayed' }, headers);
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
  });

  it('409 names body.name when the name is taken in the same workspace and environment', async () => {
    const first = await api.post('/api/v1/metrics', { name: 'duplicate.me' });
    assert.equal(first.status, 200);
    const res = await api.post('/api/v1/metrics', { name: 'duplicate.me', displayName: 'Another' });
    assert.equal(res.status, 409);
    assert.equal(res.body.errors[0].code, 'CONFLICT');
    assert.equal(res.body.errors[0].field, 'body.name');
    assert.match(res.body.errors[0].message, /duplicate\.me/);
    const list = await api.get('/api/v1/metrics?name=duplicate.me');
    assert.deepEqual(ids(list), [first.body.id]);
  });

  for (const [why, name] of [
    ['a space inside', 'api calls'],
    ['a leading space', ' api_calls'],
    ['a leading underscore', '_internal'],
    ['a leading dot', '.hidden'],
    ['a slash', 'a/b'],
    ['nothing at all', ''],
    ['101 characters', `m${'x'.repeat(100)}`],
  ] as const) {
    it(`400 names body.name for a name with ${why}`, async () => {
      const res = await api.post('/api/v1/metrics', { name });
      assert.equal(res.status, 400);
      assert.equal(res.body.errors[0].code, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].field, 'body.name');
    });
  }

  it('200 for a name of exactly 100 characters', async () => {
    const name = `m${'x'.repeat(99)}`;
    const res = await api.post('/api/v1/metrics', { name });
    assert.equal(res.status, 200);
    assert.equal(res.body.name, name);
  });

  it('400 names body.name when it is missing', async () => {
    const res = await api.post('/api/v1/metrics', { unit: 'request' });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'body.name');
  });

  it('401 without a key', async () => {
    const res = await t.seed.client(null).post('/api/v1/metrics', { name: 'x' });
    assert.equal(res.status, 401);
    assert.equal(res.body.errors[0].code, 'UNAUTHENTICATED');
  });

  it('403 for a workspace key without the admin scope', async () => {
    const key = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await t.seed.client(key.token).post('/api/v1/metrics', { name: 'x' });
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/metrics', () => {
  it('200 pages newest first', async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.test.secretKey);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      made.push((await c.post('/api/v1/metrics', { name: `m${i}` })).body.id);
      t.clock.advance(1);
    }
    const p1 = await c.get('/api/v1/metrics?limit=2');
    assert.equal(p1.status, 200);
    assert.equal(p1.body.object, 'list');
    assert.deepEqual(ids(p1), [made[2], made[1]]);
    assert.equal(p1.body.hasMore, true);
    const p2 = await c.get(`/api/v1/metrics?limit=2&startingAfter=${made[1]}`);
    assert.deepEqual(ids(p2), [made[0]]);
    assert.equal(p2.body.hasMore, false);
  });

  it('200 with ?name= returns only the metric of exactly that name', async () => {
    const other = await t.seed.workspace();
    const c = t.seed.client(other.test.secretKey);
    const exact = (await c.post('/api/v1/metrics', { name: 'tokens' })).body.id;
    await c.post('/api/v1/metrics', { name: 'tokens.in' });
    await c.post('/api/v1/metrics', { name: 'Tokens' });
    await c.post('/api/v1/metrics', { name: 'xtokens' });

    const res = await c.get('/api/v1/metrics?name=tokens');
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), [exact]);
    assert.deepEqual(ids(await c.get('/api/v1/metrics?name=token')), []);
    assert.deepEqual(ids(await c.get('/api/v1/metrics?name=tokens%25')), []);
  });

  it('200 with ?name= finds nothing from another environment', async () => {
    await api.post('/api/v1/metrics', { name: 'test.side.only' });
    const res = await t.seed.client(ws.live.secretKey).get('/api/v1/metrics?name=test.side.only');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, []);
  });

  it('400 names an unknown query parameter', async () => {
    const res = await api.get('/api/v1/metrics?nmae=x');
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'query.nmae');
  });
});

describe('GET /api/v1/metrics/:id', () => {
  it("404 for another workspace's metric, revealing nothing", async () => {
    const created = await api.post('/api/v1/metrics', { name: 'secret.metric' });
    const other = await t.seed.workspace();
    const res = await t.seed.client(other.test.secretKey).get(`/api/v1/metrics/${created.body.id}`);
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.ok(!JSON.stringify(res.body).includes('secret.metric'));
  });

  it('404 from the live key for a test metric', async () => {
    const created = await api.post('/api/v1/metrics', { name: 'test.metric' });
    const res = await t.seed.client(ws.live.secretKey).get(`/api/v1/metrics/${created.body.id}`);
    assert.equal(res.status, 404);
  });
});

describe('PATCH /api/v1/metrics/:id', () => {
  it('200 changes displayName, description and unit, clears nulls, and keeps the name', async () => {
    const created = await api.post('/api/v1/metrics', { name: 'patched', displayName: 'Old', description: 'd', unit: 'call' });
    t.clock.advance(1000);
    const res = await api.patch(`/api/v1/metrics/${created.body.id}`, { displayName: 'New', description: null, unit: 'request' });
    assert.equal(res.status, 200);
    assert.equal(res.body.name, 'patched');
    assert.equal(res.body.displayName, 'New');
    assert.equal(res.body.description, null);
    assert.equal(res.body.unit, 'request');
    assert.equal(res.body.createdAt, created.body.createdAt);
    assert.equal(res.body.updatedAt, new Date(t.clock.now()).toISOString());
    assert.deepEqual((await api.get(`/api/v1/metrics/${created.body.id}`)).body, res.body);
  });

  it('400 when asked to change the name, naming body.name as an unknown field, and the name stays', async () => {
    const created = await api.post('/api/v1/metrics', { name: 'fixed.name' });
    const res = await api.patch(`/api/v1/metrics/${created.body.id}`, { name: 'renamed' });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].code, 'VALIDATION_FAILED');
    assert.equal(res.body.errors[0].field, 'body.name');
    assert.match(res.body.errors[0].message, /not a known field/);
    assert.equal((await api.get(`/api/v1/metrics/${created.body.id}`)).body.name, 'fixed.name');
  });

  it('400 when asked to change the dimension paths, which stay as created', async () => {
    const created = await api.post('/api/v1/metrics', { name: 'fixed.paths', dimensionPaths: { tool: 'call.tool' } });
    const res = await api.patch(`/api/v1/metrics/${created.body.id}`, { dimensionPaths: { tool: 'tool' } });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'body.dimensionPaths');
    assert.match(res.body.errors[0].message, /not a known field/);
    assert.equal((await api.get(`/api/v1/metrics/${created.body.id}`)).body.dimensionPaths.tool, 'call.tool');
  });

  it('400 for an empty patch', async () => {
    const created = await api.post('/api/v1/metrics', { name: 'empty.patch' });
    const res = await api.patch(`/api/v1/metrics/${created.body.id}`, {});
    assert.equal(res.status, 400);
  });

  it("404 for another workspace's metric, which stays unchanged", async () => {
    const created = await api.post('/api/v1/metrics', { name: 'guarded', unit: 'call' });
    const other = await t.seed.workspace();
    const res = await t.seed.client(other.test.secretKey).patch(`/api/v1/metrics/${created.body.id}`, { unit: 'hijacked' });
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.equal((await api.get(`/api/v1/metrics/${created.body.id}`)).body.unit, 'call');
  });
});
