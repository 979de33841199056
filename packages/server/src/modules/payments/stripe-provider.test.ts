// The Stripe adapter with the real `stripe` client against the Stripe fake (test/helpers/stripe-fake.ts)
// on 127.0.0.1: one behaviour per test. Nothing here waits on the clock; the one timeout is the
// client's own, on a request the fake never answers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../lib/config.js';
import Stripe from 'stripe';
import { FAKE_STRIPE_SECRET_KEY, FAKE_STRIPE_WEBHOOK_SECRET, StripeFake, type TestCard } from '../../../test/helpers/stripe-fake.js';
import { WebhookReceiver } from '../../../test/helpers/webhook-receiver.js';
import { PaymentProviderError, type ChargeRequest, type PaymentProvider, type ProviderCustomer } from './payment-provider.js';
import { createStripeProvider, stripeApiAddress } from './stripe-provider.js';

const NOW_MS = Date.UTC(2026, 0, 15, 12, 0, 0);
let fake: StripeFake;
let stripe: PaymentProvider;
let n = 0;

before(async () => {
  fake = await StripeFake.start({ clock: () => NOW_MS });
  stripe = createStripeProvider({ secretKey: FAKE_STRIPE_SECRET_KEY, apiBase: fake.apiBase, timeoutMs: 10_000 });
});
after(() => fake.close());

async function newCustomer(): Promise<ProviderCustomer> {
  n++;
  return stripe.createCustomer({ email: `buyer${n}@example.com`, name: `Buyer ${n}`, idempotencyKey: `customer_${n}`, metadata: { customerId: `c_${n}` } });
}

/** A customer whose default card is `card`, set up the way the buyer does it: Checkout, then applySetupSession. */
async function customerPaying(card: TestCard): Promise<{ customer: ProviderCustomer; paymentMethodId: string }> {
  const customer = await newCustomer();
  const session = await stripe.createSetupSession({ customer, currency: 'USD', successUrl: 'https://seller.test/ok', cancelUrl: 'https://seller.test/no' });
  fake.completeSetupSession(session.id, card);
  const applied = await stripe.applySetupSession(session.id);
  return { customer, paymentMethodId: applied!.paymentMethod.id };
}

function chargeOf(customer: ProviderCustomer, overrides: Partial<ChargeRequest> = {}): ChargeRequest {
  n++;
  return {
    customer,
    amount: '150.00',
    currency: 'USD',
    idempotencyKey: `in_${n}:attempt_1`,
    metadata: { invoiceId: `in_${n}`, attemptId: `pa_${n}`, workspaceId: 'ws_1', environment: 'test' },
    description: `Invoice in_${n}`,
    ...overrides,
  };
}

async function rejectsWith(promise: Promise<unknown>, kind: 'unavailable' | 'rejected', code: string | null): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof PaymentProviderError, String(e));
    assert.deepEqual({ kind: e.kind, code: e.providerCode }, { kind, code });
    return true;
  });
}

describe('customers and payment methods', () => {
  it('createCustomer makes one Stripe customer per idempotency key, with our metadata', async () => {
    const input = { email: 'once@example.com', name: 'Once', idempotencyKey: 'customer_once', metadata: { customerId: 'c_once' } };
    const first = await stripe.createCustomer(input);
    const again = await stripe.createCustomer(input);
    assert.equal(again.id, first.id);
    assert.equal([...fake.customers.values()].filter((c) => c.email === 'once@example.com').length, 1);
    assert.deepEqual(fake.customers.get(first.id)!.metadata, { customerId: 'c_once' });
  });

  it('createSetupSession gives a hosted Checkout URL in setup mode for the customer and currency', async () => {
    const customer = await newCustomer();
    const session = await stripe.createSetupSession({ customer, currency: 'EUR', successUrl: 'https://seller.test/ok', cancelUrl: 'https://seller.test/no' });
    assert.equal(session.url, `${fake.apiBase}/fake/checkout/${session.id}`);
    const at = fake.checkoutSessions.get(session.id)!;
    assert.deepEqual([at.mode, at.customer, at.currency, at.success_url], ['setup', customer.id, 'eur', 'https://seller.test/ok']);
  });

  it('a completed setup session attaches the card without making it the default; applySetupSession makes it so', async () => {
    const customer = await newCustomer();
    const session = await stripe.createSetupSession({ customer, currency: 'USD', successUrl: 'https://seller.test/ok', cancelUrl: 'https://seller.test/no' });
    const pm = fake.completeSetupSession(session.id, 'pm_card_mastercard');
    assert.equal(await stripe.defaultPaymentMethod(customer), null);
    const applied = await stripe.applySetupSession(session.id);
    assert.equal(applied!.customer.id, customer.id);
    assert.equal(applied!.paymentMethod.id, pm);
    assert.equal((await stripe.defaultPaymentMethod(customer))!.id, pm);
  });

  it('applySetupSession is null while the buyer has not finished', async () => {
    const customer = await newCustomer();
    const session = await stripe.createSetupSession({ customer, currency: 'USD', successUrl: 'https://seller.test/ok', cancelUrl: 'https://seller.test/no' });
    assert.equal(await stripe.applySetupSession(session.id), null);
  });

  it('defaultPaymentMethod shows brand, last 4 and expiry, nothing more', async () => {
    const { customer, paymentMethodId } = await customerPaying('pm_card_visa');
    assert.deepEqual(await stripe.defaultPaymentMethod(customer), { id: paymentMethodId, brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 });
  });

  it('defaultPaymentMethod is null for a customer without one', async () => {
    assert.equal(await stripe.defaultPaymentMethod(await newCustomer()), null);
  });
});

