import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sha256Hex } from '../../lib/crypto.js';
import { credentialState } from '../credentials/credential.js';
import { findCredentialBySecret } from '../authentication/find-credential.js';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

async function tenant(): Promise<{ ws: TenantHandle; admin: Client; live: Client }> {
  const ws = await t.seed.workspace();
  return { ws, admin: t.seed.client(ws.test.secretKey), live: t.seed.client(ws.live.secretKey) };
}

/** A storefront of the client's environment, for keys to belong to. */
async function storefrontOf(c: Client): Promise<string> {
  const res = await c.post('/api/v1/storefronts', { name: 'Website' });
  assert.equal(res.status, 200);
  return res.body.id;
}

async function createKey(c: Client, name = 'pricing page') {
  const res = await c.post('/api/v1/storefront-keys', { name, storefrontId: await storefrontOf(c) });
  assert.equal(res.status, 200);
  return res.body as { id: string; fullToken: string; hint: string; status: string };
}

describe('POST /api/v1/storefront-keys', () => {
  it('200 returns a 40-character pk_test_ key once and stores only its SHA-256', async () => {
    const { ws, admin } = await tenant();
    const storefrontId = await storefrontOf(admin);
    const res = await admin.post('/api/v1/storefront-keys', { name: 'pricing page', storefrontId });
    assert.equal(res.status, 200);
    assert.equal(res.body.storefrontId, storefrontId);
    assert.match(res.body.id, /^sfk_[0-9a-z]{26}$/);
    assert.equal(res.body.object, 'storefront_key');
    assert.equal(res.body.environment, 'test');
    assert.equal(res.body.status, 'ACTIVE');
    assert.equal(res.body.fullToken.length, 40);
    assert.match(res.body.fullToken, /^pk_test_[0-9a-f]{32}$/);
    assert.equal(res.body.hint, `pk_test_…${res.body.fullToken.slice(-4)}`);
    const rows = await t.deps.db.selectFrom('storefrontKeys').selectAll().where('workspaceId', '=', ws.workspaceId).execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.keyHash, sha256Hex(res.body.fullToken));
    for (const table of ['storefrontKeys', 'auditEvents'] as const) {
      const all = (await t.deps.db.selectFrom(table).selectAll().execute()) as unknown as Record<string, unknown>[];
      for (const row of all) {
        for (const [column, value] of Object.entries(row)) {
          if (typeof value === 'string') assert.ok(!value.includes(res.body.fullToken.slice(8)), `${table}.${column} holds the plaintext`);
        }
      }
    }
  });

  it('200 an sk_live_ key creates a pk_live_ key', async () => {
    const { live } = await tenant();
    const key = await createKey(live);
    assert.match(key.fullToken, /^pk_live_[0-9a-f]{32}$/);
  });

  it('200 the Idempotency-Key replay returns the same key with fullToken null', async () => {
    const { admin } = await tenant();
    const headers = { 'idempotency-key': 'sfk-once' };
    const storefrontId = await storefrontOf(admin);
    const first = await admin.post('/api/v1/storefront-keys', { name: 'once', storefrontId }, headers);
    const replay = await admin.post('/api/v1/storefront-keys', { name: 'once', storefrontId }, headers);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body.id, first.body.id);
    assert.equal(replay.body.fullToken, null);
    const stored = await t.deps.db.selectFrom('idempotencyKeys').select('responseBody').where('key', '=', 'sfk-once').execute();
    assert.equal(stored.length, 1);
    assert.ok(!stored[0]?.responseBody.includes(first.body.fullToken.slice(8)), 'the stored replay holds no secret');
  });

  it('400 names body.name when it is missing', async () => {
    const { admin } = await tenant();
    const res = await admin.post('/api/v1/storefront-keys', { storefrontId: await storefrontOf(admin) });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'body.name');
  });

  it('400 names body.storefrontId when it is missing or names no storefront of the environment', async () => {
    const { admin, live } = await tenant();
    const missing = await admin.post('/api/v1/storefront-keys', { name: 'x' });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.errors[0].field, 'body.storefrontId');
    const liveStorefront = await storefrontOf(live);
    const wrongEnv = await admin.post('/api/v1/storefront-keys', { name: 'x', storefrontId: liveStorefront });
    assert.equal(wrongEnv.status, 400);
    assert.equal(wrongEnv.body.errors[0].field, 'body.storefrontId');
    assert.match(wrongEnv.body.errors[0].message, /No storefront/);
  });

  it('403 for a key without the keys:write scope', async () => {
    const { ws } = await tenant();
    const ingest = await t.seed.workspaceKey(ws.test, ['ingest']);
    const res = await t.seed.client(ingest.token).post('/api/v1/storefront-keys', { name: 'x' });
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
  });
});

