import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sha256Hex } from '../../lib/crypto.js';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const GRACE_MS = 300_000;

/** A fresh workspace per test keeps tests independent and well under the per-workspace rate limit. */
async function tenant(): Promise<{ ws: TenantHandle; admin: Client; live: Client }> {
  const ws = await t.seed.workspace();
  return { ws, admin: t.seed.client(ws.test.secretKey), live: t.seed.client(ws.live.secretKey) };
}

const verify = (asker: Client, key: string) => asker.post('/v1/keys/verify', { key });

/** A call any valid key may make about itself: 200 while the key works, 401 once it does not. */
const selfCheck = (token: string, keyId: string) => t.seed.client(token).get(`/api/v1/api-keys/${keyId}`);

/**
 * Fails if any text column of apiKeys, auditEvents or idempotencyKeys holds the secret (or its
 * random part). The first two must have rows, so the scan cannot pass by finding nothing; tests
 * that send an Idempotency-Key assert their idempotencyKeys row themselves.
 */
async function assertNoPlaintext(secret: string) {
  const randomPart = secret.replace(/^[a-z]{2}_(test|live)_/, '');
  for (const table of ['apiKeys', 'auditEvents', 'idempotencyKeys'] as const) {
    const rows = (await t.deps.db.selectFrom(table).selectAll().execute()) as unknown as Record<string, unknown>[];
    if (table !== 'idempotencyKeys') assert.ok(rows.length > 0, `${table} has rows to scan`);
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        if (typeof value === 'string') assert.ok(!value.includes(randomPart), `${table}.${column} holds the plaintext secret`);
      }
    }
  }
}