describe('charge', () => {
  it('a card that succeeds: a PaymentIntent confirmed off-session for the default card, under our key, with our metadata', async () => {
    const { customer, paymentMethodId } = await customerPaying('pm_card_visa');
    const req = chargeOf(customer);
    const result = await stripe.charge(req);
    assert.deepEqual(result, {
      providerReference: result.providerReference,
      status: 'succeeded',
      amount: '150.00',
      currency: 'USD',
      failureCode: null,
      failureMessage: null,
      actionUrl: null,
    });
    const [sent] = fake.requestsTo('POST', '/v1/payment_intents').filter((r) => r.idempotencyKey === req.idempotencyKey);
    assert.deepEqual(sent!.params, {
      amount: '15000',
      currency: 'usd',
      customer: customer.id,
      payment_method: paymentMethodId,
      confirm: 'true',
      off_session: 'true',
      description: req.description,
      metadata: req.metadata,
    });
    assert.equal(fake.paymentIntents.get(result.providerReference!)!.status, 'succeeded');
  });

  const declines: Array<[TestCard, string, string]> = [
    ['pm_card_chargeDeclined', 'card_declined', 'Your card was declined.'],
    ['pm_card_chargeDeclinedInsufficientFunds', 'insufficient_funds', 'Your card has insufficient funds.'],
  ];
  for (const [card, code, message] of declines) {
    it(`${card}: failed with ${code}`, async () => {
      const { customer } = await customerPaying(card);
      const result = await stripe.charge(chargeOf(customer));
      assert.deepEqual([result.status, result.failureCode, result.failureMessage], ['failed', code, message]);
      assert.equal(fake.paymentIntents.get(result.providerReference!)!.status, 'requires_payment_method');
    });
  }

  it('a card that needs 3-D Secure, with a return URL: requires_action at the page Stripe gives; succeeded once the buyer authenticates', async () => {
    const { customer } = await customerPaying('pm_card_authenticationRequired');
    const result = await stripe.charge(chargeOf(customer, { returnUrl: 'https://seller.test/paid' }));
    assert.equal(result.status, 'requires_action');
    assert.equal(result.actionUrl, `${fake.apiBase}/fake/authenticate/${result.providerReference}`);
    fake.completeAuthentication(result.providerReference!);
    assert.equal((await stripe.retrieveCharge(result.providerReference!)).status, 'succeeded');
  });

  it('cancelCharge withdraws a page the buyer has not used (failed, canceled); one the buyer completed first stays the payment', async () => {
    const { customer } = await customerPaying('pm_card_authenticationRequired');
    const waiting = await stripe.charge(chargeOf(customer, { idempotencyKey: 'cancel-1', returnUrl: 'https://seller.test/paid' }));
    const cancelled = await stripe.cancelCharge(waiting.providerReference!);
    assert.deepEqual([cancelled.status, cancelled.failureCode], ['failed', 'canceled']);
    assert.throws(() => fake.completeAuthentication(waiting.providerReference!), /canceled, not requires_action/);
    const raced = await stripe.charge(chargeOf(customer, { idempotencyKey: 'cancel-2', returnUrl: 'https://seller.test/paid' }));
    fake.completeAuthentication(raced.providerReference!);
    assert.equal((await stripe.cancelCharge(raced.providerReference!)).status, 'succeeded');
  });

  it('a card that needs 3-D Secure, without a return URL: requires_action (authentication_required), no URL', async () => {
    const { customer } = await customerPaying('pm_card_authenticationRequired');
    const result = await stripe.charge(chargeOf(customer));
    assert.deepEqual([result.status, result.failureCode, result.actionUrl], ['requires_action', 'authentication_required', null]);
  });

  it('the same idempotency key again: the same PaymentIntent, charged once', async () => {
    const { customer } = await customerPaying('pm_card_visa');
    const req = chargeOf(customer);
    const first = await stripe.charge(req);
    const again = await stripe.charge(req);
    assert.deepEqual(again, first);
    assert.equal(fake.succeededPaymentIntents({ invoiceId: req.metadata.invoiceId }).length, 1);
    assert.deepEqual(
      fake
        .requestsTo('POST', '/v1/payment_intents')
        .filter((r) => r.idempotencyKey === req.idempotencyKey)
        .map((r) => r.replayed),
      [false, true],
    );
  });

  it('the same charge again after the buyer authenticated: the charge as it stands now, not the first answer', async () => {
    const { customer } = await customerPaying('pm_card_authenticationRequired');
    const req = chargeOf(customer, { returnUrl: 'https://seller.test/paid' });
    const first = await stripe.charge(req);
    fake.completeAuthentication(first.providerReference!);
    const again = await stripe.charge(req);
    assert.deepEqual([again.providerReference, again.status], [first.providerReference, 'succeeded']);
    assert.equal(fake.succeededPaymentIntents({ invoiceId: req.metadata.invoiceId }).length, 1);
  });

  it('a timeout after Stripe charged: unavailable; the same key then finds the succeeded charge, charged once', async () => {
    const { customer, paymentMethodId } = await customerPaying('pm_card_visa');
    const req = chargeOf(customer, { paymentMethodId });
    const impatient = createStripeProvider({ secretKey: FAKE_STRIPE_SECRET_KEY, apiBase: fake.apiBase, timeoutMs: 250 });
    fake.failNext('timeout-after-execute');
    await rejectsWith(impatient.charge(req), 'unavailable', 'ETIMEDOUT');
    assert.equal(fake.succeededPaymentIntents({ invoiceId: req.metadata.invoiceId }).length, 1, 'the charge happened');
    const found = await stripe.charge(req);
    assert.equal(found.status, 'succeeded');
    assert.equal(fake.succeededPaymentIntents({ invoiceId: req.metadata.invoiceId })[0]!.id, found.providerReference);
    assert.equal(fake.succeededPaymentIntents({ invoiceId: req.metadata.invoiceId }).length, 1);
  });

  it('a connection reset after Stripe charged: the client retries once with the same key and gets the saved answer', async () => {
    const { customer } = await customerPaying('pm_card_visa');
    const req = chargeOf(customer);
    fake.failNext('reset-after-execute');
    assert.equal((await stripe.charge(req)).status, 'succeeded');
    const sent = fake.requestsTo('POST', '/v1/payment_intents').filter((r) => r.idempotencyKey === req.idempotencyKey);
    assert.deepEqual(
      sent.map((r) => [r.status, r.replayed]),
      [
        ['reset', false],
        [200, true],
      ],
    );
    assert.equal(fake.succeededPaymentIntents({ invoiceId: req.metadata.invoiceId }).length, 1);
  });

  it('a 5xx before Stripe did anything: unavailable; the retry charges once', async () => {
    const { customer } = await customerPaying('pm_card_visa');
    const req = chargeOf(customer);
    fake.failNext('server-error');
    await rejectsWith(stripe.charge(req), 'unavailable', 'api_error');
    assert.equal((await stripe.charge(req)).status, 'succeeded');
    assert.equal(fake.succeededPaymentIntents({ invoiceId: req.metadata.invoiceId }).length, 1);
  });

  it('Stripe down (connection refused): unavailable', async () => {
    const { customer, paymentMethodId } = await customerPaying('pm_card_visa');
    await fake.setDown(true);
    try {
      await rejectsWith(stripe.charge(chargeOf(customer, { paymentMethodId })), 'unavailable', 'ECONNREFUSED');
    } finally {
      await fake.setDown(false);
    }
  });

  it('a bad secret key: rejected, and the message does not carry the key', async () => {
    const wrongKey = 'sk_test_wrongwrongwrong9876';
    const wrong = createStripeProvider({ secretKey: wrongKey, apiBase: fake.apiBase, timeoutMs: 10_000 });
    await assert.rejects(
      wrong.createCustomer({ email: null, name: 'X', idempotencyKey: 'customer_bad_key', metadata: {} }),
      (e: unknown) => e instanceof PaymentProviderError && e.kind === 'rejected' && !e.message.includes(wrongKey),
    );
  });

  it('the same key with other parameters: rejected (idempotency_error), never a second charge', async () => {
    const { customer } = await customerPaying('pm_card_visa');
    const req = chargeOf(customer);
    await stripe.charge(req);
    await rejectsWith(stripe.charge({ ...req, amount: '151.00' }), 'rejected', 'idempotency_error');
    assert.equal(fake.succeededPaymentIntents({ invoiceId: req.metadata.invoiceId }).length, 1);
  });

  it('with the attempt kept payment method, a retry after a card update still replays the first answer', async () => {
    const { customer, paymentMethodId } = await customerPaying('pm_card_visa');
    const req = chargeOf(customer, { paymentMethodId });
    const first = await stripe.charge(req);
    const update = await stripe.createSetupSession({ customer, currency: 'USD', successUrl: 'https://seller.test/ok', cancelUrl: 'https://seller.test/no' });
    fake.completeSetupSession(update.id, 'pm_card_mastercard');
    await stripe.applySetupSession(update.id);
    assert.equal((await stripe.charge(req)).providerReference, first.providerReference);
  });

  it('a customer with no payment method: failed (no_payment_method), nothing asked of Stripe to charge', async () => {
    const customer = await newCustomer();
    const before = fake.requestsTo('POST', '/v1/payment_intents').length;
    const result = await stripe.charge(chargeOf(customer));
    assert.deepEqual([result.status, result.failureCode, result.providerReference], ['failed', 'no_payment_method', null]);
    assert.equal(fake.requestsTo('POST', '/v1/payment_intents').length, before);
  });
});

