import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { hubBrowser, openedHubSession, type HubBrowser } from '../../../test/helpers/hub.js';
import { StripeFake, type TestCard } from '../../../test/helpers/stripe-fake.js';
import { iso, ok, stripeSeller, stripeSubscriber, type Seller, type StripeWorld } from '../../../test/helpers/stripe-seller.js';

/**
 * The hub's payment routes through the real server against the Stripe fake: the customer's card
 * (and whether the seller takes cards), the hosted page to add one (back to the hub), and Pay now
 * on an open invoice, for the hub session's customer only.
 */

let fake: StripeFake;
let t: TestApp;
let base: string;

before(async () => {
  fake = await StripeFake.start({ clock: () => t.clock.now() });
  t = await createTestApp({ config: { stripeApiBase: fake.apiBase, stripeTimeoutMs: 3_000 } });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  await fake.close();
  await t.close();
});

const HOUR = 3_600_000;
const JAN = Date.UTC(2026, 0, 10);
/** The hub's address as the server sees these requests (injected: Host localhost:80; no PUBLIC_URL). */
const HUB = 'http://localhost:80/hub';

const world = (): StripeWorld => ({ t, fake, base });
/** A seller with an offering of 30.00 a month and a test clock at JAN; Stripe connected unless told. */
const seller = (connect = true) => stripeSeller(world(), JAN, { connect });

/** A customer on the seller's clock, subscribed, with a card (or none), and their browser in the hub. */
async function buyer(s: Seller, name: string, card: TestCard | null): Promise<{ customerId: string; subscriptionId: string; hub: HubBrowser }> {
  const { customerId, subscriptionId } = await stripeSubscriber(world(), s, name, card);
  const customer = { id: customerId };
  const sub = { id: subscriptionId };
  const minted = await ok(s.api.post('/api/v1/hub_sessions', { customerId: customer.id }));
  const hub = await openedHubSession(t.app, /#(hbl_\w+)$/.exec(minted.url)![1]!);
  return { customerId: customer.id, subscriptionId: sub.id, hub };
}

/** The subscription's first invoice, finalized (and charged, when the customer has a card) by advancing the clock past its grace. */
async function finalized(s: Seller, subscriptionId: string) {
  await ok(s.api.post(`/api/v1/test_clocks/${s.clockId}/advance`, { frozenTime: iso(JAN + 2 * HOUR) }));
  const [invoice] = (await ok(s.api.get(`/api/v1/invoices?subscriptionId=${subscriptionId}`))).data;
  return ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
}

describe('GET /api/v1/hub/payment_method', () => {
  it('200 the card on file (brand, last four, expiry), never its id; null before one; cardPayments says whether the seller takes cards', async () => {
    const s = await seller();
    const a = await buyer(s, 'carded', 'pm_card_visa');
    const res = await a.hub.get('/api/v1/hub/payment_method');
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body.card).sort(), ['brand', 'expMonth', 'expYear', 'last4']);
    assert.deepEqual([res.body.object, res.body.cardPayments, res.body.card.brand, res.body.card.last4], ['hub_payment_method', true, 'visa', '4242']);
    assert.doesNotMatch(res.raw.body, /pm_/);

    const none = await buyer(s, 'cardless', null);
    assert.deepEqual((await none.hub.get('/api/v1/hub/payment_method')).body, { object: 'hub_payment_method', cardPayments: true, card: null });
    const off = await buyer(await seller(false), 'unconnected', null);
    assert.deepEqual((await off.hub.get('/api/v1/hub/payment_method')).body, { object: 'hub_payment_method', cardPayments: false, card: null });
  });

  it('401 with an API key instead of the hub cookie', async () => {
    const s = await seller();
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/hub/payment_method', headers: { authorization: `Bearer ${s.ws.test.secretKey}` } });
    assert.equal(res.statusCode, 401);
  });
});

describe('POST /api/v1/hub/payment_method_session', () => {
  it('200 a Stripe page for the session’s own customer, sending them back to the hub’s payment method page; the card then shows', async () => {
    const s = await seller();
    const a = await buyer(s, 'adder', null);
    const res = await a.hub.post('/api/v1/hub/payment_method_session');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.object, 'hub_payment_method_session');
    const session = [...fake.checkoutSessions.values()].find((c) => c.url === res.body.url)!;
    assert.ok(session, 'the url is the fake’s Checkout Session');
    assert.equal(session.success_url, `${HUB}/payment-method?card=added`);
    assert.equal(session.cancel_url, `${HUB}/payment-method?card=cancelled`);
    assert.equal(fake.customers.get(session.customer)!.metadata.tollgateCustomerId, a.customerId);

    fake.completeSetupSession(session.id, 'pm_card_mastercard');
    for (const d of await fake.deliverWebhooks()) assert.equal(d.status, 200, JSON.stringify(d));
    const card = (await a.hub.get('/api/v1/hub/payment_method')).body.card;
    assert.deepEqual([card.brand, card.last4], ['mastercard', '4444']);
  });

  it('409 in the customer’s words when the seller takes no cards (Stripe not connected)', async () => {
    const a = await buyer(await seller(false), 'nostripe', null);
    const res = await a.hub.post('/api/v1/hub/payment_method_session');
    assert.equal(res.status, 409);
    assert.equal(res.body.errors[0].message, 'Card payments are not set up here: ask the seller how to pay.');
  });

  it('403 CSRF_FAILED without X-CSRF-Token: no session is made', async () => {
    const s = await seller();
    const a = await buyer(s, 'forged', null);
    const before = fake.checkoutSessions.size;
    const res = await hubBrowser(t.app, a.hub.secret, null).post('/api/v1/hub/payment_method_session');
    assert.deepEqual([res.status, res.body.errors[0].code], [403, 'CSRF_FAILED']);
    assert.equal(fake.checkoutSessions.size, before);
  });
});

