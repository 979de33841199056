import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client } from '../../../test/helpers/seed.js';
import { hubBrowser, openedHubSession, type HubBrowser } from '../../../test/helpers/hub.js';
import { createDemoWorkspace, type DemoEnvironment } from '../../demo/create-demo-workspace.js';
import { findCredentialBySecret } from '../authentication/find-credential.js';

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const iso = (ms: number) => new Date(ms).toISOString();

interface Customer {
  customerId: string;
  subscriptionId: string;
  keyId: string;
  key: string;
  invoiceId: string;
  creditNoteId: string;
}

interface World {
  env: DemoEnvironment;
  api: Client;
  workspaceId: string;
  a: Customer;
  b: Customer;
  /** Customer a's browser in the hub. */
  hub: HubBrowser;
}

async function issued(api: Client, subscriptionId: string): Promise<{ invoiceId: string; creditNoteId: string }> {
  const [draft] = (await api.get(`/api/v1/invoices?subscriptionId=${subscriptionId}`)).body.data;
  assert.equal((await api.post(`/api/v1/invoices/${draft.id}/finalize`, {})).status, 200);
  const note = await api.post('/api/v1/credit_notes', { invoiceId: draft.id, reason: 'duplicate', lines: [{ description: 'goodwill', amount: '1.00' }] });
  assert.equal(note.status, 200, JSON.stringify(note.body));
  return { invoiceId: draft.id, creditNoteId: note.body.id };
}

/**
 * The demo workspace's customer (a) and a second one (b) on the same offering, each with a product
 * key, a finalized invoice and a credit note; a hub session opened for a.
 */
async function world(): Promise<World> {
  const d = await createDemoWorkspace(t.deps, { actor: { type: 'OPERATOR', id: 'test' }, source: 'cli', correlationId: 'test' });
  const env = d.environments.test;
  const api = t.seed.client(env.secretKey);
  const customer = await api.post('/api/v1/customers', { name: 'Bea', email: 'bea@example.com' });
  const sub = await api.post('/api/v1/subscriptions', { customerId: customer.body.id, offeringId: env.offeringId });
  assert.equal(sub.status, 200, JSON.stringify(sub.body));
  const key = await api.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'bea', subscriptionId: sub.body.id });
  const a = {
    customerId: env.customerId,
    subscriptionId: env.subscriptionId,
    keyId: env.productKeyId,
    key: env.productKey,
    ...(await issued(api, env.subscriptionId)),
  };
  const b = { customerId: customer.body.id, subscriptionId: sub.body.id, keyId: key.body.id, key: key.body.fullToken, ...(await issued(api, sub.body.id)) };
  const minted = await api.post('/api/v1/hub_sessions', { customerId: a.customerId });
  const hub = await openedHubSession(t.app, /#(hbl_\w+)$/.exec(minted.body.url)![1]!);
  return { env, api, workspaceId: d.workspaceId, a, b, hub };
}

const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((x) => x.id);
const statusOf = async (secret: string) => (await findCredentialBySecret(t.deps, secret))?.status;

describe('GET /api/v1/hub/keys', () => {
  it("200 lists the customer's own product keys only, never a secret", async () => {
    const { a, b, hub, env } = await world();
    const res = await hub.get('/api/v1/hub/keys');
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), [a.keyId]);
    assert.ok(!res.raw.body.includes(a.key.slice(8)) && !res.raw.body.includes(b.keyId) && !res.raw.body.includes(env.secretKey.slice(8)));
  });
});