describe('POST /api/v1/api-keys', () => {
  it('200 creates a WORKSPACE key whose 40-character fullToken works as Bearer', async () => {
    const { admin } = await tenant();
    const res = await admin.post('/api/v1/api-keys', { kind: 'WORKSPACE', name: 'ci', scopes: ['keys:write'] });
    assert.equal(res.status, 200);
    assert.match(res.body.id, /^key_[0-9a-z]{26}$/);
    assert.equal(res.body.object, 'api_key');
    assert.equal(res.body.kind, 'WORKSPACE');
    assert.equal(res.body.status, 'ACTIVE');
    assert.equal(res.body.environment, 'test');
    assert.deepEqual(res.body.scopes, ['keys:write']);
    assert.equal(res.body.fullToken.length, 40);
    assert.match(res.body.fullToken, /^sk_test_[0-9a-f]{32}$/);
    assert.equal(res.body.hint, `sk_test_…${res.body.fullToken.slice(-4)}`);
    const withNewKey = await t.seed.client(res.body.fullToken).get('/api/v1/api-keys');
    assert.equal(withNewKey.status, 200);
    assert.ok(withNewKey.body.data.some((k: { id: string }) => k.id === res.body.id));
  });

  it('200 creates a PRODUCT key bound to the subscription that works as Bearer and verifies', async () => {
    const { ws, admin } = await tenant();
    const { customer, product, subscription } = await t.seed.subscription(ws.test, 'STANDARD_API');
    const res = await admin.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'acme prod', subscriptionId: subscription.id });
    assert.equal(res.status, 200);
    assert.equal(res.body.kind, 'PRODUCT');
    assert.deepEqual(res.body.scopes, []);
    assert.equal(res.body.subscriptionId, subscription.id);
    assert.equal(res.body.customerId, customer.id);
    assert.equal(res.body.productId, product.id);
    assert.match(res.body.fullToken, /^sk_test_[0-9a-f]{32}$/);
    assert.equal((await selfCheck(res.body.fullToken, res.body.id)).status, 200);
    const v = await verify(admin, res.body.fullToken);
    assert.equal(v.body.valid, true);
    assert.equal(v.body.keyId, res.body.id);
  });

  it('200 creates a PRODUCT key for an AGENTIC_API subscription too', async () => {
    const { ws, admin } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test, 'AGENTIC_API');
    const res = await admin.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'agentic', subscriptionId: subscription.id });
    assert.equal(res.status, 200);
    assert.equal(res.body.subscriptionId, subscription.id);
  });

  it('200 stores only the SHA-256 of the key: no table holds the plaintext', async () => {
    const { ws, admin } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test);
    for (const body of [
      { kind: 'WORKSPACE', name: 'w', scopes: ['ingest'] },
      { kind: 'PRODUCT', name: 'p', subscriptionId: subscription.id },
    ]) {
      const res = await admin.post('/api/v1/api-keys', body);
      assert.equal(res.status, 200);
      const row = await t.deps.db.selectFrom('apiKeys').select('keyHash').where('id', '=', res.body.id).executeTakeFirstOrThrow();
      assert.equal(row.keyHash, sha256Hex(res.body.fullToken));
      const audit = await t.deps.db.selectFrom('auditEvents').select('id').where('targetId', '=', res.body.id).execute();
      assert.ok(audit.length > 0, 'the creation is audited');
      await assertNoPlaintext(res.body.fullToken);
    }
  });

  it('200 with an Idempotency-Key: the replay has the same key with fullToken null, and nothing stores the secret', async () => {
    const { admin } = await tenant();
    const headers = { 'idempotency-key': 'create-ci-key' };
    const body = { kind: 'WORKSPACE', name: 'ci', scopes: ['ingest'] };
    const first = await admin.post('/api/v1/api-keys', body, headers);
    assert.equal(first.status, 200);
    assert.match(first.body.fullToken, /^sk_test_[0-9a-f]{32}$/);
    const replay = await admin.post('/api/v1/api-keys', body, headers);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body.id, first.body.id);
    assert.equal(replay.body.fullToken, null);
    const list = await admin.get('/api/v1/api-keys?limit=100&kind=WORKSPACE');
    assert.equal(list.body.data.filter((k: { name: string }) => k.name === 'ci').length, 1);
    const stored = await t.deps.db.selectFrom('idempotencyKeys').select('responseBody').where('key', '=', 'create-ci-key').execute();
    assert.equal(stored.length, 1);
    await assertNoPlaintext(first.body.fullToken);
  });

  it('400 names body.scopes when a WORKSPACE key has none', async () => {
    const { admin } = await tenant();
    const res = await admin.post('/api/v1/api-keys', { kind: 'WORKSPACE', name: 'no scopes' });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].code, 'VALIDATION_FAILED');
    assert.equal(res.body.errors[0].field, 'body.scopes');
  });

  it('400 names body.subscriptionId when a PRODUCT key has none', async () => {
    const { admin } = await tenant();
    const res = await admin.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'unbound' });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].code, 'VALIDATION_FAILED');
    assert.equal(res.body.errors[0].field, 'body.subscriptionId');
  });

  it('400 for a subscription to an AI_AGENT product, whose customers use client credentials', async () => {
    const { ws, admin } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test, 'AI_AGENT');
    const res = await admin.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'agent', subscriptionId: subscription.id });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'body.subscriptionId');
    const list = await admin.get(`/api/v1/api-keys?subscriptionId=${subscription.id}`);
    assert.deepEqual(list.body.data, []);
  });

  it('403 a key holding only keys:write cannot grant admin, and no key is created', async () => {
    const { ws, admin } = await tenant();
    const writer = await t.seed.workspaceKey(ws.test, ['keys:write']);
    const res = await t.seed.client(writer.token).post('/api/v1/api-keys', { kind: 'WORKSPACE', name: 'escalate', scopes: ['admin'] });
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
    assert.equal(res.body.errors[0].field, 'body.scopes');
    const list = await admin.get('/api/v1/api-keys?limit=100');
    assert.ok(!list.body.data.some((k: { name: string }) => k.name === 'escalate'));
  });

  it('403 a product key cannot create keys', async () => {
    const { ws } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    const res = await t.seed.client(pk.token).post('/api/v1/api-keys', { kind: 'WORKSPACE', name: 'x', scopes: ['ingest'] });
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
  });

  it('404 names body.subscriptionId for an unknown subscription', async () => {
    const { admin } = await tenant();
    const res = await admin.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'p', subscriptionId: 'sub_nope' });
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.equal(res.body.errors[0].field, 'body.subscriptionId');
  });

  it('409 for a cancelled subscription', async () => {
    const { ws, admin } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test);
    assert.equal((await admin.post(`/api/v1/subscriptions/${subscription.id}/cancel`)).status, 200);
    const res = await admin.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'late', subscriptionId: subscription.id });
    assert.equal(res.status, 409);
    assert.equal(res.body.errors[0].code, 'SUBSCRIPTION_NOT_ACTIVE');
  });
});