describe('POST /api/v1/hub/invoices/:id/pay', () => {
  it('200 failed: a customer without a card is told why (no_payment_method), as attempt 2 made by the customer', async () => {
    const s = await seller();
    const a = await buyer(s, 'payer', null);
    const invoice = await finalized(s, a.subscriptionId);
    assert.deepEqual([invoice.paymentStatus, invoice.lastPaymentError.code], ['failed', 'no_payment_method']);
    const res = await a.hub.post(`/api/v1/hub/invoices/${invoice.id}/pay`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      [res.body.status, res.body.attempt, res.body.trigger, res.body.failureCode, res.body.invoice.paymentStatus, res.body.invoice.amountRemaining],
      ['failed', 2, 'customer', 'no_payment_method', 'failed', '30.00'],
    );
  });

  it('200 requires_action: Stripe’s page, which returns the buyer to the hub’s invoices; completed, the invoice is paid', async () => {
    const s = await seller();
    const a = await buyer(s, 'secure', 'pm_card_authenticationRequired');
    const invoice = await finalized(s, a.subscriptionId);
    assert.equal(invoice.paymentStatus, 'requires_action');
    const res = await a.hub.post(`/api/v1/hub/invoices/${invoice.id}/pay`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.status, res.body.trigger], ['requires_action', 'customer']);
    assert.match(res.body.actionUrl, /\/fake\/authenticate\/pi_/);
    const pi = fake.paymentIntents.get(res.body.providerReference)!;
    assert.equal(pi.next_action.redirect_to_url.return_url, `${HUB}/billing?invoice=${invoice.id}`);

    fake.completeAuthentication(res.body.providerReference, 'succeed');
    for (const d of await fake.deliverWebhooks()) assert.equal(d.status, 200, JSON.stringify(d));
    const [listed] = (await ok(a.hub.get('/api/v1/hub/invoices'))).data;
    assert.deepEqual([listed.id, listed.status, listed.paymentStatus, listed.amountRemaining], [invoice.id, 'paid', 'paid', '0.00']);
    assert.equal(
      listed.hostedInvoiceUrl,
      (await ok(s.api.get(`/api/v1/invoices/${invoice.id}`))).hostedInvoiceUrl,
      'the payment page, as the operator sees it',
    );
    assert.match(listed.hostedInvoiceUrl, /\/pay\/ws_[^.]+\.t\.inv_[^.]+\.[A-Za-z0-9_-]{22}$/);

    const again = await a.hub.post(`/api/v1/hub/invoices/${invoice.id}/pay`);
    assert.equal(again.status, 409, 'nothing is owed any more');
  });

  it('404 for another customer’s invoice, a draft and an unknown id: nothing is charged', async () => {
    const s = await seller();
    const b = await buyer(s, 'theirs', 'pm_card_chargeDeclined');
    const theirs = await finalized(s, b.subscriptionId);
    assert.equal(theirs.paymentStatus, 'failed');
    // Subscribed after the clock moved: its first invoice is a draft for the grace hour.
    const a = await buyer(s, 'mine', null);
    const draft = (await ok(s.api.get(`/api/v1/invoices?subscriptionId=${a.subscriptionId}`))).data[0];
    assert.equal(draft.status, 'draft');
    const charges = fake.paymentIntents.size;
    for (const id of [theirs.id, draft.id, 'inv_unknown']) {
      const res = await a.hub.post(`/api/v1/hub/invoices/${id}/pay`);
      assert.deepEqual([res.status, res.body.errors[0].code, res.body.errors[0].field], [404, 'NOT_FOUND', 'path.id'], id);
    }
    assert.equal(fake.paymentIntents.size, charges, 'no PaymentIntent was made');
    assert.equal((await ok(s.api.get(`/api/v1/invoices/${theirs.id}`))).attemptCount, 1);
  });

  it('409 when the seller takes no cards; 403 without X-CSRF-Token', async () => {
    const s = await seller(false);
    const a = await buyer(s, 'offline', null);
    const invoice = await finalized(s, a.subscriptionId);
    assert.equal(invoice.status, 'finalized');
    const res = await a.hub.post(`/api/v1/hub/invoices/${invoice.id}/pay`);
    assert.deepEqual([res.status, res.body.errors[0].message], [409, 'Card payments are not set up here: ask the seller how to pay.']);
    const forged = await hubBrowser(t.app, a.hub.secret, null).post(`/api/v1/hub/invoices/${invoice.id}/pay`);
    assert.deepEqual([forged.status, forged.body.errors[0].code], [403, 'CSRF_FAILED']);
  });
});
