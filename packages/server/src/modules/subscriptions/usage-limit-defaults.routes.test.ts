import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';
import { ok, rejects } from '../../../test/helpers/expect.js';
import { widgetDemo } from '../../../test/helpers/widget-demo.js';

/**
 * Usage limits defined in rate plans (spec part 8), through the real server: a plan's defaults,
 * a subscription's own limits overriding them per metric, plan changes, and the entitlement check
 * that enforces what applies. Entitlement answers are cached here as in production (the clock is
 * frozen, so a cached answer that nothing clears would be served for ever).
 */

let t: TestApp;
let ws: TenantHandle;
let api: Client;
let productId: string;

const iso = (ms: number) => new Date(ms).toISOString();
const APRIL = Date.UTC(2026, 3, 1);
const MAY = Date.UTC(2026, 4, 1);
const MID = Date.UTC(2026, 3, 16);

before(async () => {
  t = await createTestApp({ config: { entitlementCacheTtlMs: 250 } });
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
  for (const name of ['api_calls', 'tokens', 'seats']) await ok(api.post('/api/v1/metrics', { name }));
  productId = (await t.seed.product(ws.test)).id;
});
after(() => t.close());

type Limit = { metricName: string; limit: number | null; enforcement?: 'BLOCK' | 'ALERT' };
const block = (metricName: string, limit: number): Limit => ({ metricName, limit, enforcement: 'BLOCK' });
const alert = (metricName: string, limit: number): Limit => ({ metricName, limit, enforcement: 'ALERT' });

/** A rate plan pricing api_calls and tokens per unit, with these default limits. */
async function plan(usageLimits: Limit[]): Promise<string> {
  const units = ['api_calls', 'tokens'].map((metricName) => ({ metricName, pricingModel: 'PER_UNIT', rate: '0.001' }));
  return (await ok(api.post('/api/v1/rate-plans', { name: 'Calls', currency: 'USD', billingPeriod: 'MONTHLY', metrics: units, usageLimits }))).id;
}

/** A usage-only monthly offering of the product with one plan, published (so plan changes can reach it). */
async function offering(ratePlanId: string): Promise<string> {
  const o = await ok(api.post('/api/v1/offerings', { productId, name: 'Plan', currency: 'USD', billingPeriod: 'MONTHLY', ratePlanIds: [ratePlanId] }));
  const storefront = await ok(api.post('/api/v1/storefronts', { name: 'Plans', offeringIds: [o.id] }));
  await ok(api.post(`/api/v1/storefronts/${storefront.id}/publish`, {}));
  return o.id;
}

/** A new customer (on a test clock, when given one) subscribed to the offering. */
async function subscribe(offeringId: string, extra: Record<string, unknown> = {}, testClockId?: string) {
  const customer = await ok(api.post('/api/v1/customers', { name: 'Limited', ...(testClockId ? { testClockId } : {}) }));
  const sub = await ok(api.post('/api/v1/subscriptions', { customerId: customer.id, offeringId, ...extra }));
  return { customerId: customer.id as string, id: sub.id as string };
}

async function use(customerId: string, quantity: number, metricName = 'api_calls', at = t.clock.now()) {
  await ok(api.post('/v1/ingest', { customerId, metricName, quantity, occurredAt: iso(at) }));
}

const check = async (customerId: string) => ok(api.get(`/v1/entitlements/check?accessorId=${customerId}&productId=${productId}`));
const subscription = (id: string) => ok(api.get(`/api/v1/subscriptions/${id}`));
type Effective = { metricName: string; limit: number; enforcement: string; source: string; ratePlanId: string | null };
/** GET …/usage-limits: what applies, each limit without its object tag. */
async function effective(id: string): Promise<Effective[]> {
  const res = await ok(api.get(`/api/v1/subscriptions/${id}/usage-limits`));
  assert.deepEqual([res.object, res.hasMore], ['list', false]);
  return res.data.map(({ object, ...l }: Effective & { object: string }) => {
    assert.equal(object, 'usage_limit');
    return l;
  });
}
const change = (id: string, body: Record<string, unknown>) =>
  api.post(`/api/v1/subscriptions/${id}/upgrade`, body, { 'idempotency-key': `k-${Math.random()}` });

