import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../test/helpers/seed.js';
import { rejects } from '../../test/helpers/expect.js';
import { MAX_JSON_DEPTH } from '../lib/json-limits.js';

let t: TestApp;
let ws: TenantHandle;
let api: Client;
let anonymous: Client;

before(async () => {
  t = await createTestApp();
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
  anonymous = t.seed.client(null);
});
after(() => t.close());

/** `levels` objects, one inside the other. */
const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('text a database cannot store: NUL characters and invalid percent-encoding', () => {
  it('400 names path for %00 in a path, before any lookup, with or without a key', async () => {
    for (const [client, url] of [
      [anonymous, '/pricing/%00'],
      [anonymous, '/v1/ingest/webhook/wsrc_%00'],
      [api, '/api/v1/customers/cus_%00'],
    ] as const) {
      const e = await rejects(client.get(url), 'path');
      assert.match(e.message, /NUL character/, url);
    }
    const e = await rejects(anonymous.post('/v1/ingest/webhook/%00', '{}'), 'path');
    assert.match(e.message, /NUL character/);
  });

  it('400 names query.<name> for %00 in a query value or name', async () => {
    await rejects(api.get('/api/v1/customers?startingAfter=cus_%00'), 'query.startingAfter');
    await rejects(api.get('/api/v1/customers?externalId=a%00b'), 'query.externalId');
    await rejects(api.get('/api/v1/customers?a%00b=1'), 'query');
  });

  it('400 names query.<name> for a query value that is not percent-encoded UTF-8 (it was read as the literal text %FF)', async () => {
    for (const [url, field] of [
      ['/api/v1/customers?externalId=%FF', 'query.externalId'],
      ['/api/v1/customers?limit=5&externalId=a%E0%A4%A', 'query.externalId'],
      ['/pricing/sf_1?x=%ZZ', 'query.x'],
    ] as const) {
      const e = await rejects(api.get(url), field);
      assert.match(e.message, /percent-encod/, url);
    }
    // An encoded é, a + and an encoded % are all fine.
    assert.equal((await api.get('/api/v1/customers?externalId=caf%C3%A9+x%25')).status, 200);
  });

  it('400 names headers.<name> for a NUL in a header value (the HTTP parser refuses it; app.inject and other transports do not)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/customers',
      headers: { authorization: `Bearer ${ws.test.secretKey}`, 'content-type': 'application/json', 'idempotency-key': 'k\u0000' },
      payload: '{"name":"x"}',
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json().errors, [
      {
        code: 'VALIDATION_FAILED',
        field: 'headers.idempotency-key',
        message: 'The idempotency-key header contains a NUL character (byte 0, %00 in a URL), which cannot be stored; remove it.',
      },
    ]);
  });

  it('400 names body.<field> for \\u0000 in a body string or key; nothing is stored', async () => {
    const e = await rejects(api.post('/api/v1/customers', { name: 'a\u0000b' }), 'body.name');
    assert.equal(e.message, 'body.name contains a NUL character (\\u0000), which cannot be stored; remove it.');
    await rejects(api.post('/api/v1/customers', { name: 'x', metadata: { note: 'ok', 'k\u0000': 'v' } }), 'body.metadata');
    await rejects(api.patch('/api/v1/customers/cus_1', { metadata: { tags: 'a\u0000' } }), 'body.metadata.tags');
    const list = await api.get('/api/v1/customers');
    assert.deepEqual(list.body.data, []);
  });
});

describe(`JSON nesting (at most ${MAX_JSON_DEPTH} levels)`, () => {
  it(`400 INVALID_JSON for a body nested ${MAX_JSON_DEPTH + 1} levels, naming the limit; ${MAX_JSON_DEPTH} levels reach validation`, async () => {
    // The body and fieldMappings are two levels.
    const deep = await api.post(
      '/api/v1/webhook-sources',
      `{"provider":"custom","displayName":"x","fieldMappings":{"quantity":${nested(MAX_JSON_DEPTH - 2)}}}`,
    );
    assert.equal(deep.status, 400);
    assert.equal(deep.body.errors[0].code, 'VALIDATION_FAILED', JSON.stringify(deep.body));
    const tooDeep = await api.post(
      '/api/v1/webhook-sources',
      `{"provider":"custom","displayName":"x","fieldMappings":{"quantity":${nested(MAX_JSON_DEPTH - 1)}}}`,
    );
    assert.equal(tooDeep.status, 400);
    assert.deepEqual(tooDeep.body.errors, [
      {
        code: 'INVALID_JSON',
        field: 'body',
        message: `The body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep; no request needs that many.`,
      },
    ]);
  });

  it('400, not 500, for a 10,000-deep body with an Idempotency-Key (the fingerprint once overflowed the stack)', async () => {
    const key = await t.seed.productKey(ws.test);
    for (const [url, body] of [
      [`/api/v1/api-keys/${key.id}/rotate`, nested(10_000)],
      ['/api/v1/webhook-sources', `{"provider":"custom","displayName":"x","fieldMappings":{"quantity":${nested(10_000)}}}`],
    ]) {
      const res = await api.post(url!, body, { 'idempotency-key': `deep-${url}` });
      assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.errors[0].code, 'INVALID_JSON');
    }
  });
});
