import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sha256Hex } from '../../lib/crypto.js';
import type { ProductKind } from '../products/product.js';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

async function tenant(): Promise<{ ws: TenantHandle; admin: Client }> {
  const ws = await t.seed.workspace();
  return { ws, admin: t.seed.client(ws.test.secretKey) };
}

/** Issues client credentials over HTTP for a fresh subscription of the given kind. */
async function issue(admin: Client, ws: TenantHandle, kind: ProductKind = 'AI_AGENT') {
  const seeded = await t.seed.subscription(ws.test, kind);
  const res = await admin.post('/api/v1/client-credentials', { name: 'agent', subscriptionId: seeded.subscription.id });
  assert.equal(res.status, 200);
  return { ...seeded, res, clientId: res.body.id as string, clientSecret: res.body.clientSecret as string };
}

function tokenRequest(clientId: string, clientSecret: string) {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }).toString();
  return t.seed.client(null).post('/oauth/token', body, { 'content-type': 'application/x-www-form-urlencoded' });
}

/** Fails if any text column of these tables holds the secret; each must have rows to scan. */
async function assertNoPlaintext(secret: string, tables: Array<'clientCredentials' | 'auditEvents' | 'idempotencyKeys'>) {
  for (const table of tables) {
    const rows = (await t.deps.db.selectFrom(table).selectAll().execute()) as unknown as Record<string, unknown>[];
    assert.ok(rows.length > 0, `${table} has rows to scan`);
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        if (typeof value === 'string') assert.ok(!value.includes(secret), `${table}.${column} holds the plaintext secret`);
      }
    }
  }
}

describe('POST /api/v1/client-credentials', () => {
  for (const kind of ['AI_AGENT', 'MCP_SERVER'] as const) {
    it(`200 issues a cid_ client ID and a 64-hex secret for a ${kind} subscription`, async () => {
      const { ws, admin } = await tenant();
      const { customer, product, subscription, res } = await issue(admin, ws, kind);
      assert.match(res.body.id, /^cid_[0-9a-z]{26}$/);
      assert.equal(res.body.object, 'client_credential');
      assert.equal(res.body.clientId, res.body.id);
      assert.match(res.body.clientSecret, /^[0-9a-f]{64}$/);
      assert.equal(res.body.hint, `…${res.body.clientSecret.slice(-4)}`);
      assert.equal(res.body.status, 'ACTIVE');
      assert.equal(res.body.environment, 'test');
      assert.equal(res.body.subscriptionId, subscription.id);
      assert.equal(res.body.customerId, customer.id);
      assert.equal(res.body.productId, product.id);
      assert.equal(res.body.revokedAt, null);
    });
  }

  it('200 stores only the SHA-256 of the secret: no table holds the plaintext', async () => {
    const { ws, admin } = await tenant();
    const { clientId, clientSecret } = await issue(admin, ws);
    const row = await t.deps.db.selectFrom('clientCredentials').select('secretHash').where('id', '=', clientId).executeTakeFirstOrThrow();
    assert.equal(row.secretHash, sha256Hex(clientSecret));
    await assertNoPlaintext(clientSecret, ['clientCredentials', 'auditEvents']);
  });

  it('200 shows the secret once: the Idempotency-Key replay returns it as null and stores none', async () => {
    const { ws, admin } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test, 'MCP_SERVER');
    const body = { name: 'mcp', subscriptionId: subscription.id };
    const headers = { 'idempotency-key': 'issue-mcp' };
    const first = await admin.post('/api/v1/client-credentials', body, headers);
    assert.equal(first.status, 200);
    assert.match(first.body.clientSecret, /^[0-9a-f]{64}$/);
    const replay = await admin.post('/api/v1/client-credentials', body, headers);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body.id, first.body.id);
    assert.equal(replay.body.clientSecret, null);
    const list = await admin.get(`/api/v1/client-credentials?subscriptionId=${subscription.id}`);
    assert.equal(list.body.data.length, 1);
    await assertNoPlaintext(first.body.clientSecret, ['clientCredentials', 'auditEvents', 'idempotencyKeys']);
  });

  it('400 names body.subscriptionId for a STANDARD_API subscription, whose customers use product keys', async () => {
    const { ws, admin } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test, 'STANDARD_API');
    const res = await admin.post('/api/v1/client-credentials', { name: 'x', subscriptionId: subscription.id });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].code, 'VALIDATION_FAILED');
    assert.equal(res.body.errors[0].field, 'body.subscriptionId');
  });

  it('400 names body.subscriptionId when it is missing', async () => {
    const { admin } = await tenant();
    const res = await admin.post('/api/v1/client-credentials', { name: 'x' });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'body.subscriptionId');
  });

  it('403 for a key without the keys:write scope', async () => {
    const { ws } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test, 'AI_AGENT');
    const ingest = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await t.seed.client(ingest.token).post('/api/v1/client-credentials', { name: 'x', subscriptionId: subscription.id });
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
  });

  it("404 for an unknown subscription or another workspace's", async () => {
    const { admin } = await tenant();
    const { ws: other } = await tenant();
    const { subscription } = await t.seed.subscription(other.test, 'AI_AGENT');
    for (const subscriptionId of ['sub_nope', subscription.id]) {
      const res = await admin.post('/api/v1/client-credentials', { name: 'x', subscriptionId });
      assert.equal(res.status, 404);
      assert.equal(res.body.errors[0].field, 'body.subscriptionId');
    }
  });

  it('409 for a cancelled subscription', async () => {
    const { ws, admin } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test, 'AI_AGENT');
    assert.equal((await admin.post(`/api/v1/subscriptions/${subscription.id}/cancel`)).status, 200);
    const res = await admin.post('/api/v1/client-credentials', { name: 'x', subscriptionId: subscription.id });
    assert.equal(res.status, 409);
    assert.equal(res.body.errors[0].code, 'SUBSCRIPTION_NOT_ACTIVE');
  });
});

