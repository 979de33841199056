// tollgate secrets re-encrypt, for endpoint secrets: both columns move to the current key.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { ok } from '../../../test/helpers/expect.js';
import { generateEncryptionKey, SecretBox } from '../../lib/secret-box.js';
import { reencryptEndpointSecrets } from './reencrypt-endpoint-secrets.js';
import { secretAssociatedData } from './webhook-endpoint.js';

let t: TestApp;
const oldKey = generateEncryptionKey('old');
const newKey = generateEncryptionKey('new');

before(async () => {
  t = await createTestApp({ config: { encryptionKeys: [oldKey], outboundWebhookAllowPrivateAddresses: true } });
});
after(() => t.close());

describe('reencryptEndpointSecrets', () => {
  it('re-seals the secret and the previous one with the new first key; without the old key it names the endpoint', async () => {
    const ws = await t.seed.workspace();
    const api = t.seed.client(ws.test.secretKey);
    const created = await ok(api.post('/api/v1/webhook-endpoints', { url: 'https://hooks.example/x', eventTypes: ['*'] }));
    const rotated = await ok(api.post(`/api/v1/webhook-endpoints/${created.id}/rotate-secret`, {}));
    const actor = { type: 'OPERATOR' as const, id: 'cli' };

    const both = new SecretBox([newKey, oldKey]);
    const r = await reencryptEndpointSecrets({ ...t.deps, secrets: both }, actor, 'req_1');
    assert.deepEqual(r, { currentKeyId: 'new', total: 2, reencrypted: 2, unreadable: [] });
    const row = await t.deps.db.selectFrom('webhookEndpoints').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    const onlyNew = new SecretBox([newKey]);
    const aad = secretAssociatedData(created.id);
    assert.deepEqual([row.secretKeyId, row.previousSecretKeyId], ['new', 'new']);
    assert.equal(onlyNew.open({ ciphertext: row.secretCiphertext, keyId: row.secretKeyId }, aad), rotated.secret);
    assert.equal(onlyNew.open({ ciphertext: row.previousSecretCiphertext!, keyId: row.previousSecretKeyId! }, aad), created.secret);
    assert.deepEqual(await reencryptEndpointSecrets({ ...t.deps, secrets: onlyNew }, actor, 'req_2'), {
      currentKeyId: 'new',
      total: 2,
      reencrypted: 0,
      unreadable: [],
    });

    const other = await ok(api.post('/api/v1/webhook-endpoints', { url: 'https://hooks.example/y', eventTypes: ['*'] }));
    const wrong = await reencryptEndpointSecrets({ ...t.deps, secrets: onlyNew }, actor, 'req_3');
    assert.deepEqual(wrong.unreadable, [other.id]);
  });
});
