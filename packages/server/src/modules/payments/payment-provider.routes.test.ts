import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';
import { generateEncryptionKey, SecretBox, SecretBoxError } from '../../lib/secret-box.js';
import { sealedFor } from './payment-provider-connection.js';
import { reencryptProviderSecrets } from './reencrypt-provider-secrets.js';

let t: TestApp;
let ws: TenantHandle;
let api: Client;
const oldKey = generateEncryptionKey('old');
const newKey = generateEncryptionKey('new');

const testKey = 'sk_test_51AbCdEfGhIjKlMnOpQrStUv1111';
const liveKey = 'sk_live_51AbCdEfGhIjKlMnOpQrStUv2222';
const signing = 'whsec_AbCdEfGhIjKlMnOpQrStUv3333';

before(async () => {
  t = await createTestApp({ config: { encryptionKeys: [oldKey] } });
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
});
after(() => t.close());

const row = (id: string) => t.deps.db.selectFrom('paymentProviders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const audit = (eventType: string, targetId: string) =>
  t.deps.db.selectFrom('auditEvents').selectAll().where('eventType', '=', eventType).where('targetId', '=', targetId).execute();

describe('PUT /api/v1/payment_providers/stripe', () => {
  it('201 connects Stripe to the test environment; the secrets are sealed, never returned, audited by their hints', async () => {
    const res = await api.request('PUT', '/api/v1/payment_providers/stripe', { secretKey: testKey, webhookSecret: signing });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const id = res.body.id as string;
    assert.match(id, /^pp_[0-9a-z]+$/);
    assert.deepEqual(res.body, {
      id,
      object: 'payment_provider',
      environment: 'test',
      provider: 'stripe',
      secretKeyHint: '…1111',
      webhookSecretHint: '…3333',
      webhookUrl: `/v1/payments/stripe/webhooks/${id}`,
      createdAt: res.body.createdAt,
      updatedAt: res.body.createdAt,
    });
    for (const got of [res, await api.get('/api/v1/payment_providers/stripe'), await api.get('/api/v1/payment_providers')]) {
      assert.equal(got.status, 200 + (got === res ? 1 : 0));
      assert.ok(!got.raw.body.includes(testKey) && !got.raw.body.includes(signing), 'no secret in an answer');
    }
    assert.deepEqual(
      (await api.get('/api/v1/payment_providers')).body.data.map((c: { id: string }) => c.id),
      [id],
    );

    // At rest: sealed with the key ring, bound to this connection's id and field.
    const r = await row(id);
    assert.ok(!JSON.stringify(r).includes(testKey) && !JSON.stringify(r).includes(signing));
    assert.equal(t.deps.secrets.open({ ciphertext: r.secretKeyCiphertext, keyId: r.secretKeyKeyId }, sealedFor(id, 'secretKey')), testKey);
    assert.equal(t.deps.secrets.open({ ciphertext: r.webhookSecretCiphertext!, keyId: r.webhookSecretKeyId! }, sealedFor(id, 'webhookSecret')), signing);
    assert.throws(() => t.deps.secrets.open({ ciphertext: r.secretKeyCiphertext, keyId: r.secretKeyKeyId }, sealedFor(id, 'webhookSecret')), SecretBoxError);

    const [event] = await audit('payment_provider.connected', id);
    assert.equal(event?.severity, 'NOTICE');
    assert.deepEqual(JSON.parse(event.payload), { provider: 'stripe', secretKeyHint: '…1111', webhookSecretHint: '…3333' });
    assert.ok(!event.payload.includes(testKey));
  });

  it('200 replaces the keys of the existing connection: same id and creation, new hints, audited as an update', async () => {
    const before = (await api.get('/api/v1/payment_providers/stripe')).body;
    t.clock.advance(1_000);
    const res = await api.request('PUT', '/api/v1/payment_providers/stripe', {
      secretKey: 'rk_test_51AbCdEfGhIjKlMnOpQrStUv4444',
      webhookSecret: 'whsec_AbCdEfGhIjKlMnOpQrStUv5555',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.id, res.body.createdAt], [before.id, before.createdAt]);
    assert.notEqual(res.body.updatedAt, before.updatedAt);
    assert.deepEqual([res.body.secretKeyHint, res.body.webhookSecretHint], ['…4444', '…5555']);
    assert.equal((await audit('payment_provider.updated', before.id)).length, 1);
  });

  it('400 names the field: a live key on the test environment, a test key on live, a publishable key, a bad signing secret; nothing stored', async () => {
    const other = await t.seed.workspace();
    const cases: Array<[Client, Record<string, string>, string, RegExp]> = [
      [t.seed.client(other.test.secretKey), { secretKey: liveKey, webhookSecret: signing }, 'body.secretKey', /live-mode Stripe key/],
      [t.seed.client(other.live.secretKey), { secretKey: testKey, webhookSecret: signing }, 'body.secretKey', /test-mode Stripe key/],
      [t.seed.client(other.test.secretKey), { secretKey: 'pk_test_51AbCdEfGhIjKlMnOpQrStUv', webhookSecret: signing }, 'body.secretKey', /publishable key/],
      [t.seed.client(other.test.secretKey), { secretKey: testKey, webhookSecret: 'not-a-secret' }, 'body.webhookSecret', /whsec_/],
    ];
    for (const [client, body, field, message] of cases) {
      const res = await client.request('PUT', '/api/v1/payment_providers/stripe', body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.errors[0].field, field);
      assert.match(res.body.errors[0].message, message);
      assert.ok(!JSON.stringify(res.body).includes(testKey), 'the key is not echoed');
    }
    const both = await t.seed.client(other.test.secretKey).request('PUT', '/api/v1/payment_providers/stripe', { secretKey: liveKey, webhookSecret: 'x' });
    assert.deepEqual(
      both.body.errors.map((e: { field: string }) => e.field),
      ['body.secretKey', 'body.webhookSecret'],
    );
    for (const env of [other.test, other.live]) assert.deepEqual((await t.seed.client(env.secretKey).get('/api/v1/payment_providers')).body.data, []);
  });

  it('the live environment connects its own live key; each environment and workspace sees only its own', async () => {
    const live = t.seed.client(ws.live.secretKey);
    const res = await live.request('PUT', '/api/v1/payment_providers/stripe', { secretKey: liveKey, webhookSecret: signing });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.environment, 'live');
    const test = (await api.get('/api/v1/payment_providers/stripe')).body;
    assert.notEqual(test.id, res.body.id);
    const stranger = await t.seed.workspace();
    assert.equal((await t.seed.client(stranger.live.secretKey).get('/api/v1/payment_providers/stripe')).status, 404);
  });
});

