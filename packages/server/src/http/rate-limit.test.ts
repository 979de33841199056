import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';
import type { TenantHandle } from '../../test/helpers/seed.js';
import { setWorkspaceRateLimit } from '../modules/tenancy/workspace.repository.js';
import { invalidateCredentials } from '../modules/credentials/credential-cache.js';

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

async function burn(key: string, n: number): Promise<void> {
  const c = t.seed.client(key);
  for (let i = 0; i < n; i++) {
    const res = await c.get('/api/v1/workspace');
    assert.equal(res.status, 200, `request ${i + 1} of ${n} should pass`);
  }
}

describe('rate limit per workspace (300 requests per minute)', () => {
  let ws: TenantHandle;
  before(async () => {
    ws = await t.seed.workspace();
  });

  it('200 with X-RateLimit-Limit and a falling X-RateLimit-Remaining on every limited response', async () => {
    const c = t.seed.client(ws.test.secretKey);
    const first = await c.get('/api/v1/workspace');
    const second = await c.get('/api/v1/customers');
    assert.equal(first.headers['x-ratelimit-limit'], '300');
    assert.equal(first.headers['x-ratelimit-remaining'], '299');
    assert.equal(second.headers['x-ratelimit-remaining'], '298');
    // The window's reset, in seconds as Retry-After counts them, and the IETF draft's pair.
    assert.equal(first.headers['x-ratelimit-reset'], '60');
    assert.equal(first.headers['ratelimit-policy'], '"tenant";q=300;w=60');
    assert.equal(first.headers['ratelimit'], '"tenant";r=299;t=60');
    assert.equal(second.headers['ratelimit'], '"tenant";r=298;t=60');
  });

  it('429 on the 301st request within a minute, with the spec headers and body', async () => {
    await burn(ws.test.secretKey, 298);
    const res = await t.seed.client(ws.test.secretKey).get('/api/v1/workspace');
    assert.equal(res.status, 429);
    assert.equal(res.headers['retry-after'], '60');
    assert.equal(res.headers['x-ratelimit-limit'], '300');
    assert.equal(res.headers['x-ratelimit-remaining'], '0');
    assert.equal(res.headers['x-ratelimit-reset'], '60');
    assert.deepEqual([res.headers['ratelimit-policy'], res.headers['ratelimit']], ['"tenant";q=300;w=60', '"tenant";r=0;t=60']);
    assert.equal(res.body.success, false);
    assert.equal(res.body.errors.length, 1);
    assert.equal(res.body.errors[0].code, 'RATE_LIMITED');
    assert.match(res.body.errors[0].message, /300 requests per minute per tenant/);
  });

  it('429 for the live key of the same workspace too: the limit is per workspace', async () => {
    const res = await t.seed.client(ws.live.secretKey).get('/api/v1/workspace');
    assert.equal(res.status, 429);
  });

  it('Retry-After counts down with the window', async () => {
    t.clock.advance(45_000);
    const res = await t.seed.client(ws.test.secretKey).get('/api/v1/workspace');
    assert.equal(res.status, 429);
    assert.equal(res.headers['retry-after'], '15');
    assert.equal(res.headers['x-ratelimit-reset'], '15');
    assert.equal(res.headers['ratelimit'], '"tenant";r=0;t=15');
  });

  it('200 again once the window has passed', async () => {
    t.clock.advance(15_000);
    const res = await t.seed.client(ws.test.secretKey).get('/api/v1/workspace');
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-ratelimit-remaining'], '299');
  });

  it('another workspace is not affected', async () => {
    const other = await t.seed.workspace();
    const res = await t.seed.client(other.test.secretKey).get('/api/v1/workspace');
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-ratelimit-remaining'], '299');
  });
});

describe('rate limit configured per workspace', () => {
  it('a raised limit applies at once and shows in X-RateLimit-Limit and GET /api/v1/workspace', async () => {
    const ws = await t.seed.workspace();
    await setWorkspaceRateLimit(t.deps.db, ws.workspaceId, 1000, t.clock.now());
    await invalidateCredentials(t.deps);
    const res = await t.seed.client(ws.test.secretKey).get('/api/v1/workspace');
    assert.equal(res.headers['x-ratelimit-limit'], '1000');
    assert.equal(res.body.rateLimitPerMinute, 1000);
  });

  it('a lowered limit refuses the request after it', async () => {
    const ws = await t.seed.workspace();
    await setWorkspaceRateLimit(t.deps.db, ws.workspaceId, 2, t.clock.now());
    const c = t.seed.client(ws.test.secretKey);
    assert.equal((await c.get('/api/v1/workspace')).status, 200);
    assert.equal((await c.get('/api/v1/workspace')).status, 200);
    const res = await c.get('/api/v1/workspace');
    assert.equal(res.status, 429);
    assert.match(res.body.errors[0].message, /at most 2 requests per minute per tenant/);
  });
});

describe('rate limit per IP for public routes', () => {
  it('429 on the 301st unauthenticated request from one IP; another IP is unaffected; /health is never limited', async () => {
    const ip = '10.0.0.7';
    for (let i = 0; i < 300; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/openapi.json', remoteAddress: ip });
      assert.equal(res.statusCode, 200);
    }
    const limited = await t.app.inject({ method: 'GET', url: '/openapi.json', remoteAddress: ip });
    assert.equal(limited.statusCode, 429);
    assert.match(limited.json().errors[0].message, /per IP address/);
    assert.equal(limited.headers['x-ratelimit-remaining'], '0');
    const other = await t.app.inject({ method: 'GET', url: '/openapi.json', remoteAddress: '10.0.0.8' });
    assert.equal(other.statusCode, 200);
    const health = await t.app.inject({ method: 'GET', url: '/health', remoteAddress: ip });
    assert.equal(health.statusCode, 200);
    assert.equal(health.headers['x-ratelimit-limit'], undefined);
  });

  it('failed authentications count against the caller IP, then get 429 instead of 401', async () => {
    const ip = '10.0.0.9';
    const bad = { authorization: `Bearer sk_test_${'0'.repeat(32)}` };
    for (let i = 0; i < 300; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/customers', remoteAddress: ip, headers: bad });
      assert.equal(res.statusCode, 401);
    }
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/customers', remoteAddress: ip, headers: bad });
    assert.equal(res.statusCode, 429);
  });
});
