import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';
import type { Client } from '../../test/helpers/seed.js';

let t: TestApp;
let api: Client;

before(async () => {
  t = await createTestApp({ config: { bodyLimitBytes: 2048 } });
  const ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
});
after(() => t.close());

describe('the error envelope', () => {
  it('404 for an unknown route, in the envelope, with X-Request-Id', async () => {
    const res = await api.get('/api/v1/nothing-here');
    assert.equal(res.status, 404);
    assert.deepEqual(Object.keys(res.body), ['success', 'errors']);
    assert.equal(res.body.errors[0].code, 'ROUTE_NOT_FOUND');
    assert.match(String(res.headers['x-request-id']), /^req_/);
  });

  it('413 for a body over the limit, never 500', async () => {
    const res = await api.post('/api/v1/customers', { name: 'x', metadata: { note: 'y'.repeat(400) }, pad: 'z'.repeat(3000) });
    assert.equal(res.status, 413);
    assert.equal(res.body.errors[0].code, 'PAYLOAD_TOO_LARGE');
  });

  it('415 for a Content-Type the endpoint does not take', async () => {
    const res = await api.post('/api/v1/customers', 'name=x', { 'content-type': 'text/plain' });
    assert.equal(res.status, 415);
    assert.equal(res.body.errors[0].code, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('400 for a prototype-poisoning key', async () => {
    const res = await api.post('/api/v1/customers', '{"name":"x","__proto__":{"admin":true}}');
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].code, 'INVALID_JSON');
  });

  it('400 for a JSON array where an object is expected, naming the body', async () => {
    const res = await api.post('/api/v1/customers', '[1,2]');
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'body');
  });

  it('400 for an empty body where one is required', async () => {
    const res = await api.post('/api/v1/products', '', { 'content-type': 'application/json' });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].code, 'VALIDATION_FAILED');
  });

  it('X-Request-Id on success and failure, X-Correlation-Id echoed when sent', async () => {
    const ok = await api.get('/api/v1/customers', { 'x-correlation-id': 'trace-123' });
    assert.equal(ok.status, 200);
    assert.match(String(ok.headers['x-request-id']), /^req_/);
    assert.equal(ok.headers['x-correlation-id'], 'trace-123');
    const unauth = await t.seed.client(null).get('/api/v1/customers');
    assert.equal(unauth.status, 401);
    assert.match(String(unauth.headers['x-request-id']), /^req_/);
    assert.equal(unauth.headers['www-authenticate'], 'Bearer');
  });

  it('401 for a malformed Authorization header, a non-Bearer scheme and an unknown key', async () => {
    for (const authorization of ['sk_test_abc', 'Basic dXNlcjpwYXNz', `Bearer sk_test_${'a'.repeat(32)}`, 'Bearer ']) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/customers', headers: { authorization } });
      assert.equal(res.statusCode, 401, authorization);
      assert.equal(res.json().errors[0].code, 'UNAUTHENTICATED');
    }
  });
});
