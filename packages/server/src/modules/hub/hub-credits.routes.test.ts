import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client } from '../../../test/helpers/seed.js';
import { hubBrowser, openedHubSession, type HubBrowser } from '../../../test/helpers/hub.js';
import { createDemoWorkspace } from '../../demo/create-demo-workspace.js';

/**
 * The hub's credit routes through the real server: the session's customer's balance, grants and
 * ledger, never another customer's; buying credits makes a pending grant and an invoice for its
 * cost, active once paid; every refusal names its field.
 */

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

interface World {
  api: Client;
  /** The demo customer (a, USD subscription) and a second one (b) on the same offering. */
  a: string;
  b: string;
  /** a's browser in the hub. */
  hub: HubBrowser;
}

async function world(): Promise<World> {
  const d = await createDemoWorkspace(t.deps, { actor: { type: 'OPERATOR', id: 'test' }, source: 'cli', correlationId: 'test' });
  const env = d.environments.test;
  const api = t.seed.client(env.secretKey);
  const customer = await api.post('/api/v1/customers', { name: 'Bea' });
  const sub = await api.post('/api/v1/subscriptions', { customerId: customer.body.id, offeringId: env.offeringId });
  assert.equal(sub.status, 200, JSON.stringify(sub.body));
  const minted = await api.post('/api/v1/hub_sessions', { customerId: env.customerId });
  const hub = await openedHubSession(t.app, /#(hbl_\w+)$/.exec(minted.body.url)![1]!);
  return { api, a: env.customerId, b: customer.body.id, hub };
}

async function grant(api: Client, customerId: string, amount: string, extra: Record<string, unknown> = {}): Promise<{ id: string }> {
  const res = await api.post('/api/v1/credit_grants', { customerId, amount, currency: 'USD', ...extra });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

describe('GET /api/v1/hub/credits', () => {
  it('200 the session customer’s balance, grants left soonest expiry first, and the ledger’s first page; never another customer’s', async () => {
    const { api, a, b, hub } = await world();
    const never = await grant(api, a, '50');
    const soon = await grant(api, a, '5.00', { expiresAt: iso(t.clock.now() + 10 * DAY) });
    const later = await grant(api, a, '7.50', { expiresAt: iso(t.clock.now() + 30 * DAY) });
    const voided = await grant(api, a, '3.00');
    assert.equal((await api.post(`/api/v1/credit_grants/${voided.id}/void`, {})).status, 200);
    const theirs = await grant(api, b, '999.00');

    const res = await hub.get('/api/v1/hub/credits');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.object, 'hub_credits');
    assert.deepEqual(
      res.body.balances.map((x: any) => [x.currency, x.balance]),
      [['USD', '62.50']],
    );
    assert.deepEqual(
      res.body.grants.map((g: any) => [g.id, g.remaining, g.status]),
      [
        [soon.id, '5.00', 'active'],
        [later.id, '7.50', 'active'],
        [never.id, '50.00', 'active'],
      ],
      'the voided grant has nothing left: not listed',
    );
    assert.deepEqual(res.body.purchaseCurrencies, ['USD']);
    assert.deepEqual(
      res.body.ledger.data.map((e: any) => [e.type, e.amount, e.balanceAfter]),
      [
        ['void', '-3.00', '62.50'],
        ['grant', '3.00', '65.50'],
        ['grant', '7.50', '62.50'],
        ['grant', '5.00', '55.00'],
        ['grant', '50.00', '50.00'],
      ],
    );
    assert.equal(res.body.ledger.hasMore, false);
    assert.ok(!res.raw.body.includes(theirs.id) && !res.raw.body.includes(b) && !res.raw.body.includes('999.00'), 'nothing of customer b');
  });

  it('200 empty for a customer without credits', async () => {
    const { hub } = await world();
    const res = await hub.get('/api/v1/hub/credits');
    assert.deepEqual([res.status, res.body.balances, res.body.grants, res.body.ledger.data], [200, [], [], []]);
  });

  it('401 without the hub cookie (an API key is not a hub session)', async () => {
    const { api } = await world();
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/hub/credits' })).statusCode, 401);
    assert.equal((await api.get('/api/v1/hub/credits')).status, 401);
  });
});

describe('GET /api/v1/hub/credits/ledger', () => {
  it('200 pages the session customer’s ledger newest first; another customer’s cursor shows only the session’s own entries', async () => {
    const { api, a, b, hub } = await world();
    for (const amount of ['1.00', '2.00', '3.00']) await grant(api, a, amount);
    await grant(api, b, '9.00');
    const first = await hub.get('/api/v1/hub/credits/ledger?limit=2');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual([first.body.data.map((e: any) => e.amount), first.body.hasMore], [['3.00', '2.00'], true]);
    const next = await hub.get(`/api/v1/hub/credits/ledger?limit=2&startingAfter=${first.body.data[1].id}`);
    assert.deepEqual([next.body.data.map((e: any) => e.amount), next.body.hasMore], [['1.00'], false]);
    const [theirs] = (await api.get(`/api/v1/customers/${b}/credit_ledger`)).body.data;
    const after = await hub.get(`/api/v1/hub/credits/ledger?startingAfter=${theirs.id}`);
    assert.equal(after.status, 200);
    assert.ok(
      after.body.data.every((e: any) => e.customerId === a),
      'only the session’s customer’s entries',
    );
  });

  it('400 for a malformed currency or a customerId in the query (the customer is the session’s)', async () => {
    const { hub, b } = await world();
    const bad = await hub.get('/api/v1/hub/credits/ledger?currency=usd');
    assert.deepEqual([bad.status, bad.body.errors[0].field], [400, 'query.currency']);
    assert.equal((await hub.get(`/api/v1/hub/credits/ledger?customerId=${b}`)).status, 400);
  });

  it('401 without the hub cookie', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/hub/credits/ledger' })).statusCode, 401);
  });
});