describe('refund', () => {
  it('partial refunds up to what was paid', async () => {
    const { customer } = await customerPaying('pm_card_visa');
    const charged = await stripe.charge(chargeOf(customer));
    const metadata = { invoiceId: 'in_r', creditNoteId: 'cn_1', workspaceId: 'ws_1', environment: 'test' };
    const part = await stripe.refund({ providerReference: charged.providerReference!, amount: '50.00', currency: 'USD', idempotencyKey: 'cn_1', metadata });
    assert.deepEqual([part.status, part.amount], ['succeeded', '50.00']);
    const rest = await stripe.refund({ providerReference: charged.providerReference!, amount: '100.00', currency: 'USD', idempotencyKey: 'cn_2', metadata });
    assert.deepEqual([rest.status, rest.amount], ['succeeded', '100.00']);
    assert.equal(fake.charges.get(fake.paymentIntents.get(charged.providerReference!)!.latest_charge)!.refunded, true);
  });

  it('more than is left to refund: rejected (amount_too_large), nothing refunded', async () => {
    const { customer } = await customerPaying('pm_card_visa');
    const charged = await stripe.charge(chargeOf(customer));
    const metadata = { invoiceId: 'in_o', creditNoteId: 'cn_o', workspaceId: 'ws_1', environment: 'test' };
    await rejectsWith(
      stripe.refund({ providerReference: charged.providerReference!, amount: '150.01', currency: 'USD', idempotencyKey: 'cn_over', metadata }),
      'rejected',
      'amount_too_large',
    );
    assert.equal(fake.charges.get(fake.paymentIntents.get(charged.providerReference!)!.latest_charge)!.amount_refunded, 0);
  });
});

