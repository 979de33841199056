import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';

/**
 * Prepaid credits through the real server (issue 41): grants, their void, a customer's ledger and
 * balance, and every refusal naming its field.
 */

let t: TestApp;
let ws: TenantHandle;
let api: Client;

before(async () => {
  t = await createTestApp();
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
});
after(() => t.close());

describe('credit grants', () => {
  it('a grant: stored active, in the ledger at once with the balance after it, found by the customer’s externalId', async () => {
    const customer = await t.seed.customer(ws.test, { externalId: 'prepaid-1' });
    const created = await api.post('/api/v1/credit_grants', {
      customerId: 'prepaid-1',
      amount: '50',
      currency: 'USD',
      priority: 10,
      expiresAt: '2099-01-01T00:00:00.000Z',
      metadata: { campaign: 'launch' },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const g = created.body;
    assert.match(g.id, /^cgr_/);
    assert.deepEqual(
      [g.object, g.customerId, g.amount, g.remaining, g.currency, g.priority, g.source, g.status, g.expiresAt, g.subscriptionId, g.metricNames, g.metadata],
      ['credit_grant', customer.id, '50.00', '50.00', 'USD', 10, 'promotional', 'active', '2099-01-01T00:00:00.000Z', null, null, { campaign: 'launch' }],
    );
    assert.equal(g.effectiveAt, new Date(t.clock.now()).toISOString(), 'effective now by default');

    const second = await api.post('/api/v1/credit_grants', { customerId: customer.id, amount: '20.00', currency: 'USD', source: 'adjustment' });
    assert.equal(second.status, 200);
    assert.equal(second.body.priority, 50, 'the default priority');

    const ledger = await api.get(`/api/v1/customers/prepaid-1/credit_ledger`);
    assert.equal(ledger.status, 200);
    assert.deepEqual(
      ledger.body.data.map((e: any) => [e.object, e.type, e.grantId, e.amount, e.balanceAfter]),
      [
        ['credit_ledger_entry', 'grant', second.body.id, '20.00', '70.00'],
        ['credit_ledger_entry', 'grant', g.id, '50.00', '50.00'],
      ],
    );
    const balance = await api.get(`/api/v1/customers/${customer.id}/credit_balance`);
    assert.deepEqual(
      [balance.body.object, balance.body.customerId, balance.body.balances.map((b: any) => [b.currency, b.balance])],
      ['credit_balance', customer.id, [['USD', '70.00']]],
    );

    const listed = await api.get('/api/v1/credit_grants?customerId=prepaid-1&limit=1');
    assert.deepEqual([listed.body.data.map((x: any) => x.id), listed.body.hasMore], [[second.body.id], true]);
    const page2 = await api.get(`/api/v1/credit_grants?customerId=prepaid-1&limit=1&startingAfter=${second.body.id}`);
    assert.deepEqual([page2.body.data.map((x: any) => x.id), page2.body.hasMore], [[g.id], false]);
    const one = await api.get(`/api/v1/credit_grants/${g.id}`);
    assert.deepEqual(one.body, g);
  });

  it('a void takes only what is left, once; the ledger and the balance show it', async () => {
    const customer = await t.seed.customer(ws.test);
    const g = (await api.post('/api/v1/credit_grants', { customerId: customer.id, amount: '12.34', currency: 'USD' })).body;
    const voided = await api.post(`/api/v1/credit_grants/${g.id}/void`);
    assert.equal(voided.status, 200, JSON.stringify(voided.body));
    assert.deepEqual([voided.body.status, voided.body.remaining, voided.body.amount], ['voided', '0.00', '12.34']);
    assert.equal(voided.body.voidedAt, new Date(t.clock.now()).toISOString());
    const ledger = await api.get(`/api/v1/customers/${customer.id}/credit_ledger?currency=USD`);
    assert.deepEqual(
      ledger.body.data.map((e: any) => [e.type, e.amount, e.balanceAfter]),
      [
        ['void', '-12.34', '0.00'],
        ['grant', '12.34', '12.34'],
      ],
    );
    const again = await api.post(`/api/v1/credit_grants/${g.id}/void`);
    assert.equal(again.status, 409);
    assert.match(again.body.errors[0].message, /is voided: only an active grant can be voided/);
    assert.equal((await api.post('/api/v1/credit_grants/cgr_nobody/void')).status, 404);
  });

  it('the same Idempotency-Key and body make one grant and one ledger entry', async () => {
    const customer = await t.seed.customer(ws.test);
    const body = { customerId: customer.id, amount: '5.00', currency: 'USD' };
    const a = await api.post('/api/v1/credit_grants', body, { 'idempotency-key': 'grant-once' });
    const b = await api.post('/api/v1/credit_grants', body, { 'idempotency-key': 'grant-once' });
    assert.equal(a.body.id, b.body.id);
    assert.equal((await api.get(`/api/v1/customers/${customer.id}/credit_ledger`)).body.data.length, 1);
  });

  it('a grant limited to a subscription and to metrics; the currency must be what the customer is billed in', async () => {
    const { customer, subscription } = await t.seed.subscription(ws.test);
    assert.equal((await api.post('/api/v1/metrics', { name: 'credit_tokens' })).status, 200);
    const scoped = await api.post('/api/v1/credit_grants', {
      customerId: customer.id,
      amount: '9.99',
      currency: subscription.currency,
      subscriptionId: subscription.id,
      metricNames: ['credit_tokens', 'credit_tokens'],
    });
    assert.equal(scoped.status, 200, JSON.stringify(scoped.body));
    assert.deepEqual([scoped.body.subscriptionId, scoped.body.metricNames], [subscription.id, ['credit_tokens']]);

    const other = subscription.currency === 'EUR' ? 'USD' : 'EUR';
    const wrong = await api.post('/api/v1/credit_grants', { customerId: customer.id, amount: '1.00', currency: other });
    assert.deepEqual([wrong.status, wrong.body.errors[0].field], [400, 'body.currency']);
    assert.match(wrong.body.errors[0].message, new RegExp(`one the customer's subscriptions bill in \\(${subscription.currency}\\)`));
    const wrongForSub = await api.post('/api/v1/credit_grants', { customerId: customer.id, amount: '1.00', currency: other, subscriptionId: subscription.id });
    assert.deepEqual([wrongForSub.status, wrongForSub.body.errors[0].field], [400, 'body.currency']);
  });

  it('every bad grant gets a 4xx naming its field', async () => {
    const customer = await t.seed.customer(ws.test);
    const { subscription: theirs } = await t.seed.subscription(ws.test);
    const now = t.clock.now();
    const at = (ms: number) => new Date(ms).toISOString();
    const cases: Array<[string, Record<string, unknown>, number, string]> = [
      ['a negative amount', { amount: '-5.00' }, 400, 'body.amount'],
      ['a zero amount', { amount: '0.00' }, 400, 'body.amount'],
      ['an amount finer than cents', { amount: '1.005' }, 400, 'body.amount'],
      ['a fraction of a yen', { amount: '10.5', currency: 'JPY' }, 400, 'body.amount'],
      ['an unknown currency', { currency: 'ABC' }, 400, 'body.currency'],
      ['an expiry before the effective instant', { effectiveAt: at(now + 2 * 86_400_000), expiresAt: at(now + 86_400_000) }, 400, 'body.expiresAt'],
      ['an expiry in the past', { expiresAt: at(now - 1000) }, 400, 'body.expiresAt'],
      ['a priority past 100', { priority: 101 }, 400, 'body.priority'],
      ['a source only the service makes', { source: 'rollover' }, 400, 'body.source'],
      ['an unknown metric', { metricNames: ['no_such_metric'] }, 400, 'body.metricNames.0'],
      ['another customer’s subscription', { subscriptionId: theirs.id }, 404, 'body.subscriptionId'],
      ['an unknown customer', { customerId: 'cus_nobody' }, 404, 'body.customerId'],
    ];
    for (const [what, over, status, field] of cases) {
      const res = await api.post('/api/v1/credit_grants', { customerId: customer.id, amount: '10.00', currency: 'USD', ...over });
      assert.deepEqual([res.status, res.body.errors?.[0]?.field], [status, field], `${what}: ${JSON.stringify(res.body)}`);
    }
    assert.deepEqual((await api.get(`/api/v1/customers/${customer.id}/credit_ledger`)).body.data, [], 'nothing was granted');
  });

  it('the other environment sees none of it, and a customer without credits has no balances', async () => {
    const customer = await t.seed.customer(ws.test);
    const g = (await api.post('/api/v1/credit_grants', { customerId: customer.id, amount: '3.00', currency: 'USD' })).body;
    const live = t.seed.client(ws.live.secretKey);
    assert.equal((await live.get(`/api/v1/credit_grants/${g.id}`)).status, 404);
    assert.equal((await live.get(`/api/v1/customers/${customer.id}/credit_balance`)).status, 404);
    const fresh = await t.seed.customer(ws.test);
    assert.deepEqual((await api.get(`/api/v1/customers/${fresh.id}/credit_balance`)).body.balances, []);
  });
});
