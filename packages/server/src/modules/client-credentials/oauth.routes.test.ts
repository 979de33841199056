import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sha256Hex } from '../../lib/crypto.js';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, EnvHandle } from '../../../test/helpers/seed.js';

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** A workspace with client credentials for an AI_AGENT subscription, issued over HTTP. */
async function agent(env: 'test' | 'live' = 'test') {
  const ws = await t.seed.workspace();
  const handle: EnvHandle = ws[env];
  const admin: Client = t.seed.client(handle.secretKey);
  const { customer, product, subscription } = await t.seed.subscription(handle, 'AI_AGENT');
  const res = await admin.post('/api/v1/client-credentials', { name: 'agent', subscriptionId: subscription.id });
  assert.equal(res.status, 200);
  return { ws, admin, customer, product, subscription, clientId: res.body.id as string, clientSecret: res.body.clientSecret as string };
}

function postToken(fields: Record<string, string>, headers: Record<string, string> = {}) {
  return t.seed.client(null).post('/oauth/token', new URLSearchParams(fields).toString(), { ...FORM, ...headers });
}

const grant = (clientId: string, clientSecret: string) => postToken({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });

const basic = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });

function assertInvalidClient(res: Awaited<ReturnType<typeof postToken>>) {
  assert.equal(res.status, 401);
  assert.equal(res.body.error, 'invalid_client');
  assert.equal(typeof res.body.error_description, 'string');
  assert.match(String(res.headers['www-authenticate']), /^Basic /);
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.equal(res.body.access_token, undefined);
}