describe('POST /api/v1/rate-plans, PATCH /api/v1/rate-plans/{id}: usageLimits', () => {
  it('200 a plan carries default limits (none when left out); PATCH replaces them; a unit removed takes its limit with it', async () => {
    const bare = await ok(api.post('/api/v1/rate-plans', { name: 'Bare', currency: 'USD', billingPeriod: 'MONTHLY', metrics: [] }));
    assert.deepEqual(bare.usageLimits, []);
    const id = await plan([block('api_calls', 100), alert('tokens', 5000)]);
    assert.deepEqual((await ok(api.get(`/api/v1/rate-plans/${id}`))).usageLimits, [block('api_calls', 100), alert('tokens', 5000)]);
    const patched = await ok(api.patch(`/api/v1/rate-plans/${id}`, { usageLimits: [block('tokens', 10)] }));
    assert.deepEqual([patched.usageLimits, patched.version], [[block('tokens', 10)], 2]);
    const fewer = await ok(api.patch(`/api/v1/rate-plans/${id}`, { metrics: [{ metricName: 'api_calls', pricingModel: 'PER_UNIT', rate: '0.001' }] }));
    assert.deepEqual(fewer.usageLimits, [], 'the tokens limit went with the tokens unit');
    const events = await ok(api.get(`/v1/events?targetId=${id}&type=rate_plan.updated`));
    assert.deepEqual(
      events.data.map((e: { payload: { droppedUsageLimits?: string[] } }) => e.payload.droppedUsageLimits ?? null),
      [['tokens'], null],
    );
  });

  it('400 a limit on a unit the plan does not price, a second limit on one, more than 50, or a negative limit names the field', async () => {
    const body = (usageLimits: unknown) => ({
      name: 'Bad',
      currency: 'USD',
      billingPeriod: 'MONTHLY',
      metrics: [{ metricName: 'api_calls', pricingModel: 'PER_UNIT', rate: '0.001' }],
      usageLimits,
    });
    const notPriced = await rejects(api.post('/api/v1/rate-plans', body([block('api_calls', 1), block('seats', 1)])), 'body.usageLimits.1.metricName');
    assert.match(notPriced.message, /not a unit of this plan/);
    await rejects(api.post('/api/v1/rate-plans', body([block('api_calls', 1), alert('api_calls', 2)])), 'body.usageLimits.1.metricName');
    await rejects(api.post('/api/v1/rate-plans', body(Array.from({ length: 51 }, () => block('api_calls', 1)))), 'body.usageLimits');
    await rejects(api.post('/api/v1/rate-plans', body([block('api_calls', -1)])), 'body.usageLimits.0.limit');
    await rejects(api.post('/api/v1/rate-plans', body([{ metricName: 'api_calls', limit: null }])), 'body.usageLimits.0.limit');
    const id = await plan([]);
    await rejects(api.patch(`/api/v1/rate-plans/${id}`, { usageLimits: [block('seats', 1)] }), 'body.usageLimits.0.metricName');
    await rejects(
      api.patch(`/api/v1/rate-plans/${id}`, {
        metrics: [{ metricName: 'tokens', pricingModel: 'PER_UNIT', rate: '0.001' }],
        usageLimits: [block('api_calls', 1)],
      }),
      'body.usageLimits.0.metricName',
    );
  });
});