describe('GET /api/v1/client-credentials', () => {
  it('200 lists and retrieves credentials without their secrets', async () => {
    const { ws, admin } = await tenant();
    const { clientId, clientSecret } = await issue(admin, ws);
    const list = await admin.get('/api/v1/client-credentials');
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.map((c: { id: string }) => c.id),
      [clientId],
    );
    const one = await admin.get(`/api/v1/client-credentials/${clientId}`);
    assert.equal(one.status, 200);
    for (const res of [list, one]) {
      assert.ok(!res.raw.body.includes(clientSecret), 'no secret');
      assert.ok(!res.raw.body.includes(sha256Hex(clientSecret)), 'no hash');
      assert.ok(!res.raw.body.includes('clientSecret'), 'no clientSecret field');
    }
  });

  it("404 for another workspace's credential", async () => {
    const { ws, admin } = await tenant();
    const { clientId } = await issue(admin, ws);
    const { admin: stranger } = await tenant();
    assert.equal((await stranger.get(`/api/v1/client-credentials/${clientId}`)).status, 404);
  });
});

describe('DELETE /api/v1/client-credentials/:id', () => {
  it('200 revokes: its access token verifies as REVOKED and new token requests get 401', async () => {
    const { ws, admin } = await tenant();
    const { clientId, clientSecret } = await issue(admin, ws);
    const token = await tokenRequest(clientId, clientSecret);
    assert.equal(token.status, 200);
    assert.equal((await admin.post('/v1/keys/verify', { key: token.body.access_token })).body.valid, true);
    const res = await admin.delete(`/api/v1/client-credentials/${clientId}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'REVOKED');
    assert.equal(res.body.revokedAt, new Date(t.clock.now()).toISOString());
    const v = await admin.post('/v1/keys/verify', { key: token.body.access_token });
    assert.equal(v.body.valid, false);
    assert.equal(v.body.code, 'REVOKED');
    const again = await tokenRequest(clientId, clientSecret);
    assert.equal(again.status, 401);
    assert.equal(again.body.error, 'invalid_client');
  });

  it('200 twice: revoking a revoked credential returns it unchanged', async () => {
    const { ws, admin } = await tenant();
    const { clientId } = await issue(admin, ws);
    const first = await admin.delete(`/api/v1/client-credentials/${clientId}`);
    t.clock.advance(1000);
    const second = await admin.delete(`/api/v1/client-credentials/${clientId}`);
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);
  });

  it("404 for another workspace's credential, which keeps working", async () => {
    const { ws, admin } = await tenant();
    const { clientId, clientSecret } = await issue(admin, ws);
    const { admin: stranger } = await tenant();
    assert.equal((await stranger.delete(`/api/v1/client-credentials/${clientId}`)).status, 404);
    assert.equal((await tokenRequest(clientId, clientSecret)).status, 200);
  });
});

describe('POST /api/v1/subscriptions/:id/cancel', () => {
  it("200 revokes the subscription's client credentials and their access tokens", async () => {
    const { ws, admin } = await tenant();
    const { subscription, clientId, clientSecret } = await issue(admin, ws);
    const token = await tokenRequest(clientId, clientSecret);
    assert.equal((await admin.post('/v1/keys/verify', { key: token.body.access_token })).body.valid, true);
    const res = await admin.post(`/api/v1/subscriptions/${subscription.id}/cancel`);
    assert.equal(res.status, 200);
    assert.equal((await admin.post('/v1/keys/verify', { key: token.body.access_token })).body.code, 'REVOKED');
    assert.equal((await admin.get(`/api/v1/client-credentials/${clientId}`)).body.status, 'REVOKED');
    assert.equal((await tokenRequest(clientId, clientSecret)).status, 401);
  });
});