describe('amounts in the currency Stripe expects', () => {
  it('JPY goes as whole yen', async () => {
    const customer = await newCustomer();
    fake.attachCard(customer.id, 'pm_card_visa');
    const result = await stripe.charge(chargeOf(customer, { amount: '1500', currency: 'JPY' }));
    assert.deepEqual([result.status, result.amount, result.currency], ['succeeded', '1500', 'JPY']);
    assert.deepEqual([fake.paymentIntents.get(result.providerReference!)!.amount, fake.paymentIntents.get(result.providerReference!)!.currency], [1500, 'jpy']);
  });

  it('KWD goes in fils (×1000)', async () => {
    const { customer } = await customerPaying('pm_card_visa');
    const result = await stripe.charge(chargeOf(customer, { amount: '12.340', currency: 'KWD' }));
    assert.deepEqual([result.status, result.amount], ['succeeded', '12.340']);
    assert.equal(fake.paymentIntents.get(result.providerReference!)!.amount, 12340);
  });

  it('KWD whose last fils is not 0: rejected before Stripe is asked (Stripe refuses it)', async () => {
    const { customer, paymentMethodId } = await customerPaying('pm_card_visa');
    const before = fake.requests.length;
    await rejectsWith(stripe.charge(chargeOf(customer, { amount: '12.345', currency: 'KWD', paymentMethodId })), 'rejected', 'last_digit_not_zero');
    assert.equal(fake.requests.length, before);
  });
});

