import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, createApi, withQuery, type Environment } from '../src/api.js';

interface Seen {
  url: string;
  init: RequestInit;
}

/** A client over a fake fetch that records each request and answers with `answer`. */
function client(answer: () => Response, opts: { token?: string | null; env?: Environment } = {}) {
  const seen: Seen[] = [];
  const api = createApi({
    csrfToken: () => opts.token ?? null,
    environment: () => opts.env ?? 'test',
    now: () => Date.UTC(2026, 3, 16),
    fetch: async (url, init) => {
      seen.push({ url: typeof url === 'string' ? url : url instanceof URL ? url.href : url.url, init: init ?? {} });
      return answer();
    },
  });
  return { api, seen, headers: (i = 0) => seen[i]?.init.headers as Record<string, string> };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('createApi: what each request carries', () => {
  it('GET: same-origin credentials and the environment, no CSRF token, no body', async () => {
    const c = client(() => json(200, { ok: true }), { token: 'csrf_1', env: 'live' });
    assert.deepEqual(await c.api.get('/api/v1/workspace', { expand: undefined, limit: 5 }), { ok: true });
    assert.equal(c.seen[0]?.url, '/api/v1/workspace?limit=5');
    assert.equal(c.seen[0]?.init.credentials, 'same-origin');
    assert.equal(c.seen[0]?.init.body, undefined);
    assert.deepEqual(c.headers(), { accept: 'application/json', 'x-tollgate-environment': 'live' });
  });

  for (const method of ['post', 'put', 'patch', 'delete'] as const) {
    it(`${method.toUpperCase()}: the CSRF token too`, async () => {
      const c = client(() => json(200, {}), { token: 'csrf_1' });
      await (method === 'delete' ? c.api.delete('/x') : c.api[method]('/x', { a: 1 }));
      assert.equal(c.seen[0]?.init.method, method.toUpperCase());
      assert.equal(c.headers()['x-csrf-token'], 'csrf_1');
      assert.equal(c.headers()['x-tollgate-environment'], 'test');
      if (method !== 'delete') {
        assert.equal(c.seen[0]?.init.body, '{"a":1}');
        assert.equal(c.headers()['content-type'], 'application/json');
      }
    });
  }

  it('POST with a header of its own (Idempotency-Key): sent beside the usual ones, which it cannot replace', async () => {
    const c = client(() => json(200, {}), { token: 'csrf_1' });
    await c.api.post('/x', { a: 1 }, { 'idempotency-key': 'k_1', 'x-csrf-token': 'forged', accept: 'text/html' });
    assert.deepEqual(c.headers(), {
      'idempotency-key': 'k_1',
      accept: 'application/json',
      'x-tollgate-environment': 'test',
      'content-type': 'application/json',
      'x-csrf-token': 'csrf_1',
    });
  });

  it('no token before sign-in: no header', async () => {
    const c = client(() => json(200, {}));
    await c.api.post('/api/v1/operator_sessions', { email: 'a@b.c', password: 'x' });
    assert.equal('x-csrf-token' in c.headers(), false);
  });

  it('list: the cursor and the page size in the query', async () => {
    const c = client(() => json(200, { object: 'list', data: [], hasMore: false }));
    await c.api.list('/api/v1/customers', { startingAfter: 'cus_2' }, 20, { externalId: 'x' });
    assert.equal(c.seen[0]?.url, '/api/v1/customers?externalId=x&limit=20&startingAfter=cus_2');
  });

  it('withQuery encodes values', () => assert.equal(withQuery('/p', { q: 'a b&c' }), '/p?q=a+b%26c'));
});

describe('createApi: failures become an ApiError with the parsed envelope', () => {
  it('429 with Retry-After', async () => {
    const c = client(() => json(429, { success: false, errors: [{ code: 'RATE_LIMITED', message: 'Too many attempts.' }] }, { 'retry-after': '900' }));
    await assert.rejects(c.api.post('/api/v1/operator_sessions', {}), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.deepEqual(err.problem, { status: 429, errors: [{ code: 'RATE_LIMITED', message: 'Too many attempts.' }], retryAfterSeconds: 900 });
      return true;
    });
  });

  it('400 names the field', async () => {
    const c = client(() => json(400, { success: false, errors: [{ code: 'VALIDATION_FAILED', message: 'body.email is required.', field: 'body.email' }] }));
    await assert.rejects(
      c.api.post('/x', {}),
      (err: unknown) => err instanceof ApiError && err.status === 400 && err.problem.errors[0]?.field === 'body.email',
    );
  });

  it('a body that is not JSON: words for the status', async () => {
    const c = client(() => new Response('<html>Bad gateway</html>', { status: 502 }));
    await assert.rejects(c.api.get('/x'), (err: unknown) => err instanceof ApiError && err.problem.errors[0]?.code === 'HTTP_502');
  });

  it('the network fails: status 0', async () => {
    const api = createApi({
      csrfToken: () => null,
      environment: () => 'test',
      fetch: () => Promise.reject(new TypeError('Failed to fetch')),
    });
    await assert.rejects(api.get('/x'), (err: unknown) => err instanceof ApiError && err.status === 0 && err.problem.errors[0]?.code === 'NETWORK_ERROR');
  });

  it('204: no body, no error', async () => {
    const c = client(() => new Response(null, { status: 204 }));
    assert.equal(await c.api.delete('/api/v1/operator_sessions/current'), null);
  });
});
