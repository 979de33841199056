import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { StripeFake, type TestCard } from '../../../test/helpers/stripe-fake.js';
import { addCard as addCardOf, iso, ok, stripeSeller, stripeSubscriber, type Seller, type StripeWorld } from '../../../test/helpers/stripe-seller.js';
import { boundCredentials } from '../authentication/bound-credentials.js';
import { runBilling } from './run-billing.js';
import { applyChargeOutcomes } from './collect-invoice.js';
import { billingOrigin } from './renew-subscription.js';
import { inTransaction } from '../../db/transaction.js';
import type { Db } from '../../db/database.js';

/**
 * Collection and dunning (issue 39) through the real server, on a test clock, against the Stripe
 * fake (STRIPE_API_BASE): an invoice collected automatically is charged when it is finalized; a
 * decline makes the subscription past due and is retried 3, 5 and 7 days after the first failure;
 * past the grace period the entitlement check answers PAYMENT_PAST_DUE; after the last retry the
 * workspace's rule cancels the subscription (keys revoked) or writes the invoice off; a new card
 * retries at once; a lost answer or a lost webhook is found by the reconciliation; webhooks in
 * any order, twice, change nothing more. Each with its invoice, subscription, entitlement, outbound
 * webhook and audit outcome.
 */

let fake: StripeFake;
let t: TestApp;
let base: string;