describe('POST /api/v1/hub/keys/:id/rotate, roll and revoke', () => {
  it('200 rotate: a new key once, the old one working for 300 s; written as the hub session', async () => {
    const { a, hub, workspaceId } = await world();
    const res = await hub.post(`/api/v1/hub/keys/${a.keyId}/rotate`);
    assert.equal(res.status, 200);
    assert.match(res.body.fullToken, /^sk_test_[0-9a-f]{32}$/);
    assert.deepEqual([res.body.previousKeyId, res.body.previousKeyExpiresAt], [a.keyId, iso(t.clock.now() + 300_000)]);
    assert.equal(await statusOf(a.key), 'ROTATED');
    const [event] = await t.deps.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('workspaceId', '=', workspaceId)
      .where('eventType', '=', 'api_key.rotated')
      .execute();
    assert.deepEqual([event?.actorType, event?.actorId, event?.source], ['HUB_SESSION', (await hub.get('/api/v1/hub/session')).body.id, 'hub']);
  });

  it('200 roll: the old key is revoked at once (the Roll button), and the new one listed', async () => {
    const { a, hub } = await world();
    const res = await hub.post(`/api/v1/hub/keys/${a.keyId}/roll`);
    assert.equal(res.status, 200);
    assert.equal(res.body.previousKeyExpiresAt, null);
    assert.equal(await statusOf(a.key), 'REVOKED');
    assert.equal(await statusOf(res.body.fullToken), 'ACTIVE');
    assert.deepEqual(ids(await hub.get('/api/v1/hub/keys?status=ACTIVE')), [res.body.id]);
  });

  it('200 revoke: at once; twice returns it unchanged', async () => {
    const { a, hub } = await world();
    const res = await hub.post(`/api/v1/hub/keys/${a.keyId}/revoke`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'REVOKED');
    assert.equal(await statusOf(a.key), 'REVOKED');
    assert.deepEqual((await hub.post(`/api/v1/hub/keys/${a.keyId}/revoke`)).body, res.body);
  });

  it("404 for another customer's key, the seller's workspace key or an unknown id; each keeps working", async () => {
    const { b, hub, env } = await world();
    const [wsKey] = (await t.seed.client(env.secretKey).get('/api/v1/api-keys?kind=WORKSPACE')).body.data;
    for (const id of [b.keyId, wsKey.id, 'key_unknown']) {
      for (const action of ['rotate', 'roll', 'revoke']) {
        const res = await hub.post(`/api/v1/hub/keys/${id}/${action}`);
        assert.equal(res.status, 404, `${action} ${id}`);
        assert.equal(res.body.errors[0].code, 'NOT_FOUND');
      }
    }
    assert.equal(await statusOf(b.key), 'ACTIVE');
    assert.equal(await statusOf(env.secretKey), 'ACTIVE');
  });

  it('403 CSRF_FAILED without X-CSRF-Token: nothing changes', async () => {
    const { a, hub } = await world();
    const res = await hubBrowser(t.app, hub.secret, null).post(`/api/v1/hub/keys/${a.keyId}/roll`);
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'CSRF_FAILED');
    assert.equal(await statusOf(a.key), 'ACTIVE');
  });

  it('409 KEY_NOT_ACTIVE rolling a revoked key', async () => {
    const { a, hub } = await world();
    await hub.post(`/api/v1/hub/keys/${a.keyId}/revoke`);
    const res = await hub.post(`/api/v1/hub/keys/${a.keyId}/roll`);
    assert.equal(res.status, 409);
    assert.equal(res.body.errors[0].code, 'KEY_NOT_ACTIVE');
  });
});