describe('the signing secret after the key', () => {
  it('connects with the key alone (the webhook URL exists only then); the signing secret comes with a second PUT, and a PUT without it keeps it', async () => {
    const w = await t.seed.workspace();
    const c = t.seed.client(w.test.secretKey);
    const first = await c.request('PUT', '/api/v1/payment_providers/stripe', { secretKey: testKey });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.deepEqual([first.body.secretKeyHint, first.body.webhookSecretHint], ['…1111', null]);
    assert.match(first.body.webhookUrl, /^\/v1\/payments\/stripe\/webhooks\/pp_/);
    const both = await c.request('PUT', '/api/v1/payment_providers/stripe', { secretKey: testKey, webhookSecret: signing });
    assert.deepEqual([both.status, both.body.id, both.body.webhookSecretHint], [200, first.body.id, '…3333']);
    const keyOnly = await c.request('PUT', '/api/v1/payment_providers/stripe', { secretKey: 'sk_test_51AbCdEfGhIjKlMnOpQrStUv6666' });
    assert.deepEqual([keyOnly.body.secretKeyHint, keyOnly.body.webhookSecretHint], ['…6666', '…3333'], 'the signing secret stays');
  });
});

describe('GET and DELETE /api/v1/payment_providers/{provider}', () => {
  it('DELETE disconnects: the row and its sealed secrets are gone, audited; then 404 naming the provider', async () => {
    const w = await t.seed.workspace();
    const c = t.seed.client(w.test.secretKey);
    const created = await c.request('PUT', '/api/v1/payment_providers/stripe', { secretKey: testKey, webhookSecret: signing });
    const res = await c.delete('/api/v1/payment_providers/stripe');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.id, res.body.deleted], [created.body.id, true]);
    assert.equal((await t.deps.db.selectFrom('paymentProviders').selectAll().where('id', '=', created.body.id).execute()).length, 0);
    assert.equal((await audit('payment_provider.disconnected', created.body.id)).length, 1);
    for (const again of [await c.get('/api/v1/payment_providers/stripe'), await c.delete('/api/v1/payment_providers/stripe')]) {
      assert.equal(again.status, 404);
      assert.deepEqual(again.body.errors[0], { code: 'NOT_FOUND', message: 'No stripe connection exists in the test environment.', field: 'path.provider' });
    }
  });

  it('400 names path.provider for a provider that cannot be connected; 403 without the admin scope; 401 without a key', async () => {
    const bad = await api.get('/api/v1/payment_providers/paypal');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].field, 'path.provider');
    const { token } = await t.seed.workspaceKey(ws.test, ['keys:write', 'events:read']);
    const narrow = t.seed.client(token);
    for (const res of [
      await narrow.get('/api/v1/payment_providers'),
      await narrow.get('/api/v1/payment_providers/stripe'),
      await narrow.request('PUT', '/api/v1/payment_providers/stripe', { secretKey: testKey, webhookSecret: signing }),
      await narrow.delete('/api/v1/payment_providers/stripe'),
    ]) {
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
    }
    assert.equal((await t.seed.client(null).get('/api/v1/payment_providers')).status, 401);
  });
});