describe('GET /api/v1/api-keys', () => {
  it('200 lists keys without their secrets or hashes', async () => {
    const { ws, admin } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    const wk = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await admin.get('/api/v1/api-keys?limit=100');
    assert.equal(res.status, 200);
    assert.equal(res.body.object, 'list');
    const ids = res.body.data.map((k: { id: string }) => k.id);
    for (const id of [pk.id, wk.id, ws.test.keyId]) assert.ok(ids.includes(id), id);
    for (const k of res.body.data) {
      assert.ok(!('fullToken' in k), 'no fullToken in a list');
      assert.ok(!('keyHash' in k), 'no keyHash in a list');
    }
    for (const secret of [pk.token, wk.token, ws.test.secretKey]) {
      assert.ok(!res.raw.body.includes(secret.slice(8)), 'the list holds no secret');
      assert.ok(!res.raw.body.includes(sha256Hex(secret)), 'the list holds no hash');
    }
  });

  it("200 with customerId lists only that customer's product keys", async () => {
    const { ws, admin } = await tenant();
    const mine = await t.seed.subscription(ws.test);
    const key = await t.seed.productKey(ws.test, mine.subscription.id);
    const other = await t.seed.productKey(ws.test);
    const res = await admin.get(`/api/v1/api-keys?limit=100&customerId=${mine.customer.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.map((k: { id: string }) => k.id),
      [key.id],
    );
    assert.ok(!res.body.data.some((k: { id: string }) => k.id === other.id));
  });

  it("200 with customerId as the customer's externalId too; one naming nobody here, or a customer of the other environment, lists nothing", async () => {
    const { ws, admin, live } = await tenant();
    /** A customer with this externalId in env, subscribed, with one product key. */
    const keyed = async (env: 'test' | 'live', externalId: string) => {
      const customer = await t.seed.customer(ws[env], { externalId });
      const product = await t.seed.product(ws[env]);
      const sub = await t.seed.client(ws[env].secretKey).post('/api/v1/subscriptions', { customerId: customer.id, productId: product.id });
      assert.equal(sub.status, 200, JSON.stringify(sub.body));
      return { customer, key: await t.seed.productKey(ws[env], sub.body.id) };
    };
    const acme = await keyed('test', 'acme');
    await t.seed.productKey(ws.test);
    const liveAcme = await keyed('live', 'acme');
    await keyed('live', 'live-only');
    const listed = async (client: Client, ref: string) => {
      const res = await client.get(`/api/v1/api-keys?limit=100&customerId=${ref}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data.map((k: { id: string }) => k.id);
    };
    assert.deepEqual(await listed(admin, 'acme'), [acme.key.id]);
    assert.deepEqual(await listed(admin, acme.customer.id), [acme.key.id]);
    assert.deepEqual(await listed(live, 'acme'), [liveAcme.key.id], "the live key's acme is the live customer");
    assert.deepEqual(await listed(admin, 'live-only'), []);
    assert.deepEqual(await listed(admin, 'nobody'), []);
  });

  it('200 an sk_test_ admin key never sees live keys', async () => {
    const { ws, admin } = await tenant();
    const res = await admin.get('/api/v1/api-keys?limit=100');
    const ids = res.body.data.map((k: { id: string }) => k.id);
    assert.ok(ids.includes(ws.test.keyId));
    assert.ok(!ids.includes(ws.live.keyId));
    assert.ok(res.body.data.every((k: { environment: string }) => k.environment === 'test'));
    const one = await admin.get(`/api/v1/api-keys/${ws.live.keyId}`);
    assert.equal(one.status, 404);
  });
});