describe('GET /api/v1/hub/subscriptions, invoices, credit_notes, usage and quotas', () => {
  it("200 each shows the session's customer's own, never the other customer's", async () => {
    const { a, b, hub } = await world();
    assert.deepEqual(ids(await hub.get('/api/v1/hub/subscriptions')), [a.subscriptionId]);
    const invoices = await hub.get('/api/v1/hub/invoices');
    assert.equal(invoices.status, 200);
    assert.deepEqual(ids(invoices), [a.invoiceId]);
    assert.deepEqual(ids(await hub.get('/api/v1/hub/credit_notes')), [a.creditNoteId]);
    const usage = await hub.get('/api/v1/hub/usage');
    assert.equal(usage.status, 200);
    assert.ok(usage.body.data.every((r: { customerId: string }) => r.customerId === a.customerId));
    const quotas = await hub.get('/api/v1/hub/quotas');
    assert.equal(quotas.status, 200);
    assert.equal(quotas.body.data.length, 1);
    assert.equal(quotas.body.data[0].subscriptionId, a.subscriptionId);
    assert.equal(quotas.body.data[0].allowed, true);
    for (const res of [invoices, await hub.get('/api/v1/hub/credit_notes'), await hub.get('/api/v1/hub/subscriptions')]) {
      assert.ok(!res.raw.body.includes(b.customerId), 'nothing of customer b');
    }
  });

  it('200 usage reports what the customer sent, per metric and month', async () => {
    const { a, b, env, hub } = await world();
    const metricName = env.metricNames[0]!;
    const events = [a, b].map((c, i) => ({ customerId: c.customerId, metricName, quantity: 5 + i, occurredAt: iso(t.clock.now() - 1000) }));
    assert.equal((await t.seed.client(env.secretKey).post('/v1/ingest/batch', { events })).status, 200);
    const usage = await hub.get(`/api/v1/hub/usage?metricName=${metricName}`);
    assert.deepEqual(
      usage.body.data.map((r: { customerId: string; sum: string }) => [r.customerId, r.sum]),
      [[a.customerId, '5']],
    );
  });

  it('400 the usage query cannot name a customer', async () => {
    const { b, hub } = await world();
    const res = await hub.get(`/api/v1/hub/usage?customerId=${b.customerId}`);
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'query.customerId');
  });

  it('401 with an API key instead of the cookie, on every hub route', async () => {
    const { env, a } = await world();
    const api = t.seed.client(env.secretKey);
    for (const [method, url] of [
      ['GET', '/api/v1/hub/keys'],
      ['POST', `/api/v1/hub/keys/${a.keyId}/roll`],
      ['GET', '/api/v1/hub/subscriptions'],
      ['GET', '/api/v1/hub/invoices'],
      ['GET', '/api/v1/hub/credit_notes'],
      ['GET', '/api/v1/hub/usage'],
      ['GET', '/api/v1/hub/quotas'],
      ['POST', '/api/v1/hub/widget_session'],
      ['POST', '/api/v1/hub/keys'],
      ['GET', '/api/v1/hub/usage/daily?from=2026-01-01&to=2026-01-02'],
    ] as const) {
      const res = await api.request(method, url, method === 'POST' ? {} : undefined);
      assert.equal(res.status, 401, url);
      assert.match(res.body.errors[0].message, /API keys are not accepted here/);
    }
    assert.equal(await statusOf(a.key), 'ACTIVE');
  });

  it('401 once the session has expired', async () => {
    const { hub } = await world();
    t.clock.advance(3_600_000);
    for (const url of ['/api/v1/hub/keys', '/api/v1/hub/invoices', '/api/v1/hub/subscriptions']) {
      const res = await hub.get(url);
      assert.equal(res.status, 401, url);
      assert.match(res.body.errors[0].message, /has expired/);
    }
  });
});

describe('plans, prices and metrics by name (GET /api/v1/hub/subscriptions and quotas)', () => {
  it('200 a subscription names its product, plan and price; a quota its plan and the metric of what is left', async () => {
    const { a, env, hub } = await world();
    const [sub] = (await hub.get('/api/v1/hub/subscriptions')).body.data;
    assert.equal(sub.id, a.subscriptionId);
    assert.deepEqual([sub.productName, sub.plan], ['Demo Search API', { offeringId: env.offeringId, name: 'Pro', priceText: '$49.00/mo' }]);
    const [quota] = (await hub.get('/api/v1/hub/quotas')).body.data;
    assert.deepEqual([quota.productName, quota.plan?.name, quota.plan?.priceText], ['Demo Search API', 'Pro', '$49.00/mo']);
    // Pro's 100,000 free API calls are what is left: the metric is named, by its display name.
    assert.deepEqual([quota.quotaRemaining, quota.quotaMetric], [100_000, { name: 'api_calls', label: 'API calls' }]);
    // The seller's entitlement check answers as before: the metric's name is the hub's addition.
    const check = await t.seed.client(env.secretKey).get(`/v1/entitlements/check?accessorId=${a.customerId}&productId=${env.productId}`);
    assert.equal(check.status, 200);
    assert.equal(check.body.quotaRemaining, 100_000);
    assert.ok(!('quotaMetricName' in check.body) && !('quotaMetric' in check.body), JSON.stringify(check.body));
  });

  it("200 the tightest limit's metric is the one named, each limit has its label (the name made readable without a display name); without an offering the plan is null", async () => {
    const { a, env, hub } = await world();
    const api = t.seed.client(env.secretKey);
    assert.equal((await api.post('/api/v1/metrics', { name: 'gpu_seconds' })).status, 200);
    const limits = [
      { metricName: 'tokens', limit: 500, enforcement: 'ALERT' },
      { metricName: 'gpu_seconds', limit: 40, enforcement: 'BLOCK' },
    ];
    const patched = await api.patch(`/api/v1/subscriptions/${a.subscriptionId}`, { usageLimits: limits });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const product = await api.post('/api/v1/products', { name: 'Raw API', kind: 'STANDARD_API' });
    t.clock.advance(1);
    const raw = await api.post('/api/v1/subscriptions', { customerId: a.customerId, productId: product.body.id });
    assert.equal(raw.status, 200, JSON.stringify(raw.body));

    const subs = (await hub.get('/api/v1/hub/subscriptions')).body.data;
    assert.deepEqual(
      subs.map((s: { id: string; productName: string; plan: { name: string } | null }) => [s.id, s.productName, s.plan?.name ?? null]),
      [
        [raw.body.id, 'Raw API', null],
        [a.subscriptionId, 'Demo Search API', 'Pro'],
      ],
    );
    const quotas = (await hub.get('/api/v1/hub/quotas')).body.data;
    const pro = quotas.find((q: { productId: string }) => q.productId === env.productId);
    assert.deepEqual([pro.quotaRemaining, pro.quotaMetric], [40, { name: 'gpu_seconds', label: 'Gpu seconds' }]);
    assert.deepEqual(
      pro.limits.map((l: { metricName: string; label: string }) => [l.metricName, l.label]),
      [
        ['tokens', 'Tokens'],
        ['gpu_seconds', 'Gpu seconds'],
      ],
    );
    const rawQuota = quotas.find((q: { productId: string }) => q.productId === product.body.id);
    assert.deepEqual([rawQuota.productName, rawQuota.plan, rawQuota.quotaUnlimited, rawQuota.quotaMetric], ['Raw API', null, true, null]);
  });
});