describe('POST /api/v1/hub/credits/purchases', () => {
  it('200 a pending purchased grant and a finalized invoice for its cost, of the session’s customer; paid, the credits count', async () => {
    const { api, a, hub } = await world();
    const res = await hub.post('/api/v1/hub/credits/purchases', { amount: '20', currency: 'USD' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { grant: g, invoice } = res.body;
    assert.deepEqual(
      [res.body.object, g.customerId, g.amount, g.cost, g.source, g.status, g.invoiceId],
      ['hub_credit_purchase', a, '20.00', '20.00', 'purchased', 'pending', invoice.id],
    );
    assert.deepEqual(
      [invoice.customerId, invoice.status, invoice.billingReason, invoice.total, invoice.amountRemaining, invoice.lines[0].type],
      [a, 'finalized', 'credit_purchase', '20.00', '20.00', 'credit_purchase'],
    );
    assert.match(invoice.hostedInvoiceUrl, /\/pay\//, 'its payment page, as the hub shows invoices');
    const asOperator = await api.get(`/api/v1/invoices/${invoice.id}`);
    assert.deepEqual([asOperator.body.customerId, asOperator.body.total], [a, '20.00']);

    // Pending: listed, not yet in the balance or the ledger.
    let credits = (await hub.get('/api/v1/hub/credits')).body;
    assert.deepEqual(
      credits.grants.map((x: any) => [x.id, x.status]),
      [[g.id, 'pending']],
    );
    assert.deepEqual([credits.balances, credits.ledger.data], [[], []]);
    const audit = await t.deps.db.selectFrom('auditEvents').selectAll().where('targetId', '=', g.id).execute();
    assert.deepEqual(
      audit.map((e) => [e.eventType, e.actorType, e.source]),
      [['credit_grant.created', 'HUB_SESSION', 'hub']],
    );

    assert.equal((await api.post(`/api/v1/invoices/${invoice.id}/pay`, {})).status, 200);
    credits = (await hub.get('/api/v1/hub/credits')).body;
    assert.deepEqual(
      credits.grants.map((x: any) => [x.id, x.status, x.remaining]),
      [[g.id, 'active', '20.00']],
    );
    assert.deepEqual(
      credits.balances.map((x: any) => [x.currency, x.balance]),
      [['USD', '20.00']],
    );
    assert.deepEqual(
      credits.ledger.data.map((e: any) => [e.type, e.amount, e.invoiceId]),
      [['top_up', '20.00', invoice.id]],
    );
  });

  it('200 once with an Idempotency-Key: a retry replays the purchase; the same key from another customer is theirs alone', async () => {
    const { api, b, hub } = await world();
    const headers = { 'idempotency-key': 'buy-1' };
    const first = await hub.post('/api/v1/hub/credits/purchases', { amount: '5.00', currency: 'USD' }, headers);
    const again = await hub.post('/api/v1/hub/credits/purchases', { amount: '5.00', currency: 'USD' }, headers);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual([again.status, again.headers['idempotent-replayed'], again.body.grant.id], [200, 'true', first.body.grant.id]);
    const minted = await api.post('/api/v1/hub_sessions', { customerId: b });
    const theirs = await openedHubSession(t.app, /#(hbl_\w+)$/.exec(minted.body.url)![1]!);
    const other = await theirs.post('/api/v1/hub/credits/purchases', { amount: '5.00', currency: 'USD' }, headers);
    assert.equal(other.status, 200);
    assert.equal(other.headers['idempotent-replayed'], undefined);
    assert.deepEqual([other.body.grant.customerId, other.body.grant.id !== first.body.grant.id], [b, true]);
  });

  it('400 naming the field: an amount of 0, finer than a cent or not a number; a currency no subscription bills in; a customerId', async () => {
    const { hub } = await world();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ amount: '0', currency: 'USD' }, 'body.amount'],
      [{ amount: '1.234', currency: 'USD' }, 'body.amount'],
      [{ amount: 'ten', currency: 'USD' }, 'body.amount'],
      [{ amount: '', currency: 'USD' }, 'body.amount'],
      [{ amount: '5.00', currency: 'EUR' }, 'body.currency'],
      [{ amount: '5.00' }, 'body.currency'],
    ];
    for (const [body, field] of cases) {
      const res = await hub.post('/api/v1/hub/credits/purchases', body);
      assert.deepEqual([res.status, res.body.errors?.[0]?.field], [400, field], JSON.stringify(body));
    }
    const named = await hub.post('/api/v1/hub/credits/purchases', { amount: '5.00', currency: 'USD', customerId: 'someone-else' });
    assert.equal(named.status, 400);
    assert.deepEqual((await hub.get('/api/v1/hub/credits')).body.grants, [], 'nothing was bought');
  });

  it('400 for a customer without subscriptions: credits would pay for nothing', async () => {
    const { api } = await world();
    const lone = await api.post('/api/v1/customers', { name: 'Lone' });
    const minted = await api.post('/api/v1/hub_sessions', { customerId: lone.body.id });
    const hub = await openedHubSession(t.app, /#(hbl_\w+)$/.exec(minted.body.url)![1]!);
    const res = await hub.post('/api/v1/hub/credits/purchases', { amount: '5.00', currency: 'USD' });
    assert.deepEqual([res.status, res.body.errors[0].field], [400, 'body.currency']);
    assert.deepEqual((await hub.get('/api/v1/hub/credits')).body.purchaseCurrencies, []);
  });

  it('401 without the hub cookie; 403 without X-CSRF-Token: nothing is bought', async () => {
    const { hub } = await world();
    const none = await t.app.inject({ method: 'POST', url: '/api/v1/hub/credits/purchases', payload: { amount: '5.00', currency: 'USD' } });
    assert.equal(none.statusCode, 401);
    const forged = await hubBrowser(t.app, hub.secret, null).post('/api/v1/hub/credits/purchases', { amount: '5.00', currency: 'USD' });
    assert.deepEqual([forged.status, forged.body.errors[0].code], [403, 'CSRF_FAILED']);
    assert.deepEqual((await hub.get('/api/v1/hub/credits')).body.grants, []);
  });
});
