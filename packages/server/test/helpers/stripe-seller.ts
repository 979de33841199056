import assert from 'node:assert/strict';
import type { Client, TenantHandle } from './seed.js';
import { FAKE_STRIPE_SECRET_KEY, FAKE_STRIPE_WEBHOOK_SECRET, type StripeFake, type TestCard } from './stripe-fake.js';
import type { TestApp } from './test-app.js';

/**
 * A seller collecting through the Stripe fake, as the payment tests (collection, refunds, the
 * hub's payments) build one through the real API: Stripe connected (its webhooks delivered to the
 * listening server), an offering of 30.00 a month and one of 60.00 on a published storefront, a
 * test clock, and an endpoint for every outbound event.
 */

/** The test's server (listening at `base`, for the fake's webhooks) and the fake. */
export interface StripeWorld {
  t: TestApp;
  fake: StripeFake;
  base: string;
}

export interface Seller {
  ws: TenantHandle;
  api: Client;
  productId: string;
  /** Pro, 30.00 a month. */
  offeringId: string;
  /** Scale, 60.00 a month: what an upgrade goes to. */
  scaleId: string;
  clockId: string;
}

export const iso = (ms: number) => new Date(ms).toISOString();

export async function ok(p: Promise<{ status: number; body: any }>) {
  const res = await p;
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** A seller with its test clock at `clockAt`; `connect: false` leaves Stripe out, `settings` are its billing settings. */
export async function stripeSeller(w: StripeWorld, clockAt: number, opts: { connect?: boolean; settings?: Record<string, unknown> } = {}): Promise<Seller> {
  const ws = await w.t.seed.workspace();
  const api = w.t.seed.client(ws.test.secretKey);
  if (opts.connect !== false) {
    const c = await api.request('PUT', '/api/v1/payment_providers/stripe', { secretKey: FAKE_STRIPE_SECRET_KEY, webhookSecret: FAKE_STRIPE_WEBHOOK_SECRET });
    assert.ok([200, 201].includes(c.status), JSON.stringify(c.body));
    w.fake.setWebhookEndpoint(`${w.base}${c.body.webhookUrl}`, FAKE_STRIPE_WEBHOOK_SECRET);
  }
  if (opts.settings && Object.keys(opts.settings).length > 0) await ok(api.patch('/api/v1/billing/settings', opts.settings));
  const product = await w.t.seed.product(ws.test);
  await ok(api.post('/api/v1/metrics', { name: 'api_calls' }));
  const plan = await ok(
    api.post('/api/v1/rate-plans', {
      name: 'Calls',
      currency: 'USD',
      billingPeriod: 'MONTHLY',
      metrics: [{ metricName: 'api_calls', pricingModel: 'PER_UNIT', rate: '0.01', includedFree: 1000 }],
    }),
  );
  const offering = async (name: string, entryPrice: string) =>
    (await ok(api.post('/api/v1/offerings', { productId: product.id, name, currency: 'USD', billingPeriod: 'MONTHLY', entryPrice, ratePlanIds: [plan.id] })))
      .id as string;
  const offeringId = await offering('Pro', '30');
  const scaleId = await offering('Scale', '60');
  const storefront = await ok(api.post('/api/v1/storefronts', { name: 'Plans', offeringIds: [offeringId, scaleId] }));
  await ok(api.post(`/api/v1/storefronts/${storefront.id}/publish`, {}));
  const clock = await ok(api.post('/api/v1/test_clocks', { frozenTime: iso(clockAt) }));
  await ok(api.post('/api/v1/webhook-endpoints', { url: 'https://hooks.example/billing', eventTypes: ['*'] }));
  return { ws, api, productId: product.id, offeringId, scaleId, clockId: clock.id };
}

/** A buyer adds a card on the hosted page; Stripe's webhooks make it the default (and retry what failed). */
export async function addCard(w: StripeWorld, s: Seller, customerId: string, card: TestCard): Promise<void> {
  const session = await ok(
    s.api.post(`/api/v1/customers/${customerId}/payment_method_sessions`, { successUrl: 'https://seller.example/ok', cancelUrl: 'https://seller.example/no' }),
  );
  w.fake.completeSetupSession(session.id, card);
  for (const d of await w.fake.deliverWebhooks()) assert.equal(d.status, 200, JSON.stringify(d));
}

/** A customer on the seller's clock, with a card (or none), subscribed to Pro: the first invoice (30.00) is a draft for the grace hour. */
export async function stripeSubscriber(
  w: StripeWorld,
  s: Seller,
  name: string,
  card: TestCard | null,
): Promise<{ customerId: string; subscriptionId: string }> {
  const customer = await ok(s.api.post('/api/v1/customers', { name, externalId: name, testClockId: s.clockId }));
  if (card) await addCard(w, s, customer.id, card);
  const sub = await ok(s.api.post('/api/v1/subscriptions', { customerId: customer.id, offeringId: s.offeringId }));
  return { customerId: customer.id as string, subscriptionId: sub.id as string };
}
