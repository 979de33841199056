/**
 * Spec, widget data: per-customer usage limits "BLOCK (reject when over quota) or ALERT (allow,
 * notify operator) ... enforced at a gateway or by the metering SDK". The guard against the real
 * server's entitlement check; what it does when Tollgate is unreachable (failOpen).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CreditsExhausted, EntitlementDenied, Tollgate, TollgateError, UsageLimitExceeded, type UsageAlert } from '../src/index.js';
import { serverBehindProxy } from './helpers/fault-proxy.js';

const env = serverBehindProxy();

function client(extra: Partial<ConstructorParameters<typeof Tollgate>[0]> = {}) {
  return new Tollgate({ apiKey: env.server.key, baseUrl: env.server.baseUrl, now: env.server.now, flushOnExit: false, sleep: async () => undefined, ...extra });
}

async function use(tg: Tollgate, customerId: string, quantity: number, metricName = 'api_calls') {
  tg.track({ customerId, metricName, quantity });
  const r = await tg.flush();
  assert.equal(r.failed.length, 0);
}

describe('usage-limit guard: BLOCK refuses, ALERT allows and reports', () => {
  it('BLOCK: allowed under the limit; once used up, guard() throws UsageLimitExceeded with the metric, the limit and the used quantity', async () => {
    const tg = client({ entitlementCacheTtlMs: 0 });
    const s = await env.server.subscribed([{ metricName: 'api_calls', limit: 10, enforcement: 'BLOCK' }]);
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
    const s = await env.server.subscribed([{ metricName: 'tokens', limit: 1_000, enforcement: 'BLOCK' }]);
    await use(tg, s.customerId, 900, 'tokens');
    await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'tokens', quantity: 100 });
    const err = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'tokens', quantity: 101 }).catch((e: unknown) => e);
    assert.ok(err instanceof UsageLimitExceeded);
    assert.deepEqual([err.limit, err.used], [1_000, 900]);
  });

  it('ALERT: past the limit the use is allowed and onAlert is called with the metric, limit and used quantity', async () => {
    const alerts: UsageAlert[] = [];
    const tg = client({ entitlementCacheTtlMs: 0, onAlert: (a) => alerts.push(a) });
    const s = await env.server.subscribed([{ metricName: 'api_calls', limit: 5, enforcement: 'ALERT' }]);
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
    const s = await env.server.subscribed();
    const other = await env.server.subscribed();
    const err = await tg.guard({ customerId: s.customerId, productId: other.productId }).catch((e: unknown) => e);
    assert.ok(err instanceof EntitlementDenied);
    assert.ok(!(err instanceof UsageLimitExceeded));
    assert.equal(err.reason, 'NO_ACTIVE_SUBSCRIPTION');
  });

  it('check() is GET /v1/entitlements/check?accessorId&productId, reused for entitlementCacheTtlMs by the injected clock', async () => {
    let now = env.server.now();
    const tg = new Tollgate({ apiKey: env.server.key, baseUrl: env.proxy.baseUrl, now: () => now, flushOnExit: false, entitlementCacheTtlMs: 1_000 });
    const s = await env.server.subscribed();
    env.proxy.seen.length = 0;
    const [a, b] = await Promise.all([tg.check(s.customerId, s.productId), tg.check(s.customerId, s.productId)]);
    assert.deepEqual(a, b);
    now += 999;
    await tg.check(s.customerId, s.productId);
    assert.equal(env.proxy.seen.length, 1, 'one request for two concurrent asks and a repeat within the TTL');
    assert.equal(env.proxy.seen[0]!.url, `/v1/entitlements/check?accessorId=${s.customerId}&productId=${s.productId}`);
    now += 1;
    await tg.check(s.customerId, s.productId);
    assert.equal(env.proxy.seen.length, 2, 'asked again once the TTL has passed');
  });
});

describe('guard({ metricName }) is scoped to that metric’s limits', () => {
  const limits = [
    { metricName: 'api_calls', limit: 5, enforcement: 'BLOCK' as const },
    { metricName: 'tokens', limit: 5, enforcement: 'BLOCK' as const },
  ];

  async function setBudget(subscriptionId: string, spendBudget: { amount: string; enforcement: 'BLOCK' | 'ALERT' }) {
    const res = await env.server.t.seed.client(env.server.key).patch(`/api/v1/subscriptions/${subscriptionId}`, { spendBudget });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }

  it('allowed when only another metric’s BLOCK limit is used up; refused once its own is; without metricName any used-up limit refuses', async () => {
    const tg = client({ entitlementCacheTtlMs: 0 });
    const s = await env.server.subscribed(limits);
    await use(tg, s.customerId, 5, 'tokens');
    const ok = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'api_calls' });
    assert.equal(ok.allowed, true);
    assert.deepEqual([ok.check?.allowed, ok.check?.reason], [false, 'QUOTA_EXHAUSTED'], 'the server’s answer covers every metric');
    const own = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'tokens' }).catch((e: unknown) => e);
    assert.ok(own instanceof UsageLimitExceeded);
    assert.equal(own.metricName, 'tokens');
    const unnamed = await tg.guard({ customerId: s.customerId, productId: s.productId }).catch((e: unknown) => e);
    assert.ok(unnamed instanceof UsageLimitExceeded);
    assert.equal(unnamed.metricName, 'tokens');

    await use(tg, s.customerId, 5, 'api_calls');
    const refused = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'api_calls' }).catch((e: unknown) => e);
    assert.ok(refused instanceof UsageLimitExceeded);
    assert.deepEqual([refused.metricName, refused.limit, refused.used], ['api_calls', 5, 5]);
  });

  it('another metric’s ALERT limit is not reported under a named metric', async () => {
    const alerts: UsageAlert[] = [];
    const tg = client({ entitlementCacheTtlMs: 0, onAlert: (a) => alerts.push(a) });
    const s = await env.server.subscribed([{ metricName: 'tokens', limit: 1, enforcement: 'ALERT' }]);
    await use(tg, s.customerId, 3, 'tokens');
    const result = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'api_calls' });
    assert.deepEqual([result.alerts, alerts], [[], []]);
  });

  it('a spent BLOCK budget refuses every metric: EntitlementDenied BUDGET_EXHAUSTED, also while another metric’s limit is used up', async () => {
    const tg = client({ entitlementCacheTtlMs: 0 });
    const s = await env.server.subscribed(limits);
    // A budget of 0 is spent from the start.
    await setBudget(s.subscriptionId, { amount: '0', enforcement: 'BLOCK' });
    const spent = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'api_calls' }).catch((e: unknown) => e);
    assert.ok(spent instanceof EntitlementDenied && !(spent instanceof UsageLimitExceeded));
    assert.equal(spent.reason, 'BUDGET_EXHAUSTED');
    // Now the server's one reason is QUOTA_EXHAUSTED (tokens): the budget still refuses api_calls.
    await use(tg, s.customerId, 5, 'tokens');
    const both = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'api_calls' }).catch((e: unknown) => e);
    assert.ok(both instanceof EntitlementDenied && !(both instanceof UsageLimitExceeded));
    assert.equal(both.reason, 'BUDGET_EXHAUSTED');
  });

  it('a spent ALERT budget allows, unless another metric’s BLOCK limit is used up: the answer then hides the budget’s enforcement, and the guard refuses', async () => {
    const tg = client({ entitlementCacheTtlMs: 0 });
    const s = await env.server.subscribed(limits);
    await setBudget(s.subscriptionId, { amount: '0', enforcement: 'ALERT' });
    assert.equal((await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'api_calls' })).allowed, true);
    await use(tg, s.customerId, 5, 'tokens');
    const err = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'api_calls' }).catch((e: unknown) => e);
    assert.ok(err instanceof EntitlementDenied);
    assert.equal(err.reason, 'BUDGET_EXHAUSTED');
  });
});

describe('prepaid credits: guard() honours CREDITS_EXHAUSTED', () => {
  const grant = async (customerId: string, amount: string) => {
    const res = await env.server.t.seed.client(env.server.key).post('/api/v1/credit_grants', { customerId, amount, currency: 'USD' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };

  it('overage BLOCK: CreditsExhausted (an EntitlementDenied) while no credit is left; allowed after a grant, refused again once usage spends it', async () => {
    const tg = client({ entitlementCacheTtlMs: 0 });
    const s = await env.server.prepaid('BLOCK');
    const empty = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'api_calls' }).catch((e: unknown) => e);
    assert.ok(empty instanceof CreditsExhausted && empty instanceof EntitlementDenied);
    assert.equal(empty.reason, 'CREDITS_EXHAUSTED');
    await grant(s.customerId, '0.05');
    const allowed = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'api_calls' });
    assert.deepEqual([allowed.allowed, allowed.check?.creditsRemaining], [true, '0.05']);
    // Five calls at 0.01 spend it.
    await use(tg, s.customerId, 5);
    const spent = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'api_calls' }).catch((e: unknown) => e);
    assert.ok(spent instanceof CreditsExhausted);
  });

  it('overage BILL: allowed with no credit left (the usage is billed)', async () => {
    const tg = client({ entitlementCacheTtlMs: 0 });
    const s = await env.server.prepaid('BILL');
    const result = await tg.guard({ customerId: s.customerId, productId: s.productId, metricName: 'api_calls' });
    assert.deepEqual([result.allowed, result.check?.creditsRemaining], [true, '0.00']);
  });
});

describe('guard when Tollgate is unreachable: failOpen decides (default: open)', () => {
  const nowhere = 'http://127.0.0.1:9'; // the discard port: nothing listens, the connection is refused

  it('failOpen by default: the use is allowed, with check null, and onUnreachable hears why', async () => {
    const heard: TollgateError[] = [];
    const tg = new Tollgate({ apiKey: env.server.key, baseUrl: nowhere, flushOnExit: false, onUnreachable: (e) => heard.push(e) });
    const result = await tg.guard({ customerId: 'acme', productId: 'prod_x' });
    assert.deepEqual(result, { allowed: true, check: null, alerts: [] });
    assert.equal(heard.length, 1);
    assert.equal(heard[0]!.status, 0);
  });

  it('failOpen: false: guard() throws the TollgateError (status 0)', async () => {
    const tg = new Tollgate({ apiKey: env.server.key, baseUrl: nowhere, flushOnExit: false, failOpen: false });
    const err = await tg.guard({ customerId: 'acme', productId: 'prod_x' }).catch((e: unknown) => e);
    assert.ok(err instanceof TollgateError);
    assert.equal(err.unreachable, true);
  });

  it('a 503 past the retries counts as unreachable; a 4xx (unknown customer) always throws, open or not', async () => {
    const clock = fakeClock();
    const tg = new Tollgate({ apiKey: env.server.key, baseUrl: env.proxy.baseUrl, flushOnExit: false, ...clock, guardTimeoutMs: 60_000 });
    const s = await env.server.subscribed();
    const down = { kind: 'answer' as const, status: 503, body: '{}' };
    env.proxy.plan(down, down, down, down);
    assert.equal((await tg.guard({ customerId: s.customerId, productId: s.productId })).check, null);
    assert.deepEqual(clock.waits, [5_000, 5_000, 5_000], 'within a long budget: the spec’s three retries');
    const err = await tg.guard({ customerId: 'cus_nobody', productId: s.productId }).catch((e: unknown) => e);
    assert.equal((err as TollgateError).status, 404);
  });
});

/** A clock that the injected sleep moves forward: what a real wait does, without waiting. */
function fakeClock(start = Date.UTC(2026, 5, 15, 12)) {
  let at = start;
  const waits: number[] = [];
  return {
    waits,
    now: () => at,
    sleep: async (ms: number) => {
      waits.push(ms);
      at += ms;
    },
  };
}