describe('POST /oauth/token', () => {
  it('200 exchanges a form body for {access_token, token_type: Bearer, expires_in}, with Cache-Control no-store', async () => {
    const { clientId, clientSecret } = await agent();
    const res = await grant(clientId, clientSecret);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['access_token', 'expires_in', 'token_type']);
    assert.match(res.body.access_token, /^at_test_[0-9a-f]{64}$/);
    assert.equal(res.body.token_type, 'Bearer');
    assert.equal(res.body.expires_in, t.deps.config.accessTokenTtlSeconds);
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  it('200 with the client ID and secret in HTTP Basic', async () => {
    const { clientId, clientSecret } = await agent();
    const res = await postToken({ grant_type: 'client_credentials' }, basic(clientId, clientSecret));
    assert.equal(res.status, 200);
    assert.equal(res.body.token_type, 'Bearer');
    assert.match(res.body.access_token, /^at_test_[0-9a-f]{64}$/);
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  it('200 a live credential gets an at_live_ token', async () => {
    const { clientId, clientSecret } = await agent('live');
    const res = await grant(clientId, clientSecret);
    assert.equal(res.status, 200);
    assert.match(res.body.access_token, /^at_live_[0-9a-f]{64}$/);
  });

  it('200 each request issues a new token', async () => {
    const { clientId, clientSecret } = await agent();
    const a = await grant(clientId, clientSecret);
    const b = await grant(clientId, clientSecret);
    assert.notEqual(a.body.access_token, b.body.access_token);
  });

  it('400 invalid_request without grant_type', async () => {
    const { clientId, clientSecret } = await agent();
    const res = await postToken({ client_id: clientId, client_secret: clientSecret });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalid_request');
    assert.equal(res.body.errors[0].field, 'body.grant_type');
  });

  it('400 unsupported_grant_type for grant_type=password', async () => {
    const { clientId, clientSecret } = await agent();
    const res = await postToken({ grant_type: 'password', client_id: clientId, client_secret: clientSecret, username: 'u', password: 'p' });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'unsupported_grant_type');
  });

  it('400 invalid_request, never 500, for malformed JSON, a field of the wrong type or no body', async () => {
    const anon = t.seed.client(null);
    const json = { 'content-type': 'application/json' };
    const cases = [
      await anon.post('/oauth/token', '{"grant_type": ', json),
      await anon.post('/oauth/token', { grant_type: 5 }),
      await anon.request('POST', '/oauth/token'),
    ];
    for (const res of cases) {
      assert.equal(res.status, 400);
      assert.equal(res.body.error, 'invalid_request');
      assert.equal(typeof res.body.error_description, 'string');
      assert.equal(res.body.success, false);
      assert.equal(res.headers['cache-control'], 'no-store');
    }
    assert.equal(cases[1]?.body.errors[0].field, 'body.grant_type');
  });

  it('400 invalid_request when credentials come both in HTTP Basic and in the body', async () => {
    const { clientId, clientSecret } = await agent();
    const res = await postToken({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }, basic(clientId, clientSecret));
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalid_request');
    assert.equal(res.body.access_token, undefined);
  });

  it('401 invalid_client with WWW-Authenticate for a wrong secret, in the body or in HTTP Basic', async () => {
    const { clientId, clientSecret } = await agent();
    const wrong = clientSecret.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    assertInvalidClient(await grant(clientId, wrong));
    assertInvalidClient(await postToken({ grant_type: 'client_credentials' }, basic(clientId, wrong)));
  });

  it('401 invalid_client for an unknown or malformed client ID and for missing credentials', async () => {
    const { clientSecret } = await agent();
    assertInvalidClient(await grant('cid_00000000000000000000000000', clientSecret));
    assertInvalidClient(await grant('not-a-client-id', clientSecret));
    assertInvalidClient(await postToken({ grant_type: 'client_credentials' }));
  });

  it('401 one client ID with another client’s secret', async () => {
    const a = await agent();
    const b = await agent();
    assertInvalidClient(await grant(a.clientId, b.clientSecret));
  });

  it('200 and 401 leave no plaintext client secret or access token in the database', async () => {
    const { clientId, clientSecret } = await agent();
    const ok = await grant(clientId, clientSecret);
    assert.equal(ok.status, 200);
    const wrong = clientSecret.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    assert.equal((await grant(clientId, wrong)).status, 401);
    const tokenRow = await t.deps.db
      .selectFrom('accessTokens')
      .select('clientCredentialId')
      .where('tokenHash', '=', sha256Hex(ok.body.access_token))
      .executeTakeFirst();
    assert.equal(tokenRow?.clientCredentialId, clientId, 'the token is stored as its SHA-256');
    const failures = await t.deps.db.selectFrom('auditEvents').select('id').where('eventType', '=', 'auth.failed').execute();
    assert.ok(failures.length > 0, 'the failed attempt is audited');
    const secrets = [clientSecret, wrong, ok.body.access_token.slice('at_test_'.length)];
    for (const table of ['clientCredentials', 'accessTokens', 'auditEvents', 'idempotencyKeys'] as const) {
      const rows = (await t.deps.db.selectFrom(table).selectAll().execute()) as unknown as Record<string, unknown>[];
      if (table !== 'idempotencyKeys') assert.ok(rows.length > 0, `${table} has rows to scan`);
      for (const row of rows) {
        for (const [column, value] of Object.entries(row)) {
          if (typeof value !== 'string') continue;
          for (const s of secrets) assert.ok(!value.includes(s), `${table}.${column} holds a plaintext secret`);
        }
      }
    }
  });
});

describe('POST /v1/keys/verify with an access token', () => {
  it('200 valid with the credential’s customerId, subscriptionId and productId', async () => {
    const { ws, clientId, clientSecret, customer, product, subscription } = await agent();
    const token = await grant(clientId, clientSecret);
    const gateway = await t.seed.workspaceKey(ws.test, ['keys:verify']);
    const res = await t.seed.client(gateway.token).post('/v1/keys/verify', { key: token.body.access_token });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      valid: true,
      code: 'VALID',
      keyId: clientId,
      customerId: customer.id,
      subscriptionId: subscription.id,
      productId: product.id,
      environment: 'test',
      expiresAt: new Date(t.clock.now() + t.deps.config.accessTokenTtlSeconds * 1000).toISOString(),
    });
  });

  it('200 EXPIRED once the access token lifetime has passed', async () => {
    const { admin, clientId, clientSecret } = await agent();
    const token = await grant(clientId, clientSecret);
    const ttlMs = t.deps.config.accessTokenTtlSeconds * 1000;
    t.clock.advance(ttlMs - 1000);
    assert.equal((await admin.post('/v1/keys/verify', { key: token.body.access_token })).body.valid, true);
    t.clock.advance(2000);
    const res = await admin.post('/v1/keys/verify', { key: token.body.access_token });
    assert.equal(res.body.valid, false);
    assert.equal(res.body.code, 'EXPIRED');
    const fresh = await grant(clientId, clientSecret);
    assert.equal((await admin.post('/v1/keys/verify', { key: fresh.body.access_token })).body.valid, true, 'a new token works');
  });

  it('200 NOT_FOUND when another workspace verifies the token', async () => {
    const { clientId, clientSecret } = await agent();
    const token = await grant(clientId, clientSecret);
    const stranger = await t.seed.workspace();
    const res = await t.seed.client(stranger.test.secretKey).post('/v1/keys/verify', { key: token.body.access_token });
    assert.equal(res.body.valid, false);
    assert.equal(res.body.code, 'NOT_FOUND');
    assert.equal(res.body.customerId, null);
  });

  it('401 an access token is not an API key: it cannot authenticate API calls', async () => {
    const { clientId, clientSecret } = await agent();
    const token = await grant(clientId, clientSecret);
    const res = await t.seed.client(token.body.access_token).get('/api/v1/customers');
    assert.equal(res.status, 401);
    assert.equal(res.body.errors[0].code, 'UNAUTHENTICATED');
  });
});