describe('GET /api/v1/storefront-keys', () => {
  it('200 lists keys newest first without their secrets, and only of the key’s environment', async () => {
    const { admin, live } = await tenant();
    const a = await createKey(admin, 'a');
    t.clock.advance(1);
    const b = await createKey(admin, 'b');
    const liveKey = await createKey(live, 'live');
    const res = await admin.get('/api/v1/storefront-keys');
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.map((k: { id: string }) => k.id),
      [b.id, a.id],
    );
    for (const secret of [a.fullToken, b.fullToken, liveKey.fullToken]) {
      assert.ok(!res.raw.body.includes(secret.slice(8)), 'no secret in the list');
      assert.ok(!res.raw.body.includes(sha256Hex(secret)), 'no hash in the list');
    }
    assert.ok(res.body.data.every((k: object) => !('fullToken' in k)));
  });
});

describe('DELETE /api/v1/storefront-keys/:id', () => {
  it('200 revokes: the key then resolves as REVOKED', async () => {
    const { ws, admin } = await tenant();
    const key = await createKey(admin);
    const before = await findCredentialBySecret(t.deps, key.fullToken);
    assert.equal(before?.status, 'ACTIVE', 'resolved (and cached) before the revocation');
    const res = await admin.delete(`/api/v1/storefront-keys/${key.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'REVOKED');
    assert.equal(res.body.revokedAt, new Date(t.clock.now()).toISOString());
    const c = await findCredentialBySecret(t.deps, key.fullToken);
    assert.equal(c?.type, 'storefront_key');
    assert.equal(c?.workspaceId, ws.workspaceId);
    assert.equal(c?.status, 'REVOKED');
    assert.equal(credentialState(c, t.clock.now()), 'REVOKED');
  });

  it('200 twice: revoking a revoked key returns it unchanged', async () => {
    const { admin } = await tenant();
    const key = await createKey(admin);
    const first = await admin.delete(`/api/v1/storefront-keys/${key.id}`);
    t.clock.advance(1000);
    const second = await admin.delete(`/api/v1/storefront-keys/${key.id}`);
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);
  });

  it("404 for another workspace's key, which stays active", async () => {
    const { admin } = await tenant();
    const key = await createKey(admin);
    const { admin: stranger } = await tenant();
    const res = await stranger.delete(`/api/v1/storefront-keys/${key.id}`);
    assert.equal(res.status, 404);
    assert.equal((await findCredentialBySecret(t.deps, key.fullToken))?.status, 'ACTIVE');
  });
});

describe('storefront key resolution (findCredentialBySecret)', () => {
  it('resolves an active key to a storefront_key of its workspace and environment, usable now', async () => {
    const { ws, admin } = await tenant();
    const key = await createKey(admin);
    const c = await findCredentialBySecret(t.deps, key.fullToken);
    assert.ok(c);
    assert.equal(c.type, 'storefront_key');
    assert.equal(c.id, key.id);
    assert.equal(c.workspaceId, ws.workspaceId);
    assert.equal(c.environment, 'test');
    assert.equal(c.status, 'ACTIVE');
    assert.equal(credentialState(c, t.clock.now()), 'VALID');
  });

  it('resolves nothing for an unknown key or a key with its prefix altered', async () => {
    const { admin } = await tenant();
    const key = await createKey(admin);
    assert.equal(await findCredentialBySecret(t.deps, `pk_test_${'0'.repeat(32)}`), null);
    assert.equal(await findCredentialBySecret(t.deps, key.fullToken.replace('pk_test_', 'pk_live_')), null);
  });
});

describe('Authorization: Bearer with a storefront key', () => {
  it('401 on /api/v1/customers: a storefront key is not an API key', async () => {
    const { admin } = await tenant();
    const key = await createKey(admin);
    const res = await t.seed.client(key.fullToken).get('/api/v1/customers');
    assert.equal(res.status, 401);
    assert.equal(res.body.errors[0].code, 'UNAUTHENTICATED');
    assert.equal(res.headers['www-authenticate'], 'Bearer');
  });
});