describe('STRIPE_API_BASE', () => {
  it('is a scheme, a host and a port', () => {
    assert.deepEqual(stripeApiAddress('http://127.0.0.1:12111'), { host: '127.0.0.1', port: 12111, protocol: 'http' });
    assert.deepEqual(stripeApiAddress('https://stripe.internal'), { host: 'stripe.internal', port: 443, protocol: 'https' });
    assert.deepEqual(stripeApiAddress('http://[::1]:8080/'), { host: '::1', port: 8080, protocol: 'http' });
    assert.throws(() => stripeApiAddress('http://127.0.0.1:12111/v1'), /scheme, a host and a port only/);
    assert.throws(() => stripeApiAddress('ftp://127.0.0.1'), /http:\/\/ or https:\/\//);
  });
});

describe('TOLLGATE_STRIPE_FAKE', () => {
  const cases: Array<[string, NodeJS.ProcessEnv, boolean | RegExp]> = [
    ['off by default', { TOLLGATE_PROFILE: 'development' }, false],
    ['on in the development profile', { TOLLGATE_PROFILE: 'development', TOLLGATE_STRIPE_FAKE: 'true' }, true],
    ['refused in the test profile', { TOLLGATE_PROFILE: 'test', TOLLGATE_STRIPE_FAKE: 'true' }, /development profile only \(this is test\)/],
    [
      'refused in production',
      { TOLLGATE_PROFILE: 'production', TOLLGATE_STRIPE_FAKE: 'true', TOLLGATE_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}` },
      /development profile only \(this is production\)/,
    ],
    ['refused beside STRIPE_API_BASE', { TOLLGATE_PROFILE: 'development', TOLLGATE_STRIPE_FAKE: 'true', STRIPE_API_BASE: 'http://127.0.0.1:1' }, /set one/],
  ];
  for (const [name, env, want] of cases) {
    it(name, () => {
      if (want instanceof RegExp) assert.throws(() => loadConfig(env), want);
      else assert.equal(loadConfig(env).stripeFake, want);
    });
  }
});

describe('the fake’s webhooks (test helper)', () => {
  it('signs with Stripe’s scheme, and delivers duplicates and out of order when told', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      fake.setWebhookEndpoint(receiver.url('/stripe'), FAKE_STRIPE_WEBHOOK_SECRET);
      await fake.deliverWebhooks(); // what earlier tests left
      const at = receiver.received.length;
      const { customer } = await customerPaying('pm_card_visa');
      await stripe.charge(chargeOf(customer));
      const deliveries = await fake.deliverWebhooks({ order: 'reversed', duplicates: true });
      assert.deepEqual(
        deliveries.map((d) => d.type),
        [
          'payment_intent.succeeded',
          'payment_intent.succeeded',
          'checkout.session.completed',
          'checkout.session.completed',
          'payment_method.attached',
          'payment_method.attached',
        ],
      );
      const events = receiver.received
        .slice(at)
        .map((r) => Stripe.webhooks.constructEvent(r.body, r.headers['stripe-signature']!, FAKE_STRIPE_WEBHOOK_SECRET, 300, undefined, NOW_MS));
      assert.deepEqual(
        events.map((e) => e.id),
        deliveries.map((d) => d.eventId),
      );
    } finally {
      await receiver.close();
    }
  });
});