describe('GET /v1/entitlements/check: the rate plan’s defaults and the subscription’s own limits', () => {
  it('200 a rate plan’s default BLOCK limit refuses once used up, listed with source RATE_PLAN', async () => {
    const planId = await plan([block('api_calls', 100)]);
    const sub = await subscribe(await offering(planId));
    await use(sub.customerId, 60);
    let res = await check(sub.customerId);
    assert.deepEqual([res.allowed, res.quotaRemaining, res.reason], [true, 40, 'OK']);
    assert.deepEqual(res.limits, [{ metricName: 'api_calls', limit: 100, enforcement: 'BLOCK', used: 60, source: 'RATE_PLAN' }]);
    await use(sub.customerId, 40);
    res = await check(sub.customerId);
    assert.deepEqual([res.allowed, res.quotaRemaining, res.reason], [false, 0, 'QUOTA_EXHAUSTED']);
    const read = await subscription(sub.id);
    assert.deepEqual(read.usageLimits, [], 'none of its own');
    assert.deepEqual(await effective(sub.id), [{ metricName: 'api_calls', limit: 100, enforcement: 'BLOCK', source: 'RATE_PLAN', ratePlanId: planId }]);
  });

  it('200 the subscription’s own limit wins for its metric; limit null removes the default; [] goes back to it', async () => {
    const planId = await plan([block('api_calls', 100), alert('tokens', 1000)]);
    const sub = await subscribe(await offering(planId), { usageLimits: [block('api_calls', 500)] });
    await use(sub.customerId, 100);
    let res = await check(sub.customerId);
    assert.deepEqual([res.allowed, res.quotaRemaining], [true, 400]);
    assert.deepEqual(
      res.limits.map((l: { metricName: string; limit: number; source: string }) => [l.metricName, l.limit, l.source]),
      [
        ['api_calls', 500, 'SUBSCRIPTION'],
        ['tokens', 1000, 'RATE_PLAN'],
      ],
    );
    const read = await subscription(sub.id);
    assert.deepEqual(read.usageLimits, [block('api_calls', 500)]);
    assert.deepEqual(await effective(sub.id), [
      { metricName: 'api_calls', limit: 500, enforcement: 'BLOCK', source: 'SUBSCRIPTION', ratePlanId: null },
      { metricName: 'tokens', limit: 1000, enforcement: 'ALERT', source: 'RATE_PLAN', ratePlanId: planId },
    ]);

    const unlimited = await ok(api.patch(`/api/v1/subscriptions/${sub.id}`, { usageLimits: [{ metricName: 'api_calls', limit: null }] }));
    assert.deepEqual(unlimited.usageLimits, [{ metricName: 'api_calls', limit: null }]);
    assert.deepEqual(
      (await effective(sub.id)).map((l) => l.metricName),
      ['tokens'],
    );
    await use(sub.customerId, 900);
    res = await check(sub.customerId);
    assert.deepEqual([res.allowed, res.reason, res.limits.length], [true, 'OK', 1], 'no limit on api_calls at 1,000');

    await ok(api.patch(`/api/v1/subscriptions/${sub.id}`, { usageLimits: [] }));
    res = await check(sub.customerId);
    assert.deepEqual([res.allowed, res.reason, res.limits[0].source], [false, 'QUOTA_EXHAUSTED', 'RATE_PLAN'], 'the plan’s 100 again');
  });

  it('200 a change to a rate plan’s limits applies at every subscriber’s next check (the cached answers are cleared)', async () => {
    const planId = await plan([block('api_calls', 1000)]);
    const sub = await subscribe(await offering(planId));
    await use(sub.customerId, 300);
    assert.deepEqual([(await check(sub.customerId)).allowed, (await check(sub.customerId)).quotaRemaining], [true, 700]);
    await ok(api.patch(`/api/v1/rate-plans/${planId}`, { usageLimits: [block('api_calls', 300)] }));
    const res = await check(sub.customerId);
    assert.deepEqual([res.allowed, res.quotaRemaining, res.reason], [false, 0, 'QUOTA_EXHAUSTED'], 'mid-period: limits are not prices');
    assert.equal((await effective(sub.id))[0]!.limit, 300);
    await ok(api.patch(`/api/v1/rate-plans/${planId}`, { usageLimits: [] }));
    assert.deepEqual([(await check(sub.customerId)).allowed, (await check(sub.customerId)).quotaUnlimited], [true, true]);
  });
});

describe('GET /api/v1/subscriptions/{id}/usage-limits', () => {
  it('404 for an unknown subscription or another tenant’s; 403 without the admin scope', async () => {
    const sub = await subscribe(await offering(await plan([block('api_calls', 1)])));
    assert.equal((await api.get('/api/v1/subscriptions/sub_nope/usage-limits')).status, 404);
    const other = await t.seed.workspace('Other');
    assert.equal((await t.seed.client(other.test.secretKey).get(`/api/v1/subscriptions/${sub.id}/usage-limits`)).status, 404);
    assert.equal((await t.seed.client(ws.live.secretKey).get(`/api/v1/subscriptions/${sub.id}/usage-limits`)).status, 404, 'another environment');
    const ingestOnly = await t.seed.workspaceKey(ws.test, ['ingest']);
    assert.equal((await t.seed.client(ingestOnly.token).get(`/api/v1/subscriptions/${sub.id}/usage-limits`)).status, 403);
  });
});

describe('PATCH /api/v1/subscriptions/{id}: usageLimits entries', () => {
  it('400 a limit without its enforcement, or a null limit with one, names the field', async () => {
    const sub = await subscribe(await offering(await plan([])));
    const missing = await rejects(
      api.patch(`/api/v1/subscriptions/${sub.id}`, { usageLimits: [{ metricName: 'api_calls', limit: 10 }] }),
      'body.usageLimits.0.enforcement',
    );
    assert.match(missing.message, /BLOCK or ALERT/);
    await rejects(
      api.patch(`/api/v1/subscriptions/${sub.id}`, { usageLimits: [block('tokens', 1), { metricName: 'api_calls', limit: null, enforcement: 'BLOCK' }] }),
      'body.usageLimits.1.enforcement',
    );
    await rejects(
      api.patch(`/api/v1/subscriptions/${sub.id}`, { usageLimits: [{ metricName: 'api_calls', limit: null }, block('api_calls', 1)] }),
      'body.usageLimits.1.metricName',
    );
    assert.deepEqual((await subscription(sub.id)).version, 1, 'nothing changed');
  });
});

