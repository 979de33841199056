/**
 * Spec, widget data: per-customer usage limits "BLOCK (reject when over quota) or ALERT (allow,
 * notify operator) ... enforced at a gateway or by the metering SDK". The guard against the real
 * server's entitlement check; what it does when Tollgate is unreachable (failOpen).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EntitlementDenied, Tollgate, TollgateError, UsageLimitExceeded, type UsageAlert } from '../src/index.js';
import { startRealServer, type RealServer } from './helpers/real-server.js';
import { FaultProxy } from './helpers/fault-proxy.js';

let server: RealServer;
let proxy: FaultProxy;
before(async () => {
  server = await startRealServer();
  proxy = await FaultProxy.start(server.baseUrl);
});
after(async () => {
  await proxy.close();
  await server.close();
});

function client(extra: Partial<ConstructorParameters<typeof Tollgate>[0]> = {}) {
  return new Tollgate({ apiKey: server.key, baseUrl: server.baseUrl, now: server.now, flushOnExit: false, sleep: async () => undefined, ...extra });
}

async function use(tg: Tollgate, customerId: string, quantity: number, metricName = 'api_calls') {
  tg.track({ customerId, metricName, quantity });
  const r = await tg.flush();
  assert.equal(r.failed.length, 0);
}

describe('usage-limit guard: BLOCK refuses, ALERT allows and reports', () => {
  it('BLOCK: allowed under the limit; once used up, guard() throws UsageLimitExceeded with the metric, the limit and the used quantity', async () => {
    const tg = client({ entitlementCacheTtlMs: 0 });
    const s = await server.subscribed([{ metricName: 'api_calls', limit: 10, enforcement: 'BLOCK' }]);
    await use(tg, s.customerId, 9);
    const ok = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'api_calls' });
    assert.equal(ok.allowed, true);
    assert.equal(ok.check?.quotaRemaining, 1);
    await use(tg, s.customerId, 1);
    const err = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'api_calls' }).catch((e: unknown) => e);
    assert.ok(err instanceof UsageLimitExceeded);
    assert.ok(err instanceof EntitlementDenied);
    assert.deepEqual([err.metricName, err.limit, err.used, err.reason], ['api_calls', 10, 10, 'QUOTA_EXHAUSTED']);
    // The server agrees: its answer is allowed=false.
    assert.equal((await tg.check(s.customerId, s.productId)).allowed, false);
  });

  it('BLOCK: a use whose quantity would pass the limit is refused before it happens', async () => {
    const tg = client({ entitlementCacheTtlMs: 0 });
    const s = await server.subscribed([{ metricName: 'tokens', limit: 1_000, enforcement: 'BLOCK' }]);
    await use(tg, s.customerId, 900, 'tokens');
    await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'tokens', quantity: 100 });
    const err = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'tokens', quantity: 101 }).catch((e: unknown) => e);
    assert.ok(err instanceof UsageLimitExceeded);
    assert.deepEqual([err.limit, err.used], [1_000, 900]);
  });

  it('ALERT: past the limit the use is allowed and onAlert is called with the metric, limit and used quantity', async () => {
    const alerts: UsageAlert[] = [];
    const tg = client({ entitlementCacheTtlMs: 0, onAlert: (a) => alerts.push(a) });
    const s = await server.subscribed([{ metricName: 'api_calls', limit: 5, enforcement: 'ALERT' }]);
    await use(tg, s.customerId, 4);
    const under = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'api_calls' });
    assert.deepEqual([under.allowed, under.alerts, alerts], [true, [], []]);
    await use(tg, s.customerId, 3);
    const over = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'api_calls' });
    assert.equal(over.allowed, true);
    const expected = { customerId: s.customerId, productId: s.productId, metricName: 'api_calls', limit: 5, used: 7 };
    assert.deepEqual(over.alerts, [expected]);
    assert.deepEqual(alerts, [expected]);
  });

  it('no active subscription: EntitlementDenied with the server’s reason (not a usage limit)', async () => {
    const tg = client();
    const s = await server.subscribed();
    const other = await server.subscribed();
    const err = await tg.guard({ customerId: s.customerId, productId: other.productId }).catch((e: unknown) => e);
    assert.ok(err instanceof EntitlementDenied);
    assert.ok(!(err instanceof UsageLimitExceeded));
    assert.equal(err.reason, 'NO_ACTIVE_SUBSCRIPTION');
  });

  it('check() is GET /v1/entitlements/check?accessorId&productId, reused for entitlementCacheTtlMs by the injected clock', async () => {
    let now = server.now();
    const tg = new Tollgate({ apiKey: server.key, baseUrl: proxy.baseUrl, now: () => now, flushOnExit: false, entitlementCacheTtlMs: 1_000 });
    const s = await server.subscribed();
    proxy.seen.length = 0;
    const [a, b] = await Promise.all([tg.check(s.customerId, s.productId), tg.check(s.customerId, s.productId)]);
    assert.deepEqual(a, b);
    now += 999;
    await tg.check(s.customerId, s.productId);
    assert.equal(proxy.seen.length, 1, 'one request for two concurrent asks and a repeat within the TTL');
    assert.equal(proxy.seen[0]!.url, `/v1/entitlements/check?accessorId=${s.customerId}&productId=${s.productId}`);
    now += 1;
    await tg.check(s.customerId, s.productId);
    assert.equal(proxy.seen.length, 2, 'asked again once the TTL has passed');
  });
});

describe('guard when Tollgate is unreachable: failOpen decides (default: open)', () => {
  const nowhere = 'http://127.0.0.1:9'; // the discard port: nothing listens, the connection is refused

  it('failOpen by default: the use is allowed, with check null, and onUnreachable hears why', async () => {
    const heard: TollgateError[] = [];
    const tg = new Tollgate({ apiKey: server.key, baseUrl: nowhere, flushOnExit: false, onUnreachable: (e) => heard.push(e) });
    const result = await tg.guard({ customerId: 'acme', productId: 'prod_x' });
    assert.deepEqual(result, { allowed: true, check: null, alerts: [] });
    assert.equal(heard.length, 1);
    assert.equal(heard[0]!.status, 0);
  });

  it('failOpen: false: guard() throws the TollgateError (status 0)', async () => {
    const tg = new Tollgate({ apiKey: server.key, baseUrl: nowhere, flushOnExit: false, failOpen: false });
    const err = await tg.guard({ customerId: 'acme', productId: 'prod_x' }).catch((e: unknown) => e);
    assert.ok(err instanceof TollgateError);
    assert.equal(err.unreachable, true);
  });

  it('a 503 past the retries counts as unreachable; a 4xx (unknown customer) always throws, open or not', async () => {
    const tg = new Tollgate({ apiKey: server.key, baseUrl: proxy.baseUrl, flushOnExit: false, sleep: async () => undefined });
    const s = await server.subscribed();
    const down = { kind: 'answer' as const, status: 503, body: '{}' };
    proxy.plan(down, down, down, down);
    assert.equal((await tg.guard({ customerId: s.customerId, productId: s.productId })).check, null);
    const err = await tg.guard({ customerId: 'cus_nobody', productId: s.productId }).catch((e: unknown) => e);
    assert.equal((err as TollgateError).status, 404);
  });
});