before(async () => {
  fake = await StripeFake.start({ clock: () => t.clock.now() });
  // A normal call to the fake never nears 3 s, even on a busy machine; a lost answer (the fake never answers) always reaches it.
  t = await createTestApp({ config: { stripeApiBase: fake.apiBase, stripeTimeoutMs: 3_000, paymentReconcileAfterMs: 60_000 } });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  await fake.close();
  await t.close();
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const JAN = Date.UTC(2026, 0, 10);
const world = (): StripeWorld => ({ t, fake, base });
const seller = (settings: Record<string, unknown> = {}) => stripeSeller(world(), JAN, { settings });
const addCard = (s: Seller, customerId: string, card: TestCard) => addCardOf(world(), s, customerId, card);

/** A customer on the seller's clock, with a card (or none), subscribed, with a product key bound to the subscription. */
async function subscriber(s: Seller, name: string, card: TestCard | null) {
  const b = await stripeSubscriber(world(), s, name, card);
  const key = await t.seed.productKey(s.ws.test, b.subscriptionId);
  return { ...b, keyId: key.id };
}

const advance = (s: Seller, to: number) => ok(s.api.post(`/api/v1/test_clocks/${s.clockId}/advance`, { frozenTime: iso(to) }));
const invoicesOf = async (s: Seller, subscriptionId: string) =>
  (await ok(s.api.get(`/api/v1/invoices?subscriptionId=${subscriptionId}&limit=100`))).data.sort((a: any, b: any) => (a.id < b.id ? -1 : 1));
const firstInvoice = async (s: Seller, subscriptionId: string) => (await invoicesOf(s, subscriptionId))[0];
const paymentsOf = async (s: Seller, invoiceId: string) => (await ok(s.api.get(`/api/v1/invoices/${invoiceId}/payments`))).data;
const check = async (s: Seller, customerId: string) => ok(s.api.get(`/v1/entitlements/check?accessorId=${customerId}&productId=${s.productId}`));
const subscription = (s: Seller, id: string) => ok(s.api.get(`/api/v1/subscriptions/${id}`));

async function auditTypes(s: Seller, targetId: string): Promise<string[]> {
  const rows = await t.deps.db
    .selectFrom('auditEvents')
    .select(['eventType'])
    .where('workspaceId', '=', s.ws.workspaceId)
    .where('targetId', '=', targetId)
    .orderBy('seq')
    .execute();
  return rows.map((r) => r.eventType);
}

async function webhookTypes(s: Seller, objectId: string): Promise<string[]> {
  const rows = await t.deps.db.selectFrom('webhookMessages').select(['eventType', 'body']).where('workspaceId', '=', s.ws.workspaceId).orderBy('seq').execute();
  return rows.filter((r) => (JSON.parse(r.body) as { data: { object: { id: string } } }).data.object.id === objectId).map((r) => r.eventType);
}

/** PaymentIntents that captured money for an invoice, at the fake. */
const chargesFor = (invoiceId: string) => fake.succeededPaymentIntents({ invoiceId });

describe('collection: charge_automatically', () => {
  it('a card that succeeds: charged at finalization, the invoice paid, one PaymentIntent; Stripe’s webhooks, twice and reversed, change nothing', async () => {
    const s = await seller();
    const b = await subscriber(s, 'payer', 'pm_card_visa');
    const draft = await firstInvoice(s, b.subscriptionId);
    assert.deepEqual([draft.status, draft.paymentStatus, draft.nextPaymentAttempt], ['draft', 'unpaid', null]);

    await advance(s, JAN + 2 * HOUR);
    const paid = await ok(s.api.get(`/api/v1/invoices/${draft.id}`));
    assert.deepEqual(
      [paid.status, paid.paymentStatus, paid.amountPaid, paid.amountRemaining, paid.attemptCount, paid.nextPaymentAttempt, paid.lastPaymentError],
      ['paid', 'paid', '30.00', '0.00', 1, null, null],
    );
    assert.equal(paid.paidAt, iso(JAN + 2 * HOUR), 'paid in the clock’s time');
    const [attempt] = await paymentsOf(s, draft.id);
    assert.deepEqual(
      [attempt.provider, attempt.status, attempt.amount, attempt.attempt, attempt.trigger, attempt.failureCode],
      ['stripe', 'succeeded', '30.00', 1, 'automatic', null],
    );
    assert.match(attempt.providerReference, /^pi_/);
    assert.equal(chargesFor(draft.id).length, 1);
    assert.equal(chargesFor(draft.id)[0]!.amount, 3000, 'in cents, exactly');

    for (const d of await fake.deliverWebhooks({ order: 'reversed', duplicates: true })) assert.equal(d.status, 200, JSON.stringify(d));
    const after = await ok(s.api.get(`/api/v1/invoices/${draft.id}`));
    assert.deepEqual([after.status, after.amountPaid, after.attemptCount], ['paid', '30.00', 1]);
    assert.equal((await paymentsOf(s, draft.id)).length, 1);
    assert.deepEqual(
      (await auditTypes(s, draft.id)).filter((x) => x.startsWith('invoice.')),
      ['invoice.created', 'invoice.finalized', 'invoice.paid'],
    );
    assert.deepEqual(await webhookTypes(s, draft.id), ['invoice.created', 'invoice.finalized', 'invoice.paid']);
    assert.equal((await subscription(s, b.subscriptionId)).status, 'ACTIVE');
    assert.deepEqual([(await check(s, b.customerId)).allowed, (await check(s, b.customerId)).reason], [true, 'OK']);
  });

  it('credits bought (issue 41): the purchase’s invoice is charged by the next run and its grant becomes active; a declined card leaves it pending, its invoice failed', async () => {
    const s = await seller();
    const b = await subscriber(s, 'buys credits', 'pm_card_visa');
    const declined = await subscriber(s, 'declined buyer', 'pm_card_chargeDeclined');
    const buy = async (customerId: string) =>
      ok(s.api.post('/api/v1/credit_grants', { customerId, currency: 'USD', amount: '50.00', cost: '45.00', source: 'purchased' }));
    const bought = await buy(b.customerId);
    const refused = await buy(declined.customerId);
    assert.deepEqual([bought.status, (await ok(s.api.get(`/api/v1/invoices/${bought.invoiceId}`))).nextPaymentAttempt], ['pending', iso(JAN)]);
    await advance(s, JAN + 10 * 60_000);
    const paid = await ok(s.api.get(`/api/v1/invoices/${bought.invoiceId}`));
    assert.deepEqual([paid.status, paid.amountPaid], ['paid', '45.00']);
    assert.equal(chargesFor(bought.invoiceId)[0]!.amount, 4500);
    const active = await ok(s.api.get(`/api/v1/credit_grants/${bought.id}`));
    assert.deepEqual([active.status, active.remaining], ['active', '50.00']);
    assert.deepEqual(await webhookTypes(s, bought.id), ['credits.granted', 'credits.topped_up']);
    assert.deepEqual(await auditTypes(s, bought.id), ['credit_grant.created', 'credit_grant.topped_up']);

    const failed = await ok(s.api.get(`/api/v1/invoices/${refused.invoiceId}`));
    assert.deepEqual([failed.status, failed.paymentStatus], ['finalized', 'failed']);
    assert.equal((await ok(s.api.get(`/api/v1/credit_grants/${refused.id}`))).status, 'pending');
    // Stripe's webhooks again change nothing: one top-up.
    for (const d of await fake.deliverWebhooks({ order: 'reversed', duplicates: true })) assert.equal(d.status, 200, JSON.stringify(d));
    const ledger = (await ok(s.api.get(`/api/v1/customers/${b.customerId}/credit_ledger`))).data;
    assert.deepEqual(
      ledger.map((e: any) => [e.type, e.amount]),
      [['top_up', '50.00']],
    );
  });

  it('one run collects several customers’ invoices together: each paid or failed as it would be alone, one PaymentIntent each', async () => {
    const s = await seller();
    const subs = [
      await subscriber(s, 'group-a', 'pm_card_visa'),
      await subscriber(s, 'group-b', 'pm_card_visa'),
      await subscriber(s, 'group-c', 'pm_card_chargeDeclined'),
      await subscriber(s, 'group-d', null),
      await subscriber(s, 'group-e', 'pm_card_mastercard'),
    ];
    const invoices = await Promise.all(subs.map((b) => firstInvoice(s, b.subscriptionId)));
    await advance(s, JAN + 2 * HOUR);
    const after = await Promise.all(invoices.map((i) => ok(s.api.get(`/api/v1/invoices/${i.id}`))));
    assert.deepEqual(
      after.map((i) => [i.status, i.paymentStatus, i.attemptCount, i.lastPaymentError?.code ?? null]),
      [
        ['paid', 'paid', 1, null],
        ['paid', 'paid', 1, null],
        ['finalized', 'failed', 1, 'card_declined'],
        ['finalized', 'failed', 1, 'no_payment_method'],
        ['paid', 'paid', 1, null],
      ],
    );
    assert.deepEqual(
      invoices.map((i) => chargesFor(i.id).length),
      [1, 1, 0, 0, 1],
    );
    assert.deepEqual(await Promise.all(subs.map(async (b) => (await subscription(s, b.subscriptionId)).status)), [
      'ACTIVE',
      'ACTIVE',
      'PAST_DUE',
      'PAST_DUE',
      'ACTIVE',
    ]);
    assert.deepEqual(await webhookTypes(s, invoices[0].id), ['invoice.created', 'invoice.finalized', 'invoice.paid']);
    assert.deepEqual(await webhookTypes(s, invoices[2].id), ['invoice.created', 'invoice.finalized', 'invoice.payment_failed']);
    assert.deepEqual(
      (await auditTypes(s, invoices[3].id)).filter((x) => x.startsWith('invoice.')),
      ['invoice.created', 'invoice.finalized', 'invoice.payment_failed'],
    );
    // The next run on the same instant makes no second attempt.
    await advance(s, JAN + 2 * HOUR + 1_000);
    assert.deepEqual(await Promise.all(invoices.map(async (i) => (await paymentsOf(s, i.id)).length)), [1, 1, 1, 1, 1]);
  });

  it('a chargeback (Stripe’s charge.dispute.created, twice): audited once as payment.disputed naming the invoice and the payment; the invoice stays paid', async () => {
    const s = await seller();
    const b = await subscriber(s, 'disputer', 'pm_card_visa');
    const invoice = await firstInvoice(s, b.subscriptionId);
    await advance(s, JAN + 2 * HOUR);
    const [attempt] = await paymentsOf(s, invoice.id);
    assert.equal(attempt.status, 'succeeded');
    await fake.deliverWebhooks();
    const dispute = fake.dispute(attempt.providerReference);
    for (const d of await fake.deliverWebhooks({ duplicates: true })) assert.equal(d.status, 200, JSON.stringify(d));
    const rows = await t.deps.db
      .selectFrom('auditEvents')
      .select(['eventType', 'severity', 'payload'])
      .where('workspaceId', '=', s.ws.workspaceId)
      .where('targetId', '=', invoice.id)
      .where('eventType', '=', 'payment.disputed')
      .execute();
    assert.equal(rows.length, 1, 'once, however often Stripe sends it');
    assert.equal(rows[0]!.severity, 'WARN');
    assert.deepEqual(JSON.parse(rows[0]!.payload), {
      paymentId: attempt.id,
      disputeId: dispute.id,
      amount: '30.00',
      currency: 'USD',
      reason: 'fraudulent',
      status: 'needs_response',
    });
    assert.equal((await ok(s.api.get(`/api/v1/invoices/${invoice.id}`))).status, 'paid');
  });

  it('a card that declines, then succeeds after the buyer adds a new one: past due, retried at once, recovered', async () => {
    const s = await seller();
    const b = await subscriber(s, 'decliner', 'pm_card_chargeDeclinedInsufficientFunds');
    const invoice = await firstInvoice(s, b.subscriptionId);
    await advance(s, JAN + 2 * HOUR);
    const failed = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual(
      [failed.status, failed.paymentStatus, failed.attemptCount, failed.lastPaymentError.code, failed.nextPaymentAttempt],
      ['finalized', 'failed', 1, 'insufficient_funds', iso(JAN + 2 * HOUR + 3 * DAY)],
    );
    const pastDue = await subscription(s, b.subscriptionId);
    assert.deepEqual([pastDue.status, pastDue.pastDueSince, pastDue.pastDueAccessUntil], ['PAST_DUE', iso(JAN + 2 * HOUR), iso(JAN + 2 * HOUR + 3 * DAY)]);
    assert.deepEqual([(await check(s, b.customerId)).allowed, (await check(s, b.customerId)).reason], [true, 'OK'], 'served during the grace period');
    assert.equal(chargesFor(invoice.id).length, 0);

    await addCard(s, b.customerId, 'pm_card_mastercard');
    const paid = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([paid.status, paid.paymentStatus, paid.attemptCount, paid.lastPaymentError, paid.nextPaymentAttempt], ['paid', 'paid', 2, null, null]);
    const attempts = await paymentsOf(s, invoice.id);
    assert.deepEqual(
      attempts.map((p: any) => [p.attempt, p.trigger, p.status, p.failureCode]),
      [
        [1, 'automatic', 'failed', 'insufficient_funds'],
        [2, 'card_updated', 'succeeded', null],
      ],
    );
    assert.equal(chargesFor(invoice.id).length, 1);
    const recovered = await subscription(s, b.subscriptionId);
    assert.deepEqual([recovered.status, recovered.pastDueSince, recovered.pastDueAccessUntil], ['ACTIVE', null, null]);
    assert.deepEqual(await webhookTypes(s, b.subscriptionId), ['subscription.created', 'subscription.past_due', 'subscription.recovered']);
    assert.deepEqual(await webhookTypes(s, invoice.id), ['invoice.created', 'invoice.finalized', 'invoice.payment_failed', 'invoice.paid']);
    assert.ok((await auditTypes(s, b.subscriptionId)).includes('subscription.past_due'));
    assert.ok((await auditTypes(s, invoice.id)).includes('invoice.payment_failed'));
    // Nothing is retried later: the schedule went with the payment.
    await advance(s, JAN + 10 * DAY);
    assert.equal((await paymentsOf(s, invoice.id)).length, 2);
  });

  it('a card that never succeeds: retried on days 3, 5 and 7; refused with PAYMENT_PAST_DUE after the grace; then cancelled, its key revoked', async () => {
    const s = await seller();
    const b = await subscriber(s, 'never', 'pm_card_chargeDeclined');
    const invoice = await firstInvoice(s, b.subscriptionId);
    const t0 = JAN + 2 * HOUR;
    await advance(s, t0);
    assert.equal((await ok(s.api.get(`/api/v1/invoices/${invoice.id}`))).nextPaymentAttempt, iso(t0 + 3 * DAY));

    await advance(s, t0 + 3 * DAY);
    let now = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([now.attemptCount, now.nextPaymentAttempt], [2, iso(t0 + 5 * DAY)]);
    const refused = await check(s, b.customerId);
    assert.deepEqual([refused.allowed, refused.reason], [false, 'PAYMENT_PAST_DUE'], 'the grace (3 days) is over');

    await advance(s, t0 + 5 * DAY);
    now = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([now.attemptCount, now.nextPaymentAttempt], [3, iso(t0 + 7 * DAY)]);

    await advance(s, t0 + 7 * DAY);
    now = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([now.status, now.paymentStatus, now.attemptCount, now.nextPaymentAttempt], ['finalized', 'failed', 4, null]);
    const cancelled = await subscription(s, b.subscriptionId);
    assert.equal(cancelled.status, 'CANCELLED');
    assert.equal(cancelled.cancellationDetails.cancel_channel, 'DUNNING');
    const key = await t.deps.db.selectFrom('apiKeys').select(['status']).where('id', '=', b.keyId).executeTakeFirstOrThrow();
    assert.equal(key.status, 'REVOKED');
    assert.equal((await check(s, b.customerId)).reason, 'NO_ACTIVE_SUBSCRIPTION');
    assert.deepEqual(
      (await paymentsOf(s, invoice.id)).map((p: any) => [p.attempt, p.trigger, p.status]),
      [
        [1, 'automatic', 'failed'],
        [2, 'retry', 'failed'],
        [3, 'retry', 'failed'],
        [4, 'retry', 'failed'],
      ],
    );
    assert.deepEqual(await webhookTypes(s, b.subscriptionId), ['subscription.created', 'subscription.past_due', 'subscription.cancelled']);
    assert.equal((await webhookTypes(s, invoice.id)).filter((x) => x === 'invoice.payment_failed').length, 4);
    assert.equal(chargesFor(invoice.id).length, 0);
  });

  it('mark_uncollectible as the final rule: the invoice is written off, the subscription serves again; a customer without a card fails as no_payment_method', async () => {
    const s = await seller({ paymentRetryDays: [2], pastDueGraceDays: 0, pastDueFinalAction: 'mark_uncollectible' });
    const b = await subscriber(s, 'cardless', null);
    const invoice = await firstInvoice(s, b.subscriptionId);
    const t0 = JAN + 2 * HOUR;
    await advance(s, t0);
    const failed = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([failed.paymentStatus, failed.lastPaymentError.code, failed.nextPaymentAttempt], ['failed', 'no_payment_method', iso(t0 + 2 * DAY)]);
    assert.equal((await check(s, b.customerId)).reason, 'PAYMENT_PAST_DUE', 'no grace');
    await advance(s, t0 + 2 * DAY);
    const written = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([written.status, written.markedUncollectibleAt, written.attemptCount], ['uncollectible', iso(t0 + 2 * DAY), 2]);
    assert.equal((await subscription(s, b.subscriptionId)).status, 'ACTIVE');
    assert.deepEqual([(await check(s, b.customerId)).allowed, (await check(s, b.customerId)).reason], [true, 'OK']);
    assert.deepEqual(await webhookTypes(s, b.subscriptionId), ['subscription.created', 'subscription.past_due', 'subscription.recovered']);
    assert.equal(fake.requestsTo('POST', '/v1/payment_intents').filter((r) => r.params.metadata?.invoiceId === invoice.id).length, 0, 'nothing to charge');
  });

  it('a lost answer (a timeout after Stripe charged): the attempt stays pending, no second attempt is made; the reconciliation finds the one charge', async () => {
    const s = await seller();
    const b = await subscriber(s, 'lost', 'pm_card_visa');
    const invoice = await firstInvoice(s, b.subscriptionId);
    fake.failNext('timeout-after-execute', { method: 'POST', path: '/v1/payment_intents' });
    await advance(s, JAN + 2 * HOUR);
    const pending = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([pending.status, pending.paymentStatus, pending.attemptCount], ['finalized', 'processing', 1]);
    assert.equal((await paymentsOf(s, invoice.id))[0].status, 'pending');
    assert.equal(chargesFor(invoice.id).length, 1, 'Stripe charged');

    // The next runs make no second attempt while one is in flight, and ask nothing before the bound.
    await runBilling(t.deps, boundCredentials, { testClock: null });
    assert.equal((await paymentsOf(s, invoice.id)).length, 1);
    t.clock.advance(61_000);
    const run = await runBilling(t.deps, boundCredentials, { testClock: null });
    assert.ok(run.reconciled >= 1, JSON.stringify(run));
    const paid = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([paid.status, paid.amountPaid, paid.attemptCount], ['paid', '30.00', 1]);
    assert.equal(chargesFor(invoice.id).length, 1, 'the same charge, not a second');
    const sent = fake.requestsTo('POST', '/v1/payment_intents').filter((r) => r.params.metadata?.invoiceId === invoice.id);
    assert.equal(new Set(sent.map((r) => r.idempotencyKey)).size, 1, 'sent again under the same key');
    assert.ok(sent.some((r) => r.replayed));
  });

  it('a lost answer that Stripe’s webhook settles before the reconciliation: paid once, the later reconciliation changes nothing', async () => {
    const s = await seller();
    const b = await subscriber(s, 'hooked', 'pm_card_visa');
    const invoice = await firstInvoice(s, b.subscriptionId);
    fake.failNext('timeout-after-execute', { method: 'POST', path: '/v1/payment_intents' });
    await advance(s, JAN + 2 * HOUR);
    assert.equal((await paymentsOf(s, invoice.id))[0].status, 'pending');
    for (const d of await fake.deliverWebhooks({ order: 'reversed', duplicates: true })) assert.equal(d.status, 200, JSON.stringify(d));
    const paid = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([paid.status, paid.amountPaid], ['paid', '30.00']);
    assert.match((await paymentsOf(s, invoice.id))[0].providerReference, /^pi_/);
    t.clock.advance(61_000);
    await runBilling(t.deps, boundCredentials, { testClock: null });
    assert.deepEqual(await webhookTypes(s, invoice.id), ['invoice.created', 'invoice.finalized', 'invoice.paid']);
    assert.equal(chargesFor(invoice.id).length, 1);
  });

  it('two periods closed in one advance: both invoices of one subscription charged in one group, each paid once; two declines make it past due once', async () => {
    const s = await seller();
    const payer = await subscriber(s, 'two-periods', 'pm_card_visa');
    const decliner = await subscriber(s, 'two-declines', 'pm_card_chargeDeclined');
    await advance(s, JAN + 40 * DAY);
    const paid = await invoicesOf(s, payer.subscriptionId);
    assert.ok(paid.length >= 2, `${paid.length} invoices`);
    for (const i of paid.filter((x: any) => x.status !== 'draft')) {
      assert.deepEqual([i.status, i.attemptCount], ['paid', 1]);
      assert.equal(chargesFor(i.id).length, 1);
    }
    const failed = (await invoicesOf(s, decliner.subscriptionId)).filter((x: any) => x.status !== 'draft');
    assert.ok(failed.length >= 2, `${failed.length} invoices`);
    for (const i of failed) assert.deepEqual([i.status, i.paymentStatus], ['finalized', 'failed']);
    assert.equal((await subscription(s, decliner.subscriptionId)).status, 'PAST_DUE');
    assert.equal((await webhookTypes(s, decliner.subscriptionId)).filter((x) => x === 'subscription.past_due').length, 1);
  });

  it('a group of outcomes whose transaction fails is applied again one by one: each invoice paid once', async () => {
    const s = await seller();
    const subs = [await subscriber(s, 'fallback-a', 'pm_card_visa'), await subscriber(s, 'fallback-b', 'pm_card_visa')];
    const invoices = await Promise.all(subs.map((b) => firstInvoice(s, b.subscriptionId)));
    await fake.setDown(true);
    try {
      await advance(s, JAN + 2 * HOUR);
    } finally {
      await fake.setDown(false);
    }
    const attempts = await Promise.all(invoices.map(async (i) => (await paymentsOf(s, i.id))[0]));
    assert.deepEqual(
      attempts.map((p) => p.status),
      ['pending', 'pending'],
    );
    const tenant = { workspaceId: s.ws.workspaceId, environment: 'test' as const };
    let transactions = 0;
    const failingFirst = async <T>(fn: (trx: Db) => Promise<T>): Promise<T> => {
      transactions += 1;
      if (transactions === 1) throw new Error('the group’s transaction failed');
      return inTransaction(t.deps.db, fn);
    };
    const outcomes = attempts.map((p, k) => ({
      paymentId: p.id as string,
      result: {
        providerReference: `pi_fallback_${k}`,
        status: 'succeeded' as const,
        amount: p.amount,
        currency: p.currency,
        failureCode: null,
        failureMessage: null,
        actionUrl: null,
      },
    }));
    const applied = await applyChargeOutcomes(t.deps, { bound: boundCredentials }, tenant, outcomes, billingOrigin(t.deps, tenant), failingFirst);
    assert.equal(transactions, 3, 'the group, then each alone');
    assert.deepEqual(
      applied.map((r) => [r.invoice.status, r.payment?.status]),
      [
        ['paid', 'succeeded'],
        ['paid', 'succeeded'],
      ],
    );
    for (const i of invoices) assert.deepEqual(await webhookTypes(s, i.id), ['invoice.created', 'invoice.finalized', 'invoice.paid']);
  });

  it('Stripe unreachable at finalization: the attempt waits, pending, and the reconciliation charges once it answers', async () => {
    const s = await seller();
    const b = await subscriber(s, 'offline', 'pm_card_visa');
    const invoice = await firstInvoice(s, b.subscriptionId);
    await fake.setDown(true);
    try {
      await advance(s, JAN + 2 * HOUR);
    } finally {
      await fake.setDown(false);
    }
    assert.equal((await paymentsOf(s, invoice.id))[0].status, 'pending');
    assert.equal(chargesFor(invoice.id).length, 0);
    t.clock.advance(61_000);
    await runBilling(t.deps, boundCredentials, { testClock: null });
    assert.equal((await ok(s.api.get(`/api/v1/invoices/${invoice.id}`))).status, 'paid');
    assert.equal(chargesFor(invoice.id).length, 1);
  });

  it('a subscription’s own collection method wins over the workspace’s: send_invoice there, nothing charged, a due date instead', async () => {
    const s = await seller();
    const customer = await ok(s.api.post('/api/v1/customers', { name: 'own', externalId: 'own', testClockId: s.clockId }));
    await addCard(s, customer.id, 'pm_card_visa');
    const sub = await ok(s.api.post('/api/v1/subscriptions', { customerId: customer.id, offeringId: s.offeringId, collectionMethod: 'send_invoice' }));
    assert.equal(sub.collectionMethod, 'send_invoice');
    const invoice = await firstInvoice(s, sub.id);
    assert.equal(invoice.collectionMethod, 'send_invoice');
    await advance(s, JAN + 2 * HOUR);
    const open = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([open.status, open.attemptCount, open.dueDate], ['finalized', 0, iso(JAN + 2 * HOUR + 30 * DAY)]);
    assert.equal(chargesFor(invoice.id).length, 0);
    const back = await ok(s.api.patch(`/api/v1/subscriptions/${sub.id}`, { collectionMethod: null }));
    assert.equal(back.collectionMethod, null);
    const bad = await s.api.patch(`/api/v1/subscriptions/${sub.id}`, { collectionMethod: 'by_carrier_pigeon' });
    assert.deepEqual([bad.status, bad.body.errors[0].field], [400, 'body.collectionMethod']);
  });

  it('send_invoice and a workspace without Stripe: nothing is charged', async () => {
    const s = await seller({ collectionMethod: 'send_invoice' });
    const b = await subscriber(s, 'invoiced', 'pm_card_visa');
    const invoice = await firstInvoice(s, b.subscriptionId);
    await advance(s, JAN + 2 * HOUR);
    const open = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([open.status, open.paymentStatus, open.attemptCount, open.nextPaymentAttempt], ['finalized', 'unpaid', 0, null]);
    assert.equal(chargesFor(invoice.id).length, 0);
  });
});

describe('POST /api/v1/invoices/{id}/attempt_payment (retry now)', () => {
  it('a card that needs 3-D Secure: requires_action off-session; retried now with a returnUrl it gives Stripe’s page; authenticated, Stripe’s webhook pays it', async () => {
    const s = await seller();
    const b = await subscriber(s, 'secure', 'pm_card_authenticationRequired');
    const invoice = await firstInvoice(s, b.subscriptionId);
    await advance(s, JAN + 2 * HOUR);
    const waiting = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([waiting.paymentStatus, waiting.lastPaymentError.code, waiting.paymentActionUrl], ['requires_action', 'authentication_required', null]);
    assert.equal((await subscription(s, b.subscriptionId)).status, 'PAST_DUE');
    assert.ok((await webhookTypes(s, invoice.id)).includes('invoice.payment_action_required'));

    const now = await ok(s.api.post(`/api/v1/invoices/${invoice.id}/attempt_payment`, { returnUrl: 'https://seller.example/paid' }));
    assert.deepEqual([now.status, now.attempt, now.trigger], ['requires_action', 2, 'manual_retry']);
    assert.match(now.actionUrl, /\/fake\/authenticate\/pi_/);
    assert.equal(now.invoice.paymentActionUrl, now.actionUrl);
    // Another attempt withdraws the page of this one (cancelled at Stripe): two can never both succeed.
    const again = await ok(s.api.post(`/api/v1/invoices/${invoice.id}/attempt_payment`, { returnUrl: 'https://seller.example/paid' }));
    assert.deepEqual([again.status, again.attempt], ['requires_action', 3]);
    assert.equal(fake.paymentIntents.get(now.providerReference)!.status, 'canceled');
    const attempts = await paymentsOf(s, invoice.id);
    assert.deepEqual(
      attempts.map((p: any) => [p.attempt, p.status, p.failureCode]),
      [
        [1, 'failed', 'canceled'],
        [2, 'failed', 'canceled'],
        [3, 'requires_action', null],
      ],
    );

    fake.completeAuthentication(again.providerReference, 'succeed');
    for (const d of await fake.deliverWebhooks()) assert.equal(d.status, 200, JSON.stringify(d));
    const paid = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([paid.status, paid.paymentStatus, paid.amountPaid], ['paid', 'paid', '30.00']);
    assert.equal(chargesFor(invoice.id).length, 1);
    assert.equal((await subscription(s, b.subscriptionId)).status, 'ACTIVE');

    const done = await s.api.post(`/api/v1/invoices/${invoice.id}/attempt_payment`, {});
    assert.equal(done.status, 409);
    assert.match(done.body.errors[0].message, /is paid/);
    assert.equal((await s.api.post('/api/v1/invoices/inv_nothing/attempt_payment', {})).status, 404);
    const bad = await s.api.post(`/api/v1/invoices/${invoice.id}/attempt_payment`, { returnUrl: 'javascript:alert(1)' });
    assert.deepEqual([bad.status, bad.body.errors[0].field], [400, 'body.returnUrl']);
  });

  it('409 while an attempt is in flight, and without Stripe connected', async () => {
    const s = await seller();
    const b = await subscriber(s, 'inflight', 'pm_card_visa');
    const invoice = await firstInvoice(s, b.subscriptionId);
    fake.failNext('timeout-after-execute', { method: 'POST', path: '/v1/payment_intents' });
    await advance(s, JAN + 2 * HOUR);
    const busy = await s.api.post(`/api/v1/invoices/${invoice.id}/attempt_payment`, {});
    assert.equal(busy.status, 409);
    assert.match(busy.body.errors[0].message, /in flight/);
    await ok(s.api.delete('/api/v1/payment_providers/stripe'));
    t.clock.advance(61_000);
    await runBilling(t.deps, boundCredentials, { testClock: null });
    assert.equal(chargesFor(invoice.id).length, 1, 'charged once, at Stripe');
    const none = await s.api.post(`/api/v1/invoices/${invoice.id}/attempt_payment`, {});
    assert.equal(none.status, 409);
  });
});

describe('plan changes pay first (Stripe’s pending_if_incomplete)', () => {
  const upgrade = (s: Seller, subscriptionId: string, key: string, body: Record<string, unknown> = {}) =>
    s.api.post(`/api/v1/subscriptions/${subscriptionId}/upgrade`, { offeringId: s.scaleId, ...body }, { 'idempotency-key': key });

  it('an upgrade whose payment succeeds takes effect at once, charged once', async () => {
    const s = await seller();
    const b = await subscriber(s, 'upgrader', 'pm_card_visa');
    await advance(s, JAN + 2 * HOUR);
    await advance(s, JAN + 10 * DAY);
    const res = await upgrade(s, b.subscriptionId, 'up-1');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      [res.body.payment.status, res.body.status, res.body.subscription.offeringId, res.body.subscription.pendingUpdate],
      ['succeeded', 'ACTIVE', s.scaleId, null],
    );
    assert.equal(res.body.effectiveAt, iso(JAN + 10 * DAY));
    const invoice = await ok(s.api.get(`/api/v1/invoices/${res.body.invoiceId}`));
    assert.deepEqual([invoice.status, invoice.billingReason], ['paid', 'subscription_update']);
    assert.equal(chargesFor(invoice.id).length, 1);
    assert.deepEqual(
      (await paymentsOf(s, invoice.id)).map((p: any) => p.trigger),
      ['plan_change'],
    );
    assert.ok((await webhookTypes(s, b.subscriptionId)).includes('subscription.upgraded'));
  });

  it('an upgrade whose payment fails waits on the old offering; the same key again never charges; a new card pays it and the change takes effect', async () => {
    const s = await seller();
    const b = await subscriber(s, 'hopeful', 'pm_card_visa');
    await advance(s, JAN + 2 * HOUR);
    await addCard(s, b.customerId, 'pm_card_chargeDeclined');
    await advance(s, JAN + 10 * DAY);
    const res = await upgrade(s, b.subscriptionId, 'up-2');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.payment.status, res.body.payment.failureCode, res.body.effectiveAt], ['failed', 'card_declined', null]);
    assert.equal(res.body.subscription.offeringId, s.offeringId, 'still on the old offering');
    assert.deepEqual([res.body.subscription.pendingUpdate.offeringId, res.body.subscription.pendingUpdate.invoiceId], [s.scaleId, res.body.invoiceId]);
    assert.equal(res.body.subscription.status, 'ACTIVE', 'a failed change does not make the subscription past due');
    assert.ok(!(await webhookTypes(s, b.subscriptionId)).includes('subscription.upgraded'));
    const before = fake.requestsTo('POST', '/v1/payment_intents').length;
    const replay = await upgrade(s, b.subscriptionId, 'up-2');
    assert.deepEqual([replay.status, replay.headers['idempotent-replayed']], [200, 'true']);
    assert.equal(fake.requestsTo('POST', '/v1/payment_intents').length, before, 'the replay charged nothing');
    // Nor does the billing run: the change's invoice is the request's to charge.
    await advance(s, JAN + 10 * DAY + HOUR);
    assert.equal(fake.requestsTo('POST', '/v1/payment_intents').length, before);

    await addCard(s, b.customerId, 'pm_card_visa');
    const sub = await subscription(s, b.subscriptionId);
    assert.deepEqual([sub.offeringId, sub.pendingUpdate], [s.scaleId, null]);
    assert.equal((await ok(s.api.get(`/api/v1/invoices/${res.body.invoiceId}`))).status, 'paid');
    assert.equal(chargesFor(res.body.invoiceId).length, 1);
    assert.ok((await webhookTypes(s, b.subscriptionId)).includes('subscription.upgraded'));
  });

  it('a change that needs the buyer gives Stripe’s page; authenticated, it takes effect; one never paid is dropped after 23 hours and its invoice voided', async () => {
    const s = await seller();
    const b = await subscriber(s, 'secure-up', 'pm_card_visa');
    await advance(s, JAN + 2 * HOUR);
    await addCard(s, b.customerId, 'pm_card_authenticationRequired');
    await advance(s, JAN + 10 * DAY);
    const res = await upgrade(s, b.subscriptionId, 'up-3', { returnUrl: 'https://seller.example/plans' });
    assert.equal(res.body.payment.status, 'requires_action', JSON.stringify(res.body));
    assert.match(res.body.payment.actionUrl, /\/fake\/authenticate\/pi_/);
    const pi = (await paymentsOf(s, res.body.invoiceId))[0].providerReference;
    fake.completeAuthentication(pi, 'succeed');
    for (const d of await fake.deliverWebhooks()) assert.equal(d.status, 200, JSON.stringify(d));
    assert.equal((await subscription(s, b.subscriptionId)).offeringId, s.scaleId);

    const c = await subscriber(s, 'never-up', 'pm_card_visa');
    await advance(s, JAN + 10 * DAY + 2 * HOUR);
    await addCard(s, c.customerId, 'pm_card_chargeDeclined');
    const failed = await upgrade(s, c.subscriptionId, 'up-4');
    assert.equal(failed.body.payment.status, 'failed');
    await advance(s, JAN + 11 * DAY + 3 * HOUR);
    const dropped = await subscription(s, c.subscriptionId);
    assert.deepEqual([dropped.offeringId, dropped.pendingUpdate], [s.offeringId, null]);
    assert.equal((await ok(s.api.get(`/api/v1/invoices/${failed.body.invoiceId}`))).status, 'void');
    assert.ok((await auditTypes(s, c.subscriptionId)).includes('subscription.change_expired'));
  });
});

describe('billing settings: dunning', () => {
  it('defaults 3, 5, 7 days, 3 days of grace, cancel; a schedule out of order is refused naming body.paymentRetryDays', async () => {
    const s = await seller();
    const settings = await ok(s.api.get('/api/v1/billing/settings'));
    assert.deepEqual([settings.paymentRetryDays, settings.pastDueGraceDays, settings.pastDueFinalAction], [[3, 5, 7], 3, 'cancel_subscription']);
    const bad = await s.api.patch('/api/v1/billing/settings', { paymentRetryDays: [5, 3] });
    assert.deepEqual([bad.status, bad.body.errors[0].field], [400, 'body.paymentRetryDays']);
    const tooLong = await s.api.patch('/api/v1/billing/settings', { paymentRetryDays: [1, 2, 3, 4, 5, 6, 7, 8, 9] });
    assert.equal(tooLong.status, 400);
    const set = await ok(s.api.patch('/api/v1/billing/settings', { paymentRetryDays: [1, 4], pastDueGraceDays: 7, pastDueFinalAction: 'mark_uncollectible' }));
    assert.deepEqual([set.paymentRetryDays, set.pastDueGraceDays, set.pastDueFinalAction], [[1, 4], 7, 'mark_uncollectible']);
  });
});