describe('guard() asks within guardTimeoutMs (default 2 s): it sits on the caller’s request path', () => {
  const limited = (retryAfter: string) => ({
    kind: 'answer' as const,
    status: 429,
    headers: { 'retry-after': retryAfter },
    body: '{"message":"Too Many Requests"}',
  });

  it('a Retry-After that ends past the budget is not waited for: unreachable at once, and failOpen lets the use through', async () => {
    const clock = fakeClock();
    const heard: TollgateError[] = [];
    const tg = new Tollgate({ apiKey: env.server.key, baseUrl: env.proxy.baseUrl, flushOnExit: false, ...clock, onUnreachable: (e) => heard.push(e) });
    const s = await env.server.subscribed();
    env.proxy.plan(limited('60'));
    const result = await tg.guard({ customerId: s.customerId, productId: s.productId });
    assert.deepEqual(result, { allowed: true, check: null, alerts: [] });
    assert.deepEqual(clock.waits, [], 'no 60 s wait on the request path');
    assert.equal(heard[0]?.status, 429);
  });

  it('a Retry-After within the budget is waited for, then the real answer decides; the spec’s rule (never before Retry-After) holds', async () => {
    const clock = fakeClock();
    const tg = new Tollgate({ apiKey: env.server.key, baseUrl: env.proxy.baseUrl, flushOnExit: false, ...clock, entitlementCacheTtlMs: 0 });
    const s = await env.server.subscribed();
    env.proxy.seen.length = 0;
    env.proxy.plan(limited('1'));
    const result = await tg.guard({ customerId: s.customerId, productId: s.productId });
    assert.equal(result.check?.allowed, true);
    assert.deepEqual(clock.waits, [1_000]);
    // Two: after 1 s, a second 1 s would end at the budget's edge (2 s), so the guard gives up there.
    env.proxy.plan(limited('1'), limited('1'));
    assert.equal((await tg.guard({ customerId: s.customerId, productId: s.productId })).check, null);
    assert.deepEqual(clock.waits, [1_000, 1_000]);
    assert.equal(env.proxy.seen.filter((r) => r.url.startsWith('/v1/entitlements/check')).length, 4, 'two asks of two attempts each; nothing left planned');
  });

  it('failOpen: false with the budget spent: guard() throws the 429 as TollgateError', async () => {
    const clock = fakeClock();
    const tg = new Tollgate({ apiKey: env.server.key, baseUrl: env.proxy.baseUrl, flushOnExit: false, ...clock, failOpen: false, guardTimeoutMs: 500 });
    const s = await env.server.subscribed();
    env.proxy.plan(limited('1'));
    const err = await tg.guard({ customerId: s.customerId, productId: s.productId }).catch((e: unknown) => e);
    assert.ok(err instanceof TollgateError);
    assert.equal(err.status, 429);
    assert.deepEqual(clock.waits, []);
  });

  it('check() keeps the spec’s full guidance: the same 60 s Retry-After is waited for', async () => {
    const clock = fakeClock();
    const tg = new Tollgate({ apiKey: env.server.key, baseUrl: env.proxy.baseUrl, flushOnExit: false, ...clock });
    const s = await env.server.subscribed();
    env.proxy.plan(limited('60'));
    assert.equal((await tg.check(s.customerId, s.productId)).allowed, true);
    assert.deepEqual(clock.waits, [60_000]);
  });

  it('guardTimeoutMs must be a positive integer', () => {
    assert.throws(() => new Tollgate({ apiKey: env.server.key, baseUrl: env.proxy.baseUrl, guardTimeoutMs: 0 }), /guardTimeoutMs must be an integer from 1/);
  });
});