describe('POST /api/v1/api-keys/:id/rotate', () => {
  it('200 with no body even when the client sends Content-Type: application/json', async () => {
    const { ws } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/api-keys/${pk.id}/rotate`,
      headers: { authorization: `Bearer ${ws.test.secretKey}`, 'content-type': 'application/json' },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().status, 'ACTIVE');
  });

  it('200 returns {id, fullToken, status: ACTIVE} and the old key keeps working', async () => {
    const { ws, admin } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    const res = await admin.post(`/api/v1/api-keys/${pk.id}/rotate`);
    assert.equal(res.status, 200);
    assert.notEqual(res.body.id, pk.id);
    assert.match(res.body.id, /^key_/);
    assert.equal(res.body.status, 'ACTIVE');
    assert.equal(res.body.fullToken.length, 40);
    assert.match(res.body.fullToken, /^sk_test_[0-9a-f]{32}$/);
    assert.equal(res.body.previousKeyId, pk.id);
    assert.equal(res.body.previousKeyExpiresAt, new Date(t.clock.now() + GRACE_MS).toISOString());
    assert.equal((await selfCheck(pk.token, pk.id)).status, 200, 'old key still works');
    assert.equal((await selfCheck(res.body.fullToken, res.body.id)).status, 200, 'new key works');
    const newVerify = await verify(admin, res.body.fullToken);
    assert.equal(newVerify.body.valid, true);
    assert.equal(newVerify.body.subscriptionId, pk.subscriptionId, 'the new key keeps the binding');
    const old = await admin.get(`/api/v1/api-keys/${pk.id}`);
    assert.equal(old.body.status, 'ROTATED');
    assert.equal(old.body.replacedById, res.body.id);
  });

  it('200 the old key works at +299 s and gets 401 at +301 s, and verify says VALID then EXPIRED', async () => {
    const { ws, admin } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    const rotated = await admin.post(`/api/v1/api-keys/${pk.id}/rotate`);
    assert.equal(rotated.status, 200);
    const graceEnd = rotated.body.previousKeyExpiresAt;

    t.clock.advance(299_000);
    assert.equal((await selfCheck(pk.token, pk.id)).status, 200);
    const during = await verify(admin, pk.token);
    assert.equal(during.body.valid, true);
    assert.equal(during.body.code, 'VALID');
    assert.equal(during.body.keyId, pk.id);
    assert.equal(during.body.expiresAt, graceEnd);

    t.clock.advance(2_000);
    const denied = await selfCheck(pk.token, pk.id);
    assert.equal(denied.status, 401);
    assert.equal(denied.body.errors[0].code, 'UNAUTHENTICATED');
    const afterGrace = await verify(admin, pk.token);
    assert.equal(afterGrace.body.valid, false);
    assert.equal(afterGrace.body.code, 'EXPIRED');
    assert.equal((await selfCheck(rotated.body.fullToken, rotated.body.id)).status, 200, 'the new key is unaffected');
    assert.equal((await admin.get(`/api/v1/api-keys/${pk.id}`)).body.status, 'EXPIRED');
  });

  it('200 a rotated workspace key authenticates at +299 s and gets 401 at +301 s', async () => {
    const { ws, admin } = await tenant();
    const wk = await t.seed.workspaceKey(ws.test, ['keys:write']);
    const rotated = await admin.post(`/api/v1/api-keys/${wk.id}/rotate`);
    assert.equal(rotated.status, 200);
    const old = t.seed.client(wk.token);
    t.clock.advance(299_000);
    assert.equal((await old.get('/api/v1/api-keys')).status, 200);
    t.clock.advance(2_000);
    assert.equal((await old.get('/api/v1/api-keys')).status, 401);
    assert.equal((await t.seed.client(rotated.body.fullToken).get('/api/v1/api-keys')).status, 200);
  });

  it('200 with an Idempotency-Key rotates once; the replay returns the same id with fullToken null', async () => {
    const { ws, admin } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    const headers = { 'idempotency-key': 'rotate-once' };
    const first = await admin.post(`/api/v1/api-keys/${pk.id}/rotate`, undefined, headers);
    assert.equal(first.status, 200);
    const replay = await admin.post(`/api/v1/api-keys/${pk.id}/rotate`, undefined, headers);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body.id, first.body.id);
    assert.equal(replay.body.fullToken, null);
    const keys = await admin.get(`/api/v1/api-keys?subscriptionId=${pk.subscriptionId}`);
    assert.equal(keys.body.data.length, 2, 'the old key and one new key');
    await assertNoPlaintext(first.body.fullToken);
  });

  it('200 a product key may rotate itself', async () => {
    const { ws, admin } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    const res = await t.seed.client(pk.token).post(`/api/v1/api-keys/${pk.id}/rotate`);
    assert.equal(res.status, 200);
    assert.equal(res.body.previousKeyId, pk.id);
    const v = await verify(admin, res.body.fullToken);
    assert.equal(v.body.valid, true);
    assert.equal(v.body.subscriptionId, pk.subscriptionId);
  });

  it('403 a key holding only keys:write cannot rotate an admin key (that would mint admin)', async () => {
    const { ws } = await tenant();
    const writer = await t.seed.workspaceKey(ws.test, ['keys:write']);
    const res = await t.seed.client(writer.token).post(`/api/v1/api-keys/${ws.test.keyId}/rotate`);
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
    assert.equal((await t.seed.client(ws.test.secretKey).get(`/api/v1/api-keys/${ws.test.keyId}`)).body.status, 'ACTIVE');
  });

  it('404 a product key cannot rotate another key, which keeps working', async () => {
    const { ws, admin } = await tenant();
    const mine = await t.seed.productKey(ws.test);
    const theirs = await t.seed.productKey(ws.test);
    const res = await t.seed.client(mine.token).post(`/api/v1/api-keys/${theirs.id}/rotate`);
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.equal((await admin.get(`/api/v1/api-keys/${theirs.id}`)).body.status, 'ACTIVE');
    assert.equal((await t.seed.client(mine.token).post(`/api/v1/api-keys/${ws.test.keyId}/rotate`)).status, 404);
  });

  it("404, not 403, for another workspace's key, which keeps working", async () => {
    const { ws } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    const { admin: stranger } = await tenant();
    const res = await stranger.post(`/api/v1/api-keys/${pk.id}/rotate`);
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.equal((await selfCheck(pk.token, pk.id)).status, 200);
  });

  it('404 an sk_test_ admin key cannot rotate a live key', async () => {
    const { ws, admin, live } = await tenant();
    const livePk = await t.seed.productKey(ws.live);
    assert.equal((await admin.post(`/api/v1/api-keys/${livePk.id}/rotate`)).status, 404);
    assert.equal((await admin.post(`/api/v1/api-keys/${ws.live.keyId}/rotate`)).status, 404);
    assert.equal((await live.get(`/api/v1/api-keys/${livePk.id}`)).body.status, 'ACTIVE');
  });

  it('409 KEY_NOT_ACTIVE when rotating a rotated or a revoked key', async () => {
    const { ws, admin } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    assert.equal((await admin.post(`/api/v1/api-keys/${pk.id}/rotate`)).status, 200);
    const again = await admin.post(`/api/v1/api-keys/${pk.id}/rotate`);
    assert.equal(again.status, 409);
    assert.equal(again.body.errors[0].code, 'KEY_NOT_ACTIVE');
    const revoked = await t.seed.productKey(ws.test);
    assert.equal((await admin.delete(`/api/v1/api-keys/${revoked.id}`)).status, 200);
    const res = await admin.post(`/api/v1/api-keys/${revoked.id}/rotate`);
    assert.equal(res.status, 409);
    assert.equal(res.body.errors[0].code, 'KEY_NOT_ACTIVE');
  });
});

describe('POST /api/v1/api-keys/:id/roll', () => {
  it('200 the old key gets 401 at once and the new one works', async () => {
    const { ws, admin } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    assert.equal((await selfCheck(pk.token, pk.id)).status, 200, 'cached as valid before the roll');
    const res = await admin.post(`/api/v1/api-keys/${pk.id}/roll`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'ACTIVE');
    assert.match(res.body.fullToken, /^sk_test_[0-9a-f]{32}$/);
    assert.equal(res.body.previousKeyExpiresAt, null);
    assert.equal((await selfCheck(pk.token, pk.id)).status, 401);
    assert.equal((await verify(admin, pk.token)).body.code, 'REVOKED');
    assert.equal((await selfCheck(res.body.fullToken, res.body.id)).status, 200);
    assert.equal((await verify(admin, res.body.fullToken)).body.valid, true);
  });
});

describe('DELETE /api/v1/api-keys/:id', () => {
  it('200 revokes at once: the key gets 401 and verify says REVOKED', async () => {
    const { ws, admin } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    assert.equal((await selfCheck(pk.token, pk.id)).status, 200, 'cached as valid before the revocation');
    const res = await admin.delete(`/api/v1/api-keys/${pk.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'REVOKED');
    assert.equal(res.body.revokedAt, new Date(t.clock.now()).toISOString());
    const denied = await selfCheck(pk.token, pk.id);
    assert.equal(denied.status, 401);
    assert.equal(denied.body.errors[0].code, 'UNAUTHENTICATED');
    const v = await verify(admin, pk.token);
    assert.equal(v.body.valid, false);
    assert.equal(v.body.code, 'REVOKED');
    await assertNoPlaintext(pk.token);
  });

  it('200 twice: revoking a revoked key returns it unchanged', async () => {
    const { ws, admin } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    const first = await admin.delete(`/api/v1/api-keys/${pk.id}`);
    t.clock.advance(1000);
    const second = await admin.delete(`/api/v1/api-keys/${pk.id}`);
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);
  });

  it('200 revokes a rotated key inside its grace period at once', async () => {
    const { ws, admin } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    assert.equal((await admin.post(`/api/v1/api-keys/${pk.id}/rotate`)).status, 200);
    assert.equal((await admin.delete(`/api/v1/api-keys/${pk.id}`)).status, 200);
    assert.equal((await selfCheck(pk.token, pk.id)).status, 401);
    assert.equal((await verify(admin, pk.token)).body.code, 'REVOKED');
  });

  it('200 a product key may revoke itself', async () => {
    const { ws, admin } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    const res = await t.seed.client(pk.token).delete(`/api/v1/api-keys/${pk.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'REVOKED');
    assert.equal((await verify(admin, pk.token)).body.code, 'REVOKED');
  });

  it('200 a key holding only keys:write may revoke a key whose scopes it holds', async () => {
    const { ws } = await tenant();
    const writer = await t.seed.workspaceKey(ws.test, ['keys:write']);
    const peer = await t.seed.workspaceKey(ws.test, ['keys:write']);
    const res = await t.seed.client(writer.token).delete(`/api/v1/api-keys/${peer.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'REVOKED');
  });

  it('403 a key holding only keys:write cannot revoke an admin key, which keeps working', async () => {
    const { ws, admin } = await tenant();
    const writer = await t.seed.workspaceKey(ws.test, ['keys:write']);
    const target = await t.seed.workspaceKey(ws.test, ['admin']);
    const res = await t.seed.client(writer.token).delete(`/api/v1/api-keys/${target.id}`);
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
    assert.match(res.body.errors[0].message, /revoke.*: admin\.$/);
    assert.equal((await selfCheck(target.token, target.id)).status, 200);
    assert.equal((await admin.get(`/api/v1/api-keys/${target.id}`)).body.status, 'ACTIVE');
  });

  it('403 names every scope of the target the caller lacks', async () => {
    const { ws, admin } = await tenant();
    const writer = await t.seed.workspaceKey(ws.test, ['keys:write', 'ingest']);
    const target = await t.seed.workspaceKey(ws.test, ['ingest', 'entitlements:read', 'keys:verify']);
    const res = await t.seed.client(writer.token).delete(`/api/v1/api-keys/${target.id}`);
    assert.equal(res.status, 403);
    assert.match(res.body.errors[0].message, /: entitlements:read, keys:verify\.$/);
    assert.equal((await admin.get(`/api/v1/api-keys/${target.id}`)).body.status, 'ACTIVE');
  });

  it("404 for another workspace's key or another product key, which keep working", async () => {
    const { ws } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    const other = await t.seed.productKey(ws.test);
    const { admin: stranger } = await tenant();
    assert.equal((await stranger.delete(`/api/v1/api-keys/${pk.id}`)).status, 404);
    assert.equal((await t.seed.client(other.token).delete(`/api/v1/api-keys/${pk.id}`)).status, 404);
    assert.equal((await selfCheck(pk.token, pk.id)).status, 200);
  });
});

