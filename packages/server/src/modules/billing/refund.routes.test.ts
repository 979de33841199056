import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { FAKE_STRIPE_SECRET_KEY, StripeFake, type TestCard } from '../../../test/helpers/stripe-fake.js';
import { iso, ok, stripeSeller, stripeSubscriber, type Seller, type StripeWorld } from '../../../test/helpers/stripe-seller.js';
import { boundCredentials } from '../authentication/bound-credentials.js';
import { runBilling } from './run-billing.js';

/**
 * Refunds (issue 39, item 7) through the real server, on a test clock, against the Stripe fake: a
 * credit note on a paid invoice refunds through Stripe (full, or partial credit notes adding up),
 * never more than was paid and not yet refunded (400 naming body.refund.amount); Stripe down
 * leaves the refund pending until the reconciliation refunds it once; Stripe's charge.refunded,
 * twice and reversed, is counted once; a manual payment is refunded out of band; a credit to the
 * customer's balance is spent by their next invoice, and Stripe charges only the rest. The seller
 * and its subscribers are test/helpers/stripe-seller.ts's.
 */

let fake: StripeFake;
let t: TestApp;
let base: string;

before(async () => {
  fake = await StripeFake.start({ clock: () => t.clock.now() });
  t = await createTestApp({ config: { stripeApiBase: fake.apiBase, stripeTimeoutMs: 3_000, paymentReconcileAfterMs: 60_000 } });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  await fake.close();
  await t.close();
});

const HOUR = 3_600_000;
const JAN = Date.UTC(2026, 0, 10);
const FEB = Date.UTC(2026, 1, 10);
const MAR = Date.UTC(2026, 2, 10);
const world = (): StripeWorld => ({ t, fake, base });
const seller = (settings: Record<string, unknown> = {}) => stripeSeller(world(), JAN, { settings });
const subscriber = (s: Seller, name: string, card: TestCard | null) => stripeSubscriber(world(), s, name, card);

const advance = (s: Seller, to: number) => ok(s.api.post(`/api/v1/test_clocks/${s.clockId}/advance`, { frozenTime: iso(to) }));
const invoicesOf = async (s: Seller, subscriptionId: string) =>
  (await ok(s.api.get(`/api/v1/invoices?subscriptionId=${subscriptionId}&limit=100`))).data.sort((a: any, b: any) => (a.id < b.id ? -1 : 1));
const paymentsOf = async (s: Seller, invoiceId: string) => (await ok(s.api.get(`/api/v1/invoices/${invoiceId}/payments`))).data;
const payment = (s: Seller, id: string) => ok(s.api.get(`/api/v1/payments/${id}`));
const creditNotesOf = async (s: Seller, invoiceId: string) => (await ok(s.api.get(`/api/v1/credit_notes?invoiceId=${invoiceId}&limit=100`))).data;
const creditNote = (s: Seller, invoiceId: string, amount: string, refund?: Record<string, unknown>, headers?: Record<string, string>) =>
  s.api.post(
    '/api/v1/credit_notes',
    { invoiceId, reason: 'product_unsatisfactory', lines: [{ description: 'Goodwill', amount }], ...(refund ? { refund } : {}) },
    headers,
  );

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

async function webhooksOf(s: Seller, objectId: string): Promise<Array<{ type: string; data: any }>> {
  const rows = await t.deps.db.selectFrom('webhookMessages').select(['eventType', 'body']).where('workspaceId', '=', s.ws.workspaceId).orderBy('seq').execute();
  return rows
    .map((r) => ({ type: r.eventType, data: (JSON.parse(r.body) as { data: { object: { id: string } } }).data }))
    .filter((m) => m.data.object.id === objectId);
}

/** Refunds made at the fake of one PaymentIntent, in cents. */
const stripeRefundsOf = (pi: string) => [...fake.refunds.values()].filter((r) => r.payment_intent === pi).map((r) => r.amount as number);