describe('POST /api/v1/hub/widget_session', () => {
  it("200 mints a widget session for the customer's subscription, which the widget routes accept", async () => {
    const { a, hub } = await world();
    const res = await hub.post('/api/v1/hub/widget_session', { subscriptionId: a.subscriptionId });
    assert.equal(res.status, 200);
    assert.match(res.body.token, /^wst_test_[0-9a-f]{64}$/);
    assert.deepEqual([res.body.subscriptionId, res.body.customerId], [a.subscriptionId, a.customerId]);
    assert.equal((await t.seed.client(res.body.token).get('/v1/widget/session')).status, 200);
  });

  it("404 for the other customer's subscription", async () => {
    const { b, hub } = await world();
    const res = await hub.post('/api/v1/hub/widget_session', { subscriptionId: b.subscriptionId });
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].field, 'body.subscriptionId');
  });

  it('403 CSRF_FAILED without X-CSRF-Token', async () => {
    const { a, hub } = await world();
    const res = await hubBrowser(t.app, hub.secret, null).post('/api/v1/hub/widget_session', { subscriptionId: a.subscriptionId });
    assert.equal(res.status, 403);
  });
});

describe('POST /api/v1/hub/keys', () => {
  it("200 creates a product key for the customer's own subscription, shown once; the key works", async () => {
    const { a, hub } = await world();
    const res = await hub.post('/api/v1/hub/keys', { name: 'ci', subscriptionId: a.subscriptionId });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.fullToken, /^sk_test_[0-9a-f]{32}$/);
    assert.deepEqual([res.body.kind, res.body.name, res.body.customerId, res.body.status], ['PRODUCT', 'ci', a.customerId, 'ACTIVE']);
    assert.equal(await statusOf(res.body.fullToken), 'ACTIVE');
    assert.ok(ids(await hub.get('/api/v1/hub/keys')).includes(res.body.id));
    assert.ok(!(await hub.get('/api/v1/hub/keys')).raw.body.includes(res.body.fullToken), 'the list never shows the secret');
  });

  it("404 for another customer's subscription or an unknown one, naming the field; 400 for a missing name", async () => {
    const { b, hub } = await world();
    for (const subscriptionId of [b.subscriptionId, 'sub_unknown']) {
      const res = await hub.post('/api/v1/hub/keys', { name: 'x', subscriptionId });
      assert.equal(res.status, 404);
      assert.equal(res.body.errors[0].field, 'body.subscriptionId');
      assert.equal(res.body.errors[0].message, `You have no subscription with id '${subscriptionId}'.`, 'the same words whether it exists or not');
    }
    const bad = await hub.post('/api/v1/hub/keys', { subscriptionId: b.subscriptionId });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].field, 'body.name');
  });

  it('403 CSRF_FAILED without X-CSRF-Token: no key is made', async () => {
    const { a, hub } = await world();
    const before = ids(await hub.get('/api/v1/hub/keys'));
    const res = await hubBrowser(t.app, hub.secret, null).post('/api/v1/hub/keys', { name: 'x', subscriptionId: a.subscriptionId });
    assert.equal(res.status, 403);
    assert.deepEqual(ids(await hub.get('/api/v1/hub/keys')), before);
  });
});