describe('POST /api/v1/subscriptions/:id/cancel', () => {
  it('200 revokes the subscription’s product keys in the same transaction, and no others', async () => {
    const { ws, admin } = await tenant();
    const a = await t.seed.productKey(ws.test);
    const b = await t.seed.productKey(ws.test, a.subscriptionId);
    const bystander = await t.seed.productKey(ws.test);
    assert.equal((await verify(admin, a.token)).body.valid, true, 'cached as valid before the cancel');
    const res = await admin.post(`/api/v1/subscriptions/${a.subscriptionId}/cancel`);
    assert.equal(res.status, 200);
    for (const k of [a, b]) {
      const v = await verify(admin, k.token);
      assert.equal(v.body.valid, false);
      assert.equal(v.body.code, 'REVOKED');
      assert.equal((await selfCheck(k.token, k.id)).status, 401);
      const row = await admin.get(`/api/v1/api-keys/${k.id}`);
      assert.equal(row.body.status, 'REVOKED');
      assert.equal(row.body.revokedAt, res.body.subscription.cancelledAt, 'revoked at the same instant as the cancellation');
    }
    assert.equal((await verify(admin, bystander.token)).body.valid, true);
  });
});

describe('POST /v1/keys/verify', () => {
  it("200 valid with the key's keyId, customerId, subscriptionId, productId and environment", async () => {
    const { ws } = await tenant();
    const { customer, product, subscription } = await t.seed.subscription(ws.test);
    const pk = await t.seed.productKey(ws.test, subscription.id);
    const gateway = await t.seed.workspaceKey(ws.test, ['keys:verify']);
    const res = await verify(t.seed.client(gateway.token), pk.token);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      valid: true,
      code: 'VALID',
      keyId: pk.id,
      customerId: customer.id,
      subscriptionId: subscription.id,
      productId: product.id,
      environment: 'test',
      expiresAt: null,
    });
  });

  it('200 NOT_FOUND for garbage, a well-formed unknown key and a workspace key', async () => {
    const { ws, admin } = await tenant();
    for (const key of ['garbage', `sk_test_${'0'.repeat(32)}`, ws.test.secretKey]) {
      const res = await verify(admin, key);
      assert.equal(res.status, 200);
      assert.equal(res.body.valid, false);
      assert.equal(res.body.code, 'NOT_FOUND');
      assert.equal(res.body.keyId, null);
      assert.equal(res.body.customerId, null);
    }
  });

  it("200 NOT_FOUND for another workspace's product key and for a live key asked by a test key", async () => {
    const { ws, admin } = await tenant();
    const livePk = await t.seed.productKey(ws.live);
    const { ws: otherWs } = await tenant();
    const foreign = await t.seed.productKey(otherWs.test);
    for (const key of [foreign.token, livePk.token]) {
      const res = await verify(admin, key);
      assert.equal(res.body.valid, false);
      assert.equal(res.body.code, 'NOT_FOUND');
      assert.equal(res.body.customerId, null, 'reveals nothing about the key');
    }
    assert.equal((await verify(t.seed.client(otherWs.test.secretKey), foreign.token)).body.valid, true);
  });

  it('403 for a key without the keys:verify scope', async () => {
    const { ws } = await tenant();
    const pk = await t.seed.productKey(ws.test);
    const ingestOnly = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await verify(t.seed.client(ingestOnly.token), pk.token);
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
    assert.equal((await verify(t.seed.client(pk.token), pk.token)).status, 403, 'nor may a product key verify');
  });

  it('401 without a key', async () => {
    const res = await t.seed.client(null).post('/v1/keys/verify', { key: 'sk_test_x' });
    assert.equal(res.status, 401);
    assert.equal(res.body.errors[0].code, 'UNAUTHENTICATED');
  });
});