/** A refund made in Stripe's dashboard, outside Tollgate: only charge.refunded tells us. */
async function refundAtStripe(pi: string, cents: number): Promise<void> {
  const res = await fetch(`${fake.apiBase}/v1/refunds`, {
    method: 'POST',
    headers: { authorization: `Bearer ${FAKE_STRIPE_SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: `payment_intent=${pi}&amount=${cents}`,
  });
  assert.equal(res.status, 200, await res.text());
}

/** A subscriber whose first invoice (30.00) Stripe charged: the invoice and its one payment. */
async function paidByStripe(s: Seller, name: string) {
  const b = await subscriber(s, name, 'pm_card_visa');
  await advance(s, JAN + 2 * HOUR);
  const [invoice] = await invoicesOf(s, b.subscriptionId);
  assert.deepEqual([invoice.status, invoice.amountPaid], ['paid', '30.00']);
  const [paid] = await paymentsOf(s, invoice.id);
  // Stripe's earlier events (the charge) are not what these tests are about.
  for (const d of await fake.deliverWebhooks()) assert.equal(d.status, 200, JSON.stringify(d));
  return { ...b, invoice, payment: paid };
}

describe('POST /api/v1/credit_notes with refund: provider', () => {
  it('200 a full refund through Stripe, once: the payment shows it, payment.refunded once; a replay and Stripe’s charge.refunded, twice and reversed, change nothing', async () => {
    const s = await seller();
    const { invoice, payment: paid } = await paidByStripe(s, 'full');
    const res = await creditNote(s, invoice.id, '30.00', { method: 'provider' }, { 'idempotency-key': 'refund-full-1' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.total, '30.00');
    assert.deepEqual(
      res.body.refunds.map((r: any) => [r.method, r.status, r.amount, r.paymentId, r.creditNoteId]),
      [['provider', 'succeeded', '30.00', paid.id, res.body.id]],
    );
    assert.match(res.body.refunds[0].providerReference, /^re_/);
    assert.deepEqual(stripeRefundsOf(paid.providerReference), [3000]);
    const sent = fake.requestsTo('POST', '/v1/refunds').filter((r) => r.params.payment_intent === paid.providerReference);
    assert.deepEqual(
      sent.map((r) => r.idempotencyKey),
      [`tollgate-${res.body.id}-refund-${paid.id}`],
    );
    assert.equal((await payment(s, paid.id)).amountRefunded, '30.00');

    const replay = await creditNote(s, invoice.id, '30.00', { method: 'provider' }, { 'idempotency-key': 'refund-full-1' });
    assert.equal(replay.status, 200, JSON.stringify(replay.body));
    assert.equal(replay.body.id, res.body.id);
    assert.equal(replay.body.refunds[0].status, 'succeeded');

    for (const d of await fake.deliverWebhooks({ order: 'reversed', duplicates: true })) assert.equal(d.status, 200, JSON.stringify(d));
    assert.deepEqual(stripeRefundsOf(paid.providerReference), [3000], 'one refund at Stripe');
    assert.equal((await payment(s, paid.id)).amountRefunded, '30.00');
    const messages = await webhooksOf(s, paid.id);
    assert.deepEqual(
      messages.map((m) => [m.type, m.data.object.amountRefunded, m.data.previousAttributes?.amountRefunded]),
      [['payment.refunded', '30.00', '0.00']],
    );
    assert.deepEqual(await auditTypes(s, paid.id), ['payment.refunded']);
    const inv = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([inv.status, inv.creditedTotal, inv.amountPaid], ['paid', '30.00', '30.00']);
  });

  it('200 partial refunds add up (a refund smaller than its credit note too); one made in Stripe’s dashboard counts; 400 naming body.refund.amount beyond what is left', async () => {
    const s = await seller();
    const { invoice, payment: paid } = await paidByStripe(s, 'partial');
    const pi = paid.providerReference as string;
    const first = await ok(creditNote(s, invoice.id, '10.00', { method: 'provider' }));
    assert.deepEqual(
      first.refunds.map((r: any) => [r.status, r.amount]),
      [['succeeded', '10.00']],
    );
    const second = await ok(creditNote(s, invoice.id, '8.00', { method: 'provider', amount: '5.00' }));
    assert.deepEqual(
      second.refunds.map((r: any) => [r.status, r.amount]),
      [['succeeded', '5.00']],
    );
    assert.equal((await payment(s, paid.id)).amountRefunded, '15.00');
    assert.deepEqual(stripeRefundsOf(pi), [1000, 500]);

    // 10.00 more refunded in Stripe's dashboard: Stripe's count (25.00) arrives with charge.refunded, in any order.
    await refundAtStripe(pi, 1000);
    for (const d of await fake.deliverWebhooks({ order: 'reversed', duplicates: true })) assert.equal(d.status, 200, JSON.stringify(d));
    assert.equal((await payment(s, paid.id)).amountRefunded, '25.00');

    const notesBefore = (await creditNotesOf(s, invoice.id)).length;
    const over = await creditNote(s, invoice.id, '7.00', { method: 'provider' });
    assert.equal(over.status, 400, JSON.stringify(over.body));
    assert.equal(over.body.errors[0].field, 'body.refund.amount');
    assert.match(over.body.errors[0].message, /5\.00 USD/);
    const moreThanTheNote = await creditNote(s, invoice.id, '4.00', { method: 'provider', amount: '4.50' });
    assert.equal(moreThanTheNote.status, 400, JSON.stringify(moreThanTheNote.body));
    assert.equal(moreThanTheNote.body.errors[0].field, 'body.refund.amount');
    assert.equal((await creditNotesOf(s, invoice.id)).length, notesBefore, 'a refused refund issues no credit note');

    const last = await ok(creditNote(s, invoice.id, '5.00', { method: 'provider' }));
    assert.equal(last.refunds[0].status, 'succeeded');
    assert.deepEqual(stripeRefundsOf(pi), [1000, 500, 1000, 500]);
    // Our refunds add up to 20.00 of Stripe's 30.00: the dashboard's part shows again with Stripe's next count.
    for (const d of await fake.deliverWebhooks({ duplicates: true })) assert.equal(d.status, 200, JSON.stringify(d));
    assert.equal((await payment(s, paid.id)).amountRefunded, '30.00');
    assert.deepEqual(
      (await webhooksOf(s, paid.id)).map((m) => [m.data.previousAttributes?.amountRefunded, m.data.object.amountRefunded]),
      [
        ['0.00', '10.00'],
        ['10.00', '15.00'],
        ['15.00', '25.00'],
        ['25.00', '30.00'],
      ],
      'one payment.refunded per growth, whoever reported it',
    );
  });

  it('200 with Stripe down: the credit note is issued, its refund pending; the reconciliation refunds once when Stripe answers', async () => {
    const s = await seller();
    const { invoice, payment: paid } = await paidByStripe(s, 'offline');
    await fake.setDown(true);
    let body: any;
    try {
      body = await ok(creditNote(s, invoice.id, '30.00', { method: 'provider' }));
    } finally {
      await fake.setDown(false);
    }
    assert.deepEqual(
      body.refunds.map((r: any) => [r.status, r.providerReference]),
      [['pending', null]],
    );
    assert.equal((await payment(s, paid.id)).amountRefunded, '0.00');
    assert.equal((await ok(s.api.get(`/api/v1/credit_notes/${body.id}`))).status, 'issued');

    await runBilling(t.deps, boundCredentials, { testClock: null });
    assert.equal((await ok(s.api.get(`/api/v1/refunds/${body.refunds[0].id}`))).status, 'pending', 'not before the bound');
    t.clock.advance(61_000);
    const run = await runBilling(t.deps, boundCredentials, { testClock: null });
    assert.ok(run.reconciled >= 1, JSON.stringify(run));
    const refund = await ok(s.api.get(`/api/v1/refunds/${body.refunds[0].id}`));
    assert.equal(refund.status, 'succeeded');
    assert.equal((await payment(s, paid.id)).amountRefunded, '30.00');
    t.clock.advance(61_000);
    await runBilling(t.deps, boundCredentials, { testClock: null });
    assert.deepEqual(stripeRefundsOf(paid.providerReference), [3000]);
    assert.deepEqual(
      (await webhooksOf(s, paid.id)).map((m) => m.type),
      ['payment.refunded'],
    );
    const listed = await ok(s.api.get(`/api/v1/refunds?creditNoteId=${body.id}`));
    assert.deepEqual(
      listed.data.map((r: any) => r.id),
      [refund.id],
    );
  });

  it('200 with the answer lost after Stripe refunded: pending; Stripe’s charge.refunded counts it, the reconciliation finds the same refund (replayed), nothing twice', async () => {
    const s = await seller();
    const { invoice, payment: paid } = await paidByStripe(s, 'lost');
    fake.failNext('timeout-after-execute', { method: 'POST', path: '/v1/refunds' });
    const body = await ok(creditNote(s, invoice.id, '12.00', { method: 'provider' }));
    assert.equal(body.refunds[0].status, 'pending');
    assert.deepEqual(stripeRefundsOf(paid.providerReference), [1200], 'Stripe refunded');
    for (const d of await fake.deliverWebhooks({ order: 'reversed', duplicates: true })) assert.equal(d.status, 200, JSON.stringify(d));
    assert.equal((await payment(s, paid.id)).amountRefunded, '12.00');

    t.clock.advance(61_000);
    await runBilling(t.deps, boundCredentials, { testClock: null });
    const refund = await ok(s.api.get(`/api/v1/refunds/${body.refunds[0].id}`));
    assert.equal(refund.status, 'succeeded');
    assert.match(refund.providerReference, /^re_/);
    assert.deepEqual(stripeRefundsOf(paid.providerReference), [1200], 'the same refund, not a second');
    const sent = fake.requestsTo('POST', '/v1/refunds').filter((r) => r.params.payment_intent === paid.providerReference);
    assert.equal(new Set(sent.map((r) => r.idempotencyKey)).size, 1, 'sent again under the same key');
    assert.equal((await payment(s, paid.id)).amountRefunded, '12.00');
    assert.equal((await webhooksOf(s, paid.id)).length, 1);
  });
});

describe('POST /api/v1/credit_notes with refund: out_of_band and the 400s', () => {
  it('a manual payment is refunded out of band (no Stripe call); through the provider it is a 400; refund on an open invoice is a 400 naming body.refund', async () => {
    const s = await seller({ collectionMethod: 'send_invoice' });
    const b = await subscriber(s, 'manual', null);
    await advance(s, JAN + 2 * HOUR);
    const [invoice] = await invoicesOf(s, b.subscriptionId);
    assert.equal(invoice.status, 'finalized');

    const open = await creditNote(s, invoice.id, '5.00', { method: 'out_of_band' });
    assert.equal(open.status, 400, JSON.stringify(open.body));
    assert.equal(open.body.errors[0].field, 'body.refund');

    const recorded = await ok(s.api.post(`/api/v1/invoices/${invoice.id}/payments`, { amount: '30.00', reference: 'wire 1' }));
    const viaStripe = await creditNote(s, invoice.id, '10.00', { method: 'provider' });
    assert.equal(viaStripe.status, 400, JSON.stringify(viaStripe.body));
    assert.equal(viaStripe.body.errors[0].field, 'body.refund.amount');
    assert.match(viaStripe.body.errors[0].message, /out_of_band/);

    const requestsBefore = fake.requestsTo('POST', '/v1/refunds').length;
    const body = await ok(creditNote(s, invoice.id, '10.00', { method: 'out_of_band' }));
    const paymentId = recorded.id ?? (await paymentsOf(s, invoice.id))[0].id;
    assert.deepEqual(
      body.refunds.map((r: any) => [r.method, r.status, r.amount, r.paymentId, r.providerReference]),
      [['out_of_band', 'succeeded', '10.00', paymentId, null]],
    );
    assert.equal(fake.requestsTo('POST', '/v1/refunds').length, requestsBefore, 'nothing asked of Stripe');
    assert.equal((await payment(s, paymentId)).amountRefunded, '10.00');
    assert.deepEqual(await auditTypes(s, paymentId), ['payment.refunded']);
    assert.deepEqual(
      (await webhooksOf(s, paymentId)).map((m) => m.type),
      ['payment.refunded'],
    );
    assert.equal((await s.api.get('/api/v1/payments/pay_01jd3m5x7c0000000000000000')).status, 404);
  });
});

describe('POST /api/v1/credit_notes with refund: customer_balance', () => {
  it('the credit goes to the balance; the next invoice spends it first and Stripe charges only the rest; a balance that covers an invoice pays it at finalization', async () => {
    const s = await seller();
    const { invoice, customerId, subscriptionId } = await paidByStripe(s, 'balance');
    const body = await ok(creditNote(s, invoice.id, '12.00', { method: 'customer_balance' }));
    assert.deepEqual(
      body.refunds.map((r: any) => [r.method, r.status, r.amount, r.paymentId]),
      [['customer_balance', 'succeeded', '12.00', null]],
    );
    assert.deepEqual(
      (await ok(s.api.get(`/api/v1/customers/${customerId}/balance`))).balances.map((x: any) => [x.currency, x.amount]),
      [['USD', '12.00']],
    );

    await advance(s, FEB + 2 * HOUR);
    const second = (await invoicesOf(s, subscriptionId))[1];
    assert.deepEqual([second.status, second.total, second.amountPaid, second.amountRemaining], ['paid', '30.00', '30.00', '0.00']);
    const paid = await paymentsOf(s, second.id);
    assert.deepEqual(
      paid.map((p: any) => [p.provider, p.status, p.amount]),
      [
        ['customer_balance', 'succeeded', '12.00'],
        ['stripe', 'succeeded', '18.00'],
      ],
    );
    assert.deepEqual(
      fake.succeededPaymentIntents({ invoiceId: second.id }).map((pi) => pi.amount),
      [1800],
    );
    assert.deepEqual(
      (await ok(s.api.get(`/api/v1/customers/${customerId}/balance`))).balances.map((x: any) => x.amount),
      ['0.00'],
    );

    // The whole of it back to the balance: the third invoice is paid by it at finalization, nothing charged.
    await ok(creditNote(s, second.id, '30.00', { method: 'customer_balance' }));
    await advance(s, MAR + 2 * HOUR);
    const third = (await invoicesOf(s, subscriptionId))[2];
    assert.deepEqual([third.status, third.amountPaid, third.paymentStatus, third.attemptCount], ['paid', '30.00', 'paid', 0]);
    assert.deepEqual(fake.succeededPaymentIntents({ invoiceId: third.id }), []);
    assert.deepEqual(
      (await webhooksOf(s, third.id)).map((m) => m.type),
      ['invoice.created', 'invoice.finalized', 'invoice.paid'],
    );
    assert.deepEqual(
      (await auditTypes(s, third.id)).filter((x) => x.startsWith('invoice.')),
      ['invoice.created', 'invoice.finalized', 'invoice.paid'],
    );
  });
});
