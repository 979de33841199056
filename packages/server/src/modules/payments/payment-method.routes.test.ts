import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';
import { FAKE_STRIPE_SECRET_KEY, FAKE_STRIPE_WEBHOOK_SECRET, StripeFake } from '../../../test/helpers/stripe-fake.js';

/**
 * Payment methods (issue 39) through the real server and the Stripe fake (STRIPE_API_BASE): a
 * hosted setup page, the buyer adds a card there, Stripe's checkout.session.completed makes it the
 * default, and the API shows brand, last four and expiry only.
 */

let fake: StripeFake;
let t: TestApp;
let ws: TenantHandle;
let api: Client;
let base: string;

before(async () => {
  fake = await StripeFake.start({ clock: () => t.clock.now() });
  t = await createTestApp({ config: { stripeApiBase: fake.apiBase } });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
});
after(async () => {
  await fake.close();
  await t.close();
});

const urls = { successUrl: 'https://seller.example/billing?done=1', cancelUrl: 'https://seller.example/billing' };

async function connect(): Promise<string> {
  const c = await api.request('PUT', '/api/v1/payment_providers/stripe', { secretKey: FAKE_STRIPE_SECRET_KEY, webhookSecret: FAKE_STRIPE_WEBHOOK_SECRET });
  assert.ok([200, 201].includes(c.status), JSON.stringify(c.body));
  fake.setWebhookEndpoint(`${base}${c.body.webhookUrl}`, FAKE_STRIPE_WEBHOOK_SECRET);
  return c.body.id;
}

describe('payment methods', () => {
  it('409 while Stripe is not connected; 404 naming path.id for an unknown customer or none yet', async () => {
    const customer = await t.seed.customer(ws.test, { externalId: 'early' });
    const early = await api.post(`/api/v1/customers/${customer.id}/payment_method_sessions`, urls);
    assert.equal(early.status, 409);
    assert.match(early.body.errors[0].message, /Stripe is not connected to the test environment/);
    await connect();
    assert.equal((await api.post('/api/v1/customers/cus_nobody/payment_method_sessions', urls)).body.errors[0].field, 'path.id');
    const none = await api.get('/api/v1/customers/early/payment_method');
    assert.deepEqual([none.status, none.body.errors[0].field], [404, 'path.id']);
    const bad = await api.post(`/api/v1/customers/${customer.id}/payment_method_sessions`, { successUrl: 'javascript:alert(1)', cancelUrl: urls.cancelUrl });
    assert.deepEqual([bad.status, bad.body.errors[0].field], [400, 'body.successUrl']);
  });

  it('a hosted page; the card the buyer adds becomes their default when Stripe says so, shown by brand, last four and expiry only, audited', async () => {
    await connect();
    const customer = await t.seed.customer(ws.test, { externalId: 'carded' });
    const session = await api.post('/api/v1/customers/carded/payment_method_sessions', urls);
    assert.equal(session.status, 200, JSON.stringify(session.body));
    assert.deepEqual([session.body.object, session.body.provider, session.body.customerId], ['payment_method_session', 'stripe', customer.id]);
    assert.match(session.body.url, /^http:\/\/127\.0\.0\.1:\d+\/fake\/checkout\//);
    // One Stripe customer, however many sessions.
    await api.post(`/api/v1/customers/${customer.id}/payment_method_sessions`, urls);
    assert.equal(fake.requestsTo('POST', '/v1/customers').filter((r) => r.status === 200 && !r.replayed).length, 1);

    fake.completeSetupSession(session.body.id, 'pm_card_mastercard');
    const deliveries = await fake.deliverWebhooks({ duplicates: true });
    assert.ok(deliveries.length >= 2);
    for (const d of deliveries) assert.equal(d.status, 200, JSON.stringify(d));

    const method = await api.get(`/api/v1/customers/${customer.id}/payment_method`);
    assert.equal(method.status, 200, JSON.stringify(method.body));
    assert.deepEqual(Object.keys(method.body).sort(), ['brand', 'customerId', 'expMonth', 'expYear', 'id', 'last4', 'object', 'provider']);
    assert.deepEqual([method.body.brand, method.body.last4, method.body.customerId], ['mastercard', '4444', customer.id]);
    assert.match(method.body.id, /^pm_/);
    const audits = await t.deps.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('eventType', '=', 'payment_method.updated')
      .where('targetId', '=', customer.id)
      .execute();
    assert.equal(audits.length, 1, 'applied once, though delivered twice');
    assert.deepEqual(JSON.parse(audits[0]!.payload), { provider: 'stripe', brand: 'mastercard', last4: '4444' });

    // The card removed at Stripe (its portal, another integration): no longer shown, so never sent in a charge again.
    fake.detachPaymentMethod(method.body.id);
    for (const d of await fake.deliverWebhooks({ duplicates: true })) assert.equal(d.status, 200, JSON.stringify(d));
    const gone = await api.get(`/api/v1/customers/${customer.id}/payment_method`);
    assert.deepEqual([gone.status, gone.body.errors?.[0]?.field], [404, 'path.id']);
    const removed = await t.deps.db
      .selectFrom('auditEvents')
      .select('payload')
      .where('eventType', '=', 'payment_method.updated')
      .where('targetId', '=', customer.id)
      .orderBy('seq')
      .execute();
    assert.deepEqual(
      removed.map((r) => JSON.parse(r.payload)),
      [
        { provider: 'stripe', brand: 'mastercard', last4: '4444' },
        { provider: 'stripe', removed: method.body.id },
      ],
      'applied once, though delivered twice',
    );
  });

  it('503 with Retry-After while Stripe does not answer; the event Stripe sends again is applied then', async () => {
    await connect();
    const customer = await t.seed.customer(ws.test, { externalId: 'retried' });
    const session = await api.post(`/api/v1/customers/${customer.id}/payment_method_sessions`, urls);
    fake.completeSetupSession(session.body.id, 'pm_card_visa');
    await fake.setDown(true);
    const down = await api.post(`/api/v1/customers/${customer.id}/payment_method_sessions`, urls);
    assert.equal(down.status, 503);
    assert.ok(down.headers['retry-after']);
    await fake.setDown(false);
    fake.failNext('server-error', { method: 'GET', path: `/v1/checkout/sessions/${session.body.id}` }, 1);
    const first = await fake.deliverWebhooks();
    assert.ok(
      first.some((d) => d.status === 503),
      JSON.stringify(first),
    );
    assert.equal((await api.get(`/api/v1/customers/${customer.id}/payment_method`)).status, 404, 'not applied yet');
    // Stripe delivers a failed event again, later.
    for (const failed of first.filter((d) => d.status === 503)) assert.equal((await fake.redeliver(failed.eventId)).status, 200);
    assert.equal((await api.get(`/api/v1/customers/${customer.id}/payment_method`)).body.last4, '4242');
  });
});
