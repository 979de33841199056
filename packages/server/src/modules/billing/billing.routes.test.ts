import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client } from '../../../test/helpers/seed.js';
import { createDemoWorkspace, type DemoEnvironment } from '../../demo/create-demo-workspace.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

async function demo(): Promise<{ env: DemoEnvironment; api: Client }> {
  const d = await createDemoWorkspace(t.deps, { actor: { type: 'OPERATOR', id: 'test' }, source: 'cli', correlationId: 'test' });
  return { env: d.environments.test, api: t.seed.client(d.environments.test.secretKey) };
}

async function ingest(api: Client, events: Array<{ customerId: string; metricName: string; quantity: number; metadata?: Record<string, string> }>) {
  const occurredAt = new Date(t.clock.now()).toISOString();
  const res = await api.post('/v1/ingest/batch', { events: events.map((e) => ({ ...e, occurredAt })) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

type Line = { type: string; metricName: string | null; quantity: string | null; freeUnits: string | null; billableQuantity: string | null; amount: string };
const brief = (lines: Line[]) => lines.map((l) => [l.type, l.metricName, l.quantity, l.freeUnits, l.billableQuantity, l.amount]);

describe('GET /api/v1/subscriptions/:id/upcoming-invoice', () => {
  it('200 the demo customer on Pro: amounts agree with the hand calculation', async () => {
    const { env, api } = await demo();
    await ingest(api, [
      { customerId: 'acme', metricName: 'api_calls', quantity: 123_456 },
      { customerId: 'acme', metricName: 'tokens', quantity: 1_000_000 },
      { customerId: 'acme', metricName: 'tokens', quantity: 1_500_000 },
      { customerId: 'acme', metricName: 'seats', quantity: 7 },
    ]);
    const res = await api.get(`/api/v1/subscriptions/${env.subscriptionId}/upcoming-invoice`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const inv = res.body;
    // By hand, Pro (USD, MONTHLY):
    //   entry price                                               49.00
    //   api_calls INCLUDED_QUOTA: 123,456 - 100,000 free = 23,456 over
    //     -> ceil(23,456 / 1,000) = 24 blocks x 1.50            36.00
    //   tokens VOLUME_TIERED: 2,500,000 lands in (1M, 10M]
    //     -> all 2,500,000 x 0.00001                           25.00
    //   seats STAIRCASE: 7 lands in (5, 20] -> flat fee          40.00
    //   total                                                   150.00
    assert.equal(inv.object, 'upcoming_invoice');
    assert.equal(inv.currency, 'USD');
    assert.equal(inv.offeringId, env.offeringId);
    assert.deepEqual(brief(inv.lines), [
      ['entry_price', null, null, null, null, '49.00'],
      ['usage', 'api_calls', '123456', '100000', '23456', '36.00'],
      ['usage', 'tokens', '2500000', '0', '2500000', '25.00'],
      ['usage', 'seats', '7', '0', '7', '40.00'],
    ]);
    assert.equal(inv.entryPrice, '49.00');
    assert.equal(inv.usageAmount, '101.00');
    assert.equal(inv.minimumFees, '0.00');
    assert.equal(inv.subtotal, '150.00');
    assert.equal(inv.total, '150.00');
    assert.equal(inv.periodStart, new Date(t.clock.now()).toISOString());
  });

  it("200 Agents in its trial: the first paid period's entry price in advance, outcome weights, a tool multiplier, a minimum fee, a percentage and a flat rate", async () => {
    const { env, api } = await demo();
    const offerings = await api.get('/api/v1/offerings?limit=100');
    const agents = offerings.body.data.find((o: { name: string }) => o.name === 'Agents');
    const customer = await api.post('/api/v1/customers', { name: 'Beta Labs', externalId: 'beta' });
    const sub = await api.post('/api/v1/subscriptions', { customerId: customer.body.id, offeringId: agents.id });
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    assert.equal(sub.body.productId, env.productId);
    assert.equal(sub.body.trialEndsAt, new Date(t.clock.now() + 14 * 86_400_000).toISOString());
    const run = (executionStatus: string, quantity: number, tool?: string) => ({
      customerId: 'beta',
      metricName: 'agent_runs',
      quantity,
      metadata: tool ? { executionStatus, tool } : ({ executionStatus } as Record<string, string>),
    });
    await ingest(api, [
      run('SUCCESS', 150),
      run('PARTIAL', 40),
      run('ERROR', 30),
      run('SUCCESS', 10, 'web_search'),
      { customerId: 'beta', metricName: 'payment_volume', quantity: 1234.56 },
    ]);
    const inv = (await api.get(`/api/v1/subscriptions/${sub.body.id}/upcoming-invoice`)).body;
    // By hand, Agents (USD, MONTHLY, 14-day trial). The trial is the first period; the invoice at
    // its end bills the first paid month's entry price in advance, and the trial's usage:
    //   entry price of the month after the trial                199.00
    //   agent_runs OUTCOME_BASED at 0.05, 100 free:
    //     units after multipliers: 150 + 40 + 30 + 10 x 2 = 240
    //     outcome-weighted: 150 x 1 + 40 x 0.5 + 30 x 0 + 20 x 1 = 190
    //     190 - 100 free = 90 x 0.05                                4.50
    //     minimum fee 10.00: top-up 10.00 - 4.50                    5.50
    //   payment_volume PERCENTAGE 2.9% of 1,234.56 = 35.80224     35.80
    //   priority_support FLAT_RATE                                25.00
    //   total                                                    269.80
    assert.deepEqual(brief(inv.lines), [
      ['entry_price', null, null, null, null, '199.00'],
      ['usage', 'agent_runs', '240', '100', '90', '4.50'],
      ['minimum_fee', 'agent_runs', null, null, null, '5.50'],
      ['usage', 'payment_volume', '1234.56', '0', '1234.56', '35.80'],
      ['usage', 'priority_support', '0', '0', '0', '25.00'],
    ]);
    assert.equal(inv.periodEnd, sub.body.trialEndsAt, 'the trial is the first period');
    assert.equal(inv.minimumFees, '5.50');
    assert.equal(inv.total, '269.80');
  });

  it("200 an offering override prices new subscriptions at once, and never re-prices a subscriber's current period", async () => {
    const { env, api } = await demo();
    const pro = (await api.get(`/api/v1/offerings/${env.offeringId}`)).body;
    const before = (await api.get(`/api/v1/subscriptions/${env.subscriptionId}`)).body;
    const patched = await api.patch(`/api/v1/offerings/${env.offeringId}`, {
      overrides: [{ ratePlanId: pro.ratePlanIds[0], metricName: 'api_calls', includedFree: 120000, rate: '2' }],
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const customer = await api.post('/api/v1/customers', { name: 'Late Co', externalId: 'late' });
    const later = await api.post('/api/v1/subscriptions', { customerId: customer.body.id, offeringId: env.offeringId });
    assert.notEqual(later.body.priceVersionId, before.priceVersionId, 'the edit made a new price version');
    await ingest(api, [
      { customerId: 'acme', metricName: 'api_calls', quantity: 123_456 },
      { customerId: 'late', metricName: 'api_calls', quantity: 123_456 },
    ]);
    const apiCalls = async (id: string) =>
      (await api.get(`/api/v1/subscriptions/${id}/upcoming-invoice`)).body.lines.find((l: Line) => l.metricName === 'api_calls');
    // The new subscriber: 123,456 - 120,000 = 3,456 over -> 4 blocks x 2 = 8.00
    const line = await apiCalls(later.body.id);
    assert.deepEqual([line.freeUnits, line.billableQuantity, line.rate, line.amount], ['120000', '3456', '2', '8.00']);
    // The demo customer keeps the prices its period started with (100,000 free at 1.5 a block).
    const old = await apiCalls(env.subscriptionId);
    assert.deepEqual([old.freeUnits, old.billableQuantity, old.rate, old.amount], ['100000', '23456', '1.5', '36.00']);
  });

  it('200 a subscription without an offering is rated from its unitPrices as PER_UNIT lines', async () => {
    const ws = await t.seed.workspace();
    const api = t.seed.client(ws.test.secretKey);
    await api.post('/api/v1/metrics', { name: 'calls' });
    const customer = await t.seed.customer(ws.test);
    const product = await t.seed.product(ws.test);
    const sub = await api.post('/api/v1/subscriptions', { customerId: customer.id, productId: product.id, currency: 'EUR', unitPrices: { calls: '0.0125' } });
    await ingest(api, [{ customerId: customer.id, metricName: 'calls', quantity: 333 }]);
    const inv = (await api.get(`/api/v1/subscriptions/${sub.body.id}/upcoming-invoice`)).body;
    // 333 x 0.0125 = 4.1625 -> 4.16 (half up at cents)
    assert.equal(inv.currency, 'EUR');
    assert.equal(inv.offeringId, null);
    assert.deepEqual(brief(inv.lines), [['usage', 'calls', '333', '0', '333', '4.16']]);
    assert.equal(inv.total, '4.16');
  });

  it('409 for a cancelled subscription', async () => {
    const { env, api } = await demo();
    assert.equal((await api.post(`/api/v1/subscriptions/${env.subscriptionId}/cancel`)).status, 200);
    const res = await api.get(`/api/v1/subscriptions/${env.subscriptionId}/upcoming-invoice`);
    assert.equal(res.status, 409);
    assert.equal(res.body.errors[0].code, 'SUBSCRIPTION_NOT_ACTIVE');
  });

  it("404 for an unknown id and for another workspace's subscription", async () => {
    const { env } = await demo();
    const stranger = await t.seed.workspace();
    const api = t.seed.client(stranger.test.secretKey);
    assert.equal((await api.get('/api/v1/subscriptions/sub_nope/upcoming-invoice')).status, 404);
    assert.equal((await api.get(`/api/v1/subscriptions/${env.subscriptionId}/upcoming-invoice`)).status, 404);
  });

  it('401 without a key, 403 with a key without the admin scope', async () => {
    const { env } = await demo();
    assert.equal((await t.seed.client(null).get(`/api/v1/subscriptions/${env.subscriptionId}/upcoming-invoice`)).status, 401);
    const ws = await t.seed.workspace();
    const ingestOnly = await t.seed.workspaceKey(ws.test, ['ingest']);
    assert.equal((await t.seed.client(ingestOnly.token).get(`/api/v1/subscriptions/sub_x/upcoming-invoice`)).status, 403);
  });
});

describe('GET /v1/entitlements/check with a catalog', () => {
  it('200 quotaRemaining is the offering’s free units left, and past them the check still allows (overage is billed)', async () => {
    const { env, api } = await demo();
    const check = async () => (await api.get(`/v1/entitlements/check?accessorId=acme&productId=${env.productId}`)).body;
    const fresh = await check();
    assert.equal(fresh.allowed, true);
    assert.equal(fresh.quotaRemaining, 100_000);
    await ingest(api, [{ customerId: 'acme', metricName: 'api_calls', quantity: 60_000 }]);
    assert.equal((await check()).quotaRemaining, 40_000);
    await ingest(api, [{ customerId: 'acme', metricName: 'api_calls', quantity: 50_000 }]);
    const past = await check();
    assert.equal(past.quotaRemaining, 0);
    assert.equal(past.allowed, true);
    assert.equal(past.reason, 'OK');
  });

  it('200 budgetRemaining counts the rated usage lines of the period, as the invoice will', async () => {
    const { env, api } = await demo();
    const set = await api.patch(`/api/v1/subscriptions/${env.subscriptionId}`, { spendBudget: { amount: '50', enforcement: 'BLOCK' } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    // 110,000 api calls: 10 blocks over -> 15.00; 7 seats -> 40.00; usage 55.00 > 50 budget.
    await ingest(api, [{ customerId: 'acme', metricName: 'api_calls', quantity: 110_000 }]);
    const mid = (await api.get(`/v1/entitlements/check?accessorId=acme&productId=${env.productId}`)).body;
    assert.equal(mid.budgetRemainingAmount, '35');
    assert.equal(mid.allowed, true);
    await ingest(api, [{ customerId: 'acme', metricName: 'seats', quantity: 7 }]);
    const over = (await api.get(`/v1/entitlements/check?accessorId=acme&productId=${env.productId}`)).body;
    assert.equal(over.budgetRemaining, 0);
    assert.equal(over.allowed, false);
    assert.equal(over.reason, 'BUDGET_EXHAUSTED');
  });
});

describe('a subscription stored with a currency pricing cannot rate (written before it was checked)', () => {
  async function storedInXau() {
    const ws = await t.seed.workspace();
    const { customer, product, subscription } = await t.seed.subscription(ws.test);
    await t.deps.db.updateTable('subscriptions').set({ currency: 'XAU' }).where('id', '=', subscription.id).execute();
    return { api: t.seed.client(ws.test.secretKey), customerId: customer.id, productId: product.id, subscriptionId: subscription.id };
  }

  it('409 GET upcoming-invoice names the currency and how to fix it, never a 500', async () => {
    const s = await storedInXau();
    const res = await s.api.get(`/api/v1/subscriptions/${s.subscriptionId}/upcoming-invoice`);
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.equal(res.body.errors[0].code, 'CONFLICT');
    assert.match(res.body.errors[0].message, /'XAU'.*currency/);
  });

  it('409 GET /v1/entitlements/check says the same; after a PATCH to USD both answer 200', async () => {
    const s = await storedInXau();
    const check = () => s.api.get(`/v1/entitlements/check?accessorId=${s.customerId}&productId=${s.productId}`);
    const refused = await check();
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.errors[0].code, 'CONFLICT');
    assert.match(refused.body.errors[0].message, /'XAU'/);
    assert.equal((await s.api.patch(`/api/v1/subscriptions/${s.subscriptionId}`, { currency: 'USD' })).status, 200);
    assert.equal((await check()).status, 200);
    assert.equal((await s.api.get(`/api/v1/subscriptions/${s.subscriptionId}/upcoming-invoice`)).status, 200);
  });
});
