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

const eventsFor = (targetId: string) => t.deps.db.selectFrom('auditEvents').selectAll().where('targetId', '=', targetId).orderBy('id').execute();

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
    const before = await t.deps.db
      .selectFrom('auditEvents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    await api.post('/api/v1/metrics', { name: 'dup_metric' });
    const dup = await api.post('/api/v1/metrics', { name: 'dup_metric' });
    assert.equal(dup.status, 409);
    const afterCount = await t.deps.db
      .selectFrom('auditEvents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(afterCount.n) - Number(before.n), 1);
  });

  it('an update records what changed', async () => {
    const c = await api.post('/api/v1/customers', { name: 'Old' });
    await api.patch(`/api/v1/customers/${c.body.id}`, { name: 'New' });
    const events = await eventsFor(c.body.id);
    assert.deepEqual(
      events.map((e) => e.eventType),
      ['customer.created', 'customer.updated'],
    );
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

describe('GET /v1/events', () => {
  it("200 lists the key's workspace events newest first, with the spec's fields", async () => {
    const w = await t.seed.workspace();
    const key = t.seed.client(w.test.secretKey);
    await key.post('/api/v1/customers', { name: 'one' }, { 'x-correlation-id': 'corr-events-1' });
    const res = await key.get(`/v1/events?tenant_id=${w.workspaceId}&limit=100`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.object, 'list');
    const ids = res.body.data.map((e: { eventId: string }) => e.eventId);
    assert.deepEqual(ids, [...ids].sort().reverse(), 'newest first');
    const created = res.body.data.find((e: { eventType: string }) => e.eventType === 'customer.created');
    assert.ok(created, 'the create is listed');
    assert.deepEqual(Object.keys(created).sort(), [
      'actorId',
      'actorType',
      'correlationId',
      'createdAt',
      'environment',
      'eventId',
      'eventType',
      'object',
      'payload',
      'severity',
      'source',
      'targetId',
      'targetType',
      'tenantId',
    ]);
    assert.equal(created.tenantId, w.workspaceId);
    assert.equal(created.environment, 'test');
    assert.equal(created.correlationId, 'corr-events-1');
    assert.equal(created.actorType, 'WORKSPACE_KEY');
    assert.equal(typeof created.payload, 'object');
  });

  it('200 pages with startingAfter and endingBefore, every event once', async () => {
    const w = await t.seed.workspace();
    const key = t.seed.client(w.test.secretKey);
    for (let i = 0; i < 5; i++) await key.post('/api/v1/customers', { name: `c${i}` });
    const all = (await key.get('/v1/events?limit=100')).body.data.map((e: { eventId: string }) => e.eventId);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await key.get(`/v1/events?limit=2${cursor ? `&startingAfter=${cursor}` : ''}`);
      assert.equal(page.status, 200);
      seen.push(...page.body.data.map((e: { eventId: string }) => e.eventId));
      if (!page.body.hasMore) break;
      cursor = seen[seen.length - 1];
    }
    assert.deepEqual(seen, all);
    const back = await key.get(`/v1/events?limit=2&endingBefore=${all[2]}`);
    assert.deepEqual(
      back.body.data.map((e: { eventId: string }) => e.eventId),
      all.slice(0, 2),
    );
  });

  it("404 for any tenant_id but the key's own, the same for one that does not exist: nothing is revealed", async () => {
    const w = await t.seed.workspace();
    const other = await t.seed.workspace();
    const key = t.seed.client(w.test.secretKey);
    const foreign = await key.get(`/v1/events?tenant_id=${other.workspaceId}`);
    const missing = await key.get('/v1/events?tenant_id=ws_doesnotexist');
    assert.equal(foreign.status, 404);
    assert.equal(missing.status, 404);
    assert.equal(foreign.body.errors[0].code, missing.body.errors[0].code);
    assert.equal(foreign.body.errors[0].field, 'query.tenant_id');
  });

  it("never lists another workspace's or environment's events", async () => {
    const w = await t.seed.workspace();
    const other = await t.seed.workspace();
    await t.seed.client(other.test.secretKey).post('/api/v1/customers', { name: 'theirs' });
    await t.seed.client(w.test.secretKey).post('/api/v1/customers', { name: 'test only' });
    const live = await t.seed.client(w.live.secretKey).get('/v1/events?limit=100');
    assert.equal(live.status, 200);
    for (const e of live.body.data) assert.deepEqual([e.tenantId, e.environment], [w.workspaceId, 'live']);
    const test = await t.seed.client(w.test.secretKey).get('/v1/events?limit=100');
    for (const e of test.body.data) assert.deepEqual([e.tenantId, e.environment], [w.workspaceId, 'test']);
  });

  it('403 without the events:read scope; 200 with it alone', async () => {
    const w = await t.seed.workspace();
    const ingestOnly = await t.seed.workspaceKey(w.test, ['ingest']);
    const reader = await t.seed.workspaceKey(w.test, ['events:read']);
    assert.equal((await t.seed.client(ingestOnly.token).get('/v1/events')).status, 403);
    assert.equal((await t.seed.client(reader.token).get('/v1/events')).status, 200);
  });
});

describe('GET /v1/events filters', () => {
  it('finds a key rotation by type, by type prefix, by actor, by target and by correlation id; filters combine with AND', async () => {
    const w = await t.seed.workspace();
    const key = t.seed.client(w.test.secretKey);
    const product = await t.seed.productKey(w.test);
    const rotated = await key.post(`/api/v1/api-keys/${product.id}/rotate`, undefined, { 'x-correlation-id': 'rotate-42' });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const types = async (query: string) => {
      const res = await key.get(`/v1/events?limit=100&${query}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data.map((e: { eventType: string }) => e.eventType);
    };
    assert.deepEqual(await types('type=api_key.rotated'), ['api_key.rotated']);
    assert.ok((await types('type=api_key.*')).every((x: string) => x.startsWith('api_key.')));
    assert.ok((await types('type=api_key.*')).includes('api_key.rotated'));
    assert.deepEqual(await types('correlationId=rotate-42'), ['api_key.rotated']);
    assert.deepEqual(await types(`targetType=api_key&targetId=${product.id}&type=api_key.rotated`), ['api_key.rotated']);
    assert.ok((await types(`actorType=WORKSPACE_KEY&actorId=${w.test.keyId}`)).includes('api_key.rotated'));
    assert.deepEqual(await types('type=api_key.rotated&correlationId=someone-else'), []);
  });

  it('severity=WARN lists WARN and above only; a time range is to the second', async () => {
    const w = await t.seed.workspace();
    const key = t.seed.client(w.test.secretKey);
    const product = await t.seed.productKey(w.test);
    await key.delete(`/api/v1/api-keys/${product.id}`);
    // A revoked key's failed call is recorded in its own workspace at WARN.
    assert.equal((await t.seed.client(product.token).get(`/api/v1/api-keys/${product.id}`)).status, 401);
    const warn = await key.get('/v1/events?limit=100&severity=WARN');
    assert.equal(warn.status, 200);
    assert.ok(warn.body.data.length >= 1);
    for (const e of warn.body.data) assert.ok(['WARN', 'ERROR', 'CRITICAL'].includes(e.severity), e.severity);
    const now = new Date(t.clock.now());
    now.setUTCMilliseconds(0);
    const from = now.toISOString().replace('.000Z', 'Z');
    const to = new Date(now.getTime() + 1000).toISOString().replace('.000Z', 'Z');
    const inRange = await key.get(`/v1/events?limit=100&createdFrom=${from}&createdTo=${to}`);
    assert.equal(inRange.status, 200);
    assert.ok(inRange.body.data.length >= 1);
    const before = await key.get(`/v1/events?limit=100&createdTo=${from}`);
    assert.deepEqual(
      before.body.data.filter((e: { createdAt: string }) => Date.parse(e.createdAt) >= now.getTime()),
      [],
    );
  });

  it('400 names each bad filter', async () => {
    const w = await t.seed.workspace();
    const res = await t.seed.client(w.test.secretKey).get('/v1/events?type=BAD TYPE&severity=LOUD');
    assert.equal(res.status, 400);
    assert.deepEqual(
      res.body.errors.map((e: { field: string }) => e.field),
      ['query.type', 'query.severity'],
    );
  });
});

describe('GET /v1/events full-text search (q)', () => {
  it('finds a key rotation by type, by actor and by a word of its payload', async () => {
    const w = await t.seed.workspace();
    const key = t.seed.client(w.test.secretKey);
    const product = await t.seed.productKey(w.test);
    const rotated = await key.post(`/api/v1/api-keys/${product.id}/rotate`);
    assert.equal(rotated.status, 200);
    const ids = async (query: string) => {
      const res = await key.get(`/v1/events?limit=100&${query}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data.map((e: { eventType: string; targetId: string }) => `${e.eventType} ${e.targetId}`);
    };
    const expected = [`api_key.rotated ${product.id}`];
    assert.deepEqual(await ids('type=api_key.rotated'), expected);
    assert.deepEqual(await ids(`type=api_key.rotated&actorId=${w.test.keyId}`), expected);
    // The payload names the successor key: one of its words finds the event.
    assert.deepEqual(await ids(`q=${encodeURIComponent(rotated.body.id)}`), expected);
    assert.deepEqual(await ids('q=rotated'), expected, 'the words of the event type are searched too');
    assert.deepEqual(await ids(`q=rotated&actorId=${w.test.keyId}`), expected, 'with an id filter the b-tree index drives');
  });

  it('every word must appear, case-insensitively; a trailing * is a prefix; other filters combine with AND', async () => {
    const w = await t.seed.workspace();
    const key = t.seed.client(w.test.secretKey);
    const names = ['Quokka Logistics', 'Quokka Bakery', 'Wombat Logistics'];
    for (const name of names) assert.equal((await key.post('/api/v1/customers', { name })).status, 200);
    const found = async (q: string, extra = '') => {
      const res = await key.get(`/v1/events?limit=100&q=${encodeURIComponent(q)}${extra}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data.map((e: { payload: { name: string } }) => e.payload.name);
    };
    assert.deepEqual(await found('quokka'), ['Quokka Bakery', 'Quokka Logistics']);
    assert.deepEqual(await found('QUOKKA logistics'), ['Quokka Logistics']);
    assert.deepEqual(await found('quok*'), ['Quokka Bakery', 'Quokka Logistics']);
    assert.deepEqual(await found('quok'), [], 'whole words without *');
    assert.deepEqual(await found('logistics', '&type=customer.*'), ['Wombat Logistics', 'Quokka Logistics']);
    assert.deepEqual(await found('logistics', '&type=product.*'), []);
    assert.deepEqual(await found('logistics', '&severity=WARN'), []);
    assert.deepEqual(
      await found('logistics', '&type=customer.created&severity=INFO'),
      ['Wombat Logistics', 'Quokka Logistics'],
      'an exact type and a severity met',
    );
    assert.deepEqual(await found('logistics', '&type=customer.created&severity=NOTICE'), []);
    const minuteAgo = new Date(Math.floor(t.clock.now() / 1000) * 1000 - 60_000).toISOString();
    assert.deepEqual(await found('logistics', `&createdFrom=${minuteAgo}`), ['Wombat Logistics', 'Quokka Logistics'], 'a time range bounds the walk');
    assert.deepEqual(await found('logistics', `&createdTo=${minuteAgo}`), []);
  });

  it("pages a search with startingAfter and endingBefore, and never shows another tenant's events", async () => {
    const w = await t.seed.workspace();
    const stranger = await t.seed.workspace();
    const key = t.seed.client(w.test.secretKey);
    for (let i = 0; i < 5; i++) assert.equal((await key.post('/api/v1/customers', { name: `Pangolin ${i}` })).status, 200);
    assert.equal((await t.seed.client(stranger.test.secretKey).post('/api/v1/customers', { name: 'Pangolin stranger' })).status, 200);
    assert.equal((await t.seed.client(w.live.secretKey).post('/api/v1/customers', { name: 'Pangolin live' })).status, 200);
    const page = async (query: string) => {
      const res = await key.get(`/v1/events?q=pangolin&limit=2${query}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return {
        names: res.body.data.map((e: { payload: { name: string } }) => e.payload.name),
        ids: res.body.data.map((e: { eventId: string }) => e.eventId),
        hasMore: res.body.hasMore,
      };
    };
    const p1 = await page('');
    const p2 = await page(`&startingAfter=${p1.ids[1]}`);
    const p3 = await page(`&startingAfter=${p2.ids[1]}`);
    assert.deepEqual([...p1.names, ...p2.names, ...p3.names], ['Pangolin 4', 'Pangolin 3', 'Pangolin 2', 'Pangolin 1', 'Pangolin 0']);
    assert.deepEqual([p1.hasMore, p2.hasMore, p3.hasMore], [true, true, false]);
    const back = await page(`&endingBefore=${p3.ids[0]}`);
    assert.deepEqual(back.names, ['Pangolin 2', 'Pangolin 1']);
  });

  it('400 names q when it holds no word', async () => {
    const res = await api.get('/v1/events?q=%2A%2A');
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'query.q');
  });
});

describe('saved audit searches', () => {
  it('create, list, run and delete; a run applies the saved filters', async () => {
    const w = await t.seed.workspace();
    const key = t.seed.client(w.test.secretKey);
    const product = await t.seed.productKey(w.test);
    await key.post(`/api/v1/api-keys/${product.id}/rotate`);
    const created = await key.post('/api/v1/events/presets', { name: 'Key changes', filters: { type: 'api_key.*' } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.match(created.body.id, /^asp_/);
    assert.deepEqual(created.body.filters, { type: 'api_key.*' });
    const listed = await key.get('/api/v1/events/presets');
    assert.deepEqual(
      listed.body.data.map((p: { name: string }) => p.name),
      ['Key changes'],
    );
    const run = await key.get(`/api/v1/events/presets/${created.body.id}/events?limit=100`);
    assert.equal(run.status, 200);
    assert.ok(run.body.data.length >= 1);
    for (const e of run.body.data) assert.match(e.eventType, /^api_key\./);
    assert.ok(run.body.data.some((e: { eventType: string }) => e.eventType === 'api_key.rotated'));
    const deleted = await key.delete(`/api/v1/events/presets/${created.body.id}`);
    assert.deepEqual(deleted.body, { id: created.body.id, object: 'audit_search_preset', deleted: true });
    assert.equal((await key.get(`/api/v1/events/presets/${created.body.id}/events`)).status, 404);
    assert.equal((await key.delete(`/api/v1/events/presets/${created.body.id}`)).status, 404);
  });

  it('400 names a bad saved filter; 409 for a name in use; presets are per workspace and environment', async () => {
    const w = await t.seed.workspace();
    const other = await t.seed.workspace();
    const key = t.seed.client(w.test.secretKey);
    const bad = await key.post('/api/v1/events/presets', { name: 'Bad', filters: { severity: 'LOUD' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].field, 'body.filters.severity');
    const first = await key.post('/api/v1/events/presets', { name: 'Warnings', filters: { severity: 'WARN' } });
    assert.equal(first.status, 200);
    const again = await key.post('/api/v1/events/presets', { name: 'Warnings', filters: {} });
    assert.equal(again.status, 409);
    assert.equal(again.body.errors[0].field, 'body.name');
    assert.equal((await t.seed.client(w.live.secretKey).get(`/api/v1/events/presets/${first.body.id}/events`)).status, 404);
    assert.equal((await t.seed.client(other.test.secretKey).get(`/api/v1/events/presets/${first.body.id}/events`)).status, 404);
    assert.deepEqual((await t.seed.client(w.live.secretKey).get('/api/v1/events/presets')).body.data, []);
    // The same name is free in the live environment.
    assert.equal((await t.seed.client(w.live.secretKey).post('/api/v1/events/presets', { name: 'Warnings', filters: {} })).status, 200);
  });
});
