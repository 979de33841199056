/**
 * Redis faults: Redis cut or frozen under a server, through a TCP proxy the test controls (the
 * shared Redis is never stopped). Requests must not wait on it, rate limits must still hold (each
 * node enforcing its share), and a revocation must still reach other nodes within
 * KEY_CACHE_DEGRADED_TTL_MS. Runs on the PostgreSQL pass with REDIS_URL; otherwise skipped with
 * the reason.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { backend, createTestApp, type TestApp } from '../helpers/test-app.js';
import { Scratch, runCli, call } from '../helpers/processes.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

const skip: string | false =
  backend !== 'postgres' || !process.env.TEST_DATABASE_URL
    ? 'needs TEST_DATABASE_URL and REDIS_URL (the PostgreSQL pass): Redis faults are injected through a proxy to it'
    : !process.env.REDIS_URL
      ? 'needs REDIS_URL (this PostgreSQL pass runs without Redis)'
      : false;

function redisTarget(): { host: string; port: number } {
  const u = new URL(process.env.REDIS_URL as string);
  return { host: u.hostname, port: Number(u.port || 6379) };
}

const LIMIT = 30;

describe('Redis faults on one node', { skip }, () => {
  let proxy: TcpProxy;
  let t: TestApp;
  let key: string;

  before(async () => {
    if (skip) return;
    const { host, port } = redisTarget();
    proxy = await TcpProxy.start(host, port);
    t = await createTestApp({
      config: { redisUrl: proxy.via(process.env.REDIS_URL as string), rateLimitPerMinute: LIMIT, redisCommandTimeoutMs: 50 },
    });
    key = (await t.seed.workspace()).test.secretKey;
  });

  after(async () => {
    await t?.close();
    await proxy?.close();
  });

  /** LIMIT + 10 requests in one window (the clock is frozen); returns their statuses and how long they took in all. */
  async function burst(): Promise<{ statuses: number[]; elapsedMs: number }> {
    const client = t.seed.client(key);
    const started = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 10; i++) statuses.push((await client.get('/api/v1/customers')).status);
    return { statuses, elapsedMs: Date.now() - started };
  }

  it('with Redis cut, requests are answered without waiting for it and the limit still holds on this node', { timeout: 120_000 }, async () => {
    assert.equal((await t.seed.client(key).get('/api/v1/customers')).status, 200);
    await proxy.cut();
    try {
      t.clock.advance(61_000); // a fresh window
      const { statuses, elapsedMs } = await burst();
      assert.equal(statuses.filter((s) => s === 200).length, LIMIT, statuses.join(','));
      assert.ok(
        statuses.slice(LIMIT).every((s) => s === 429),
        statuses.join(','),
      );
      // Before: 3-6 s per request while Redis was away. A bound with a wide margin, not a benchmark.
      assert.ok(elapsedMs < 15_000, `${LIMIT + 10} requests took ${elapsedMs} ms`);
    } finally {
      await proxy.restore();
    }
  });

  it('with Redis frozen, each command gives up after REDIS_COMMAND_TIMEOUT_MS and the limit still holds', { timeout: 120_000 }, async () => {
    proxy.freeze();
    try {
      t.clock.advance(61_000);
      const { statuses, elapsedMs } = await burst();
      // The first request may still have been counted in Redis before the freeze showed.
      const allowed = statuses.filter((s) => s === 200).length;
      assert.ok(allowed >= LIMIT - 1 && allowed <= LIMIT, statuses.join(','));
      assert.ok(
        statuses.slice(LIMIT).every((s) => s === 429),
        statuses.join(','),
      );
      assert.ok(elapsedMs < 15_000, `${LIMIT + 10} requests took ${elapsedMs} ms`);
    } finally {
      await proxy.restore();
    }
  });
});

describe('Redis faults across two nodes', { skip }, () => {
  const scratch = new Scratch('redisfaults');
  let proxy: TcpProxy;

  after(async () => {
    await proxy?.close();
    await scratch.cleanup();
  });

  it('a key revoked on one node stops working on the other within KEY_CACHE_DEGRADED_TTL_MS while Redis is away', { timeout: 120_000 }, async () => {
    const { host, port } = redisTarget();
    proxy = await TcpProxy.start(host, port);
    const databaseUrl = (await scratch.schema({ migrated: true })).url;
    const env = { DATABASE_URL: databaseUrl, DATA_DIR: path.join(scratch.tempDir(), 'data') };
    const demo = await runCli(['demo', '--json'], env);
    assert.equal(demo.status, 0, demo.stderr);
    const admin = JSON.parse(demo.stdout).environments.test.secretKey as string;
    const serverEnv = {
      ...env,
      SEED_DEMO: 'false',
      REDIS_URL: proxy.via(process.env.REDIS_URL as string),
      REDIS_COMMAND_TIMEOUT_MS: '50',
      // Only the degraded TTL can make B drop the key within this test.
      KEY_CACHE_TTL_MS: '600000',
      KEY_CACHE_DEGRADED_TTL_MS: '300',
    };
    const [a, b] = await Promise.all([scratch.serve(serverEnv, 'A'), scratch.serve(serverEnv, 'B')]);
    const created = await call(a.address, 'POST', '/api/v1/api-keys', admin, { kind: 'WORKSPACE', name: 'doomed', scopes: ['admin'] });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const doomed = created.body.fullToken as string;
    assert.equal((await call(b.address, 'GET', '/api/v1/customers', doomed)).status, 200); // cached on B

    await proxy.cut();
    const revoked = await call(a.address, 'DELETE', `/api/v1/api-keys/${created.body.id}`, admin);
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    const deadline = Date.now() + 30_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await call(b.address, 'GET', '/api/v1/customers', doomed)).status;
      if (status === 401) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 401, 'the revoked key still works on node B');

    // Redis back: both nodes serve, limits shared again.
    await proxy.restore();
    assert.equal((await call(b.address, 'GET', '/api/v1/customers', admin)).status, 200);
  });
});