describe('tollgate secrets re-encrypt, for payment providers', () => {
  it('re-seals both secrets with the new first key; without the old key it names the connection', async () => {
    const w = await t.seed.workspace();
    const created = await t.seed.client(w.test.secretKey).request('PUT', '/api/v1/payment_providers/stripe', { secretKey: testKey, webhookSecret: signing });
    const actor = { type: 'OPERATOR' as const, id: 'cli' };
    const r = await reencryptProviderSecrets({ ...t.deps, secrets: new SecretBox([newKey, oldKey]) }, actor, 'req_1');
    assert.equal(r.unreadable.length, 0);
    assert.ok(r.reencrypted >= 2);
    const onlyNew = new SecretBox([newKey]);
    const stored = await row(created.body.id);
    assert.deepEqual([stored.secretKeyKeyId, stored.webhookSecretKeyId], ['new', 'new']);
    assert.equal(onlyNew.open({ ciphertext: stored.secretKeyCiphertext, keyId: 'new' }, sealedFor(created.body.id, 'secretKey')), testKey);
    assert.equal(onlyNew.open({ ciphertext: stored.webhookSecretCiphertext!, keyId: 'new' }, sealedFor(created.body.id, 'webhookSecret')), signing);
    assert.equal((await reencryptProviderSecrets({ ...t.deps, secrets: onlyNew }, actor, 'req_2')).reencrypted, 0);

    const later = await t.seed.workspace();
    const sealedOld = await t.seed
      .client(later.test.secretKey)
      .request('PUT', '/api/v1/payment_providers/stripe', { secretKey: testKey, webhookSecret: signing });
    assert.deepEqual((await reencryptProviderSecrets({ ...t.deps, secrets: onlyNew }, actor, 'req_3')).unreadable, [sealedOld.body.id]);
  });
});