describe('GET /api/v1/hub/usage/daily', () => {
  it("200 the session's customer's usage per day and metric, never the other customer's", async () => {
    const { a, b, env, hub } = await world();
    const metricName = env.metricNames[0]!;
    const now = t.clock.now();
    const events = [a, b].map((c, i) => ({ customerId: c.customerId, metricName, quantity: 5 + i, occurredAt: iso(now - 1000) }));
    assert.equal((await t.seed.client(env.secretKey).post('/v1/ingest/batch', { events })).status, 200);
    const day = iso(now - 1000).slice(0, 10);
    const res = await hub.get(`/api/v1/hub/usage/daily?from=${day}&to=${day}&metricName=${metricName}`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.map((r: { date: string; sum: string; count: number }) => [r.date, r.sum, r.count]),
      [[day, '5', 1]],
    );
  });

  it('400 naming the field: a customerId in the query, a range over 93 days', async () => {
    const { b, hub } = await world();
    const named = await hub.get(`/api/v1/hub/usage/daily?from=2026-01-01&to=2026-01-02&customerId=${b.customerId}`);
    assert.equal(named.status, 400);
    assert.equal(named.body.errors[0].field, 'query.customerId');
    const long = await hub.get('/api/v1/hub/usage/daily?from=2026-01-01&to=2026-06-01');
    assert.equal(long.status, 400);
    assert.equal(long.body.errors[0].field, 'query.to');
  });
});

describe('POST /api/v1/hub/usage/uploads', () => {
  const csv = { 'content-type': 'text/csv' };

  it("200 a CSV without a customerId column is the session's customer's; a bad line is reported by number", async () => {
    const { a, env, hub } = await world();
    const metricName = env.metricNames[0]!;
    const at = iso(t.clock.now() - 86_400_000);
    const file = ['metricName,quantity,occurredAt', `${metricName},3,${at}`, `${metricName},-1,${at}`, `no_such_metric,1,${at}`].join('\n');
    const res = await hub.post('/api/v1/hub/usage/uploads', file, csv);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.lines, res.body.accepted, res.body.rejected], [3, 1, 2]);
    assert.deepEqual(
      res.body.errors.map((e: { line: number; code: string }) => [e.line, e.code]),
      [
        [3, 'NEGATIVE_QUANTITY'],
        [4, 'UNKNOWN_METRIC'],
      ],
    );
    const day = at.slice(0, 10);
    const usage = await t.seed.client(env.secretKey).get(`/api/v1/usage/daily?from=${day}&to=${day}&customerId=${a.customerId}&metricName=${metricName}`);
    assert.equal(usage.body.data[0].sum, '3');
  });

  it('rejects a line naming another customer (existing or not) in the same words, and counts nothing for them', async () => {
    const { a, b, env, hub } = await world();
    const metricName = env.metricNames[0]!;
    const at = iso(t.clock.now() - 1000);
    const lines = [a.customerId, b.customerId, 'cus_nobody'].map((customerId) => JSON.stringify({ customerId, metricName, quantity: 2, occurredAt: at }));
    const res = await hub.post('/api/v1/hub/usage/uploads', lines.join('\n'), { 'content-type': 'application/x-ndjson' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.accepted, res.body.rejected], [1, 2]);
    const { externalId } = (await t.seed.client(env.secretKey).get(`/api/v1/customers/${a.customerId}`)).body;
    const yours = externalId ? `${a.customerId} or ${externalId}` : a.customerId;
    assert.deepEqual(
      res.body.errors.map((e: { line: number; field: string; message: string }) => [e.line, e.field, e.message.replace(/line \d+/, 'line N')]),
      [2, 3].map((n) => [n, `line ${n}.customerId`, `line N.customerId must be your own customer (${yours}), or be left out.`]),
    );
    const day = at.slice(0, 10);
    const theirs = await t.seed.client(env.secretKey).get(`/api/v1/usage/daily?from=${day}&to=${day}&customerId=${b.customerId}`);
    assert.deepEqual(theirs.body.data, []);
  });

  it('403 CSRF_FAILED without X-CSRF-Token; 415 for another Content-Type', async () => {
    const { env, hub } = await world();
    const file = `metricName,quantity,occurredAt\n${env.metricNames[0]},1,${iso(t.clock.now())}`;
    assert.equal((await hubBrowser(t.app, hub.secret, null).post('/api/v1/hub/usage/uploads', file, csv)).status, 403);
    assert.equal((await hub.post('/api/v1/hub/usage/uploads', file, { 'content-type': 'text/plain' })).status, 415);
  });
});
