import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../test/helpers/seed.js';

let t: TestApp;
let api: Client;
let key: string;
let ws: TenantHandle;

before(async () => {
  t = await createTestApp({ config: { bodyLimitBytes: 2048 } });
  ws = await t.seed.workspace();
  key = ws.test.secretKey;
  api = t.seed.client(key);
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

  it('405 with Allow for a path that exists under other methods, in the envelope', async () => {
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/api/v1/customers', 'GET, HEAD, POST'],
      ['PUT', '/api/v1/customers/cus_123', 'GET, HEAD, PATCH'],
      ['GET', '/v1/ingest/batch', 'POST'],
    ];
    for (const [method, url, allow] of cases) {
      const res = await api.request(method as 'DELETE', url);
      assert.equal(res.status, 405, `${method} ${url}`);
      assert.equal(res.headers.allow, allow);
      assert.equal(res.body.errors[0].code, 'METHOD_NOT_ALLOWED');
      assert.equal(res.body.errors[0].message, `${url} does not take ${method}; it takes ${allow}.`);
    }
  });

  it('413 for a body over the limit, stating the limit, never 500', async () => {
    const res = await api.post('/api/v1/customers', { name: 'x', metadata: { note: 'y'.repeat(400) }, pad: 'z'.repeat(3000) });
    assert.equal(res.status, 413);
    assert.equal(res.body.errors[0].code, 'PAYLOAD_TOO_LARGE');
    assert.equal(
      res.body.errors[0].message,
      'The request body is larger than this endpoint accepts: at most 2,048 bytes (BODY_LIMIT_BYTES). Split it into smaller requests.',
    );
  });

  it('415 for a Content-Type the endpoint does not take', async () => {
    const res = await api.post('/api/v1/customers', 'name=x', { 'content-type': 'text/plain' });
    assert.equal(res.status, 415);
    assert.equal(res.body.errors[0].code, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('415 naming Content-Type: application/json for a form body on a JSON endpoint (what curl -d sends)', async () => {
    const res = await api.post('/v1/ingest/batch', '{"events":[]}', { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(res.status, 415);
    assert.deepEqual(Object.keys(res.body), ['success', 'errors']);
    assert.equal(res.body.errors[0].code, 'UNSUPPORTED_MEDIA_TYPE');
    assert.match(res.body.errors[0].message, /send it with Content-Type: application\/json/);
    assert.match(res.body.errors[0].message, /curl -d/);
  });

  it('415 naming Content-Type: application/json for a body without a Content-Type', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/customers',
      headers: { authorization: `Bearer ${key}` },
      payload: Buffer.from('{"name":"x"}'),
    });
    assert.equal(res.statusCode, 415);
    assert.match(res.json().errors[0].message, /send it with Content-Type: application\/json \(the request has no Content-Type\)/);
  });

  it('an empty form body still reads as no body, and an unknown route with a form body is a 404', async () => {
    const sub = await t.seed.subscription(ws.test);
    const keyId = (await t.seed.productKey(ws.test, sub.subscription.id)).id;
    const rotated = await api.post(`/api/v1/api-keys/${keyId}/rotate`, '', { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const missing = await api.post('/api/v1/nothing-here', 'a=1', { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(missing.status, 404);
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

  it('400 for a malformed percent-encoding in the path, in the envelope, naming the path', async () => {
    for (const url of ['/api/v1/customers/%E0%A4%A', '/pricing/%ZZ', '/api/v1/customers/%FF%FE']) {
      const res = await api.get(url);
      assert.equal(res.status, 400, url);
      assert.deepEqual(Object.keys(res.body), ['success', 'errors']);
      assert.equal(res.body.errors[0].code, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].field, 'path');
      assert.match(res.body.errors[0].message, /percent-encod/);
      assert.match(String(res.headers['x-request-id']), /^req_/);
    }
  });

  it('400 for a path parameter over 100 characters, in the envelope', async () => {
    const res = await api.get(`/api/v1/customers/${'x'.repeat(101)}`);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors, [
      { code: 'VALIDATION_FAILED', field: 'path', message: 'A path parameter is longer than 100 characters; no id is that long.' },
    ]);
  });

  it('400 in the envelope for a request Node cannot parse (a bad request line), on a real socket', async () => {
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = new URL(address);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write('GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      let text = '';
      socket.on('data', (d) => (text += d.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.match(answer, /content-type: application\/json; charset=utf-8/i);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    assert.equal(body.success, false);
    assert.equal(body.errors[0].code, 'INVALID_REQUEST');
  });

  it('401 for a malformed Authorization header, a non-Bearer scheme and an unknown key', async () => {
    for (const authorization of ['sk_test_abc', 'Basic dXNlcjpwYXNz', `Bearer sk_test_${'a'.repeat(32)}`, 'Bearer ']) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/customers', headers: { authorization } });
      assert.equal(res.statusCode, 401, authorization);
      assert.equal(res.json().errors[0].code, 'UNAUTHENTICATED');
    }
  });
});