describe('POST /api/v1/subscriptions/{id}/upgrade: limits follow the new offering', () => {
  it('IMMEDIATE: the new plan’s defaults apply at once and the subscription’s own limits are dropped, unless the change sends some', async () => {
    const small = await offering(await plan([block('api_calls', 100)]));
    const large = await offering(await plan([block('api_calls', 10_000), alert('tokens', 50)]));
    const sub = await subscribe(small, { usageLimits: [block('tokens', 5)] });
    await use(sub.customerId, 100);
    assert.equal((await check(sub.customerId)).allowed, false);

    const done = await change(sub.id, { offeringId: large });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual(done.body.subscription.usageLimits, [], 'its own tokens limit is gone');
    const res = await check(sub.customerId);
    assert.equal(res.allowed, true);
    assert.deepEqual(
      res.limits.map((l: { metricName: string; limit: number; source: string }) => [l.metricName, l.limit, l.source]),
      [
        ['api_calls', 10_000, 'RATE_PLAN'],
        ['tokens', 50, 'RATE_PLAN'],
      ],
    );

    t.clock.advance(60_000); // a second change at the same instant would be refused (409)
    const back = await change(sub.id, { offeringId: small, usageLimits: [{ metricName: 'api_calls', limit: null }, block('tokens', 7)] });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    const read = await subscription(sub.id);
    assert.deepEqual(read.usageLimits, [{ metricName: 'api_calls', limit: null }, block('tokens', 7)]);
    assert.deepEqual(
      (await effective(sub.id)).map((l) => [l.metricName, l.limit, l.source]),
      [['tokens', 7, 'SUBSCRIPTION']],
      'the small plan’s api_calls default removed by the change’s own entry',
    );
  });

  it('PERIOD_END: the old limits hold until the renewal, which brings the new plan’s defaults and the limits the change sent', async () => {
    const small = await offering(await plan([block('api_calls', 100)]));
    const largePlan = await plan([block('api_calls', 10_000)]);
    const large = await offering(largePlan);
    const clock = await ok(api.post('/api/v1/test_clocks', { frozenTime: iso(APRIL) }));
    const sub = await subscribe(small, { usageLimits: [block('api_calls', 200)] }, clock.id);
    await ok(api.post(`/api/v1/test_clocks/${clock.id}/advance`, { frozenTime: iso(MID) }));
    await use(sub.customerId, 200, 'api_calls', MID);

    const done = await change(sub.id, { offeringId: large, applyAt: 'PERIOD_END', usageLimits: [alert('tokens', 9)] });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual(done.body.subscription.scheduledChange.usageLimits, [alert('tokens', 9)]);
    assert.deepEqual(done.body.subscription.usageLimits, [block('api_calls', 200)], 'until the period end');
    assert.equal((await check(sub.customerId)).reason, 'QUOTA_EXHAUSTED', 'its own 200 still applies');

    await ok(api.post(`/api/v1/test_clocks/${clock.id}/advance`, { frozenTime: iso(MAY + 3_600_000) }));
    const read = await subscription(sub.id);
    assert.deepEqual([read.offeringId, read.scheduledChange, read.usageLimits], [large, null, [alert('tokens', 9)]]);
    assert.deepEqual(await effective(sub.id), [
      { metricName: 'tokens', limit: 9, enforcement: 'ALERT', source: 'SUBSCRIPTION', ratePlanId: null },
      { metricName: 'api_calls', limit: 10_000, enforcement: 'BLOCK', source: 'RATE_PLAN', ratePlanId: largePlan },
    ]);
    const res = await check(sub.customerId);
    assert.deepEqual([res.allowed, res.quotaRemaining], [true, 9], 'a new period, on the new plan');
  });

  it('400 the change’s usageLimits name the field; the widget’s change takes none (a buyer never sets limits)', async () => {
    const from = await offering(await plan([]));
    const to = await offering(await plan([]));
    const sub = await subscribe(from);
    await rejects(change(sub.id, { offeringId: to, usageLimits: [block('no_such_metric', 1)] }), 'body.usageLimits.0.metricName');
    await rejects(change(sub.id, { offeringId: to, usageLimits: [{ metricName: 'api_calls', limit: 5 }] }), 'body.usageLimits.0.enforcement');
    assert.equal((await subscription(sub.id)).offeringId, from, 'not changed');

    const demo = await widgetDemo(t, t.clock.now(), ['https://shop.example.com']);
    const res = await demo.widget.post(
      '/v1/widget/upgrade',
      { offeringId: demo.offerings.get('Agents'), usageLimits: [{ metricName: 'api_calls', limit: null }] },
      { origin: 'https://shop.example.com', 'idempotency-key': 'widget-limits' },
    );
    assert.equal(res.status, 400, JSON.stringify(res.body));
  });
});
