import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { StripeFake } from '../../../test/helpers/stripe-fake.js';
import { iso, ok, stripeSeller, stripeSubscriber, type Seller, type StripeWorld } from '../../../test/helpers/stripe-seller.js';
import { boundCredentials } from '../authentication/bound-credentials.js';
import { runBilling } from './run-billing.js';

/**
 * A send_invoice invoice paid through its payment page (issue 39), through the real server on a
 * test clock against the Stripe fake: the invoice's hostedInvoiceUrl opens a page of ours whose Pay
 * button sends the buyer to a Stripe Checkout page; the page is reused while open, withdrawn when
 * a newer attempt is made, and its outcome (Stripe's webhooks, in any order, or the
 * reconciliation when they are lost) marks the invoice paid once. Each with its invoice,
 * subscription, entitlement, webhook and audit outcome.
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
const DAY = 24 * HOUR;
const JAN = Date.UTC(2026, 0, 10);
const world = (): StripeWorld => ({ t, fake, base });

/** A seller who sends invoices (due 14 days after finalization), and a buyer with no card whose first invoice is finalized. */
async function sentInvoice(opts: { connect?: boolean } = {}) {
  const s = await stripeSeller(world(), JAN, { connect: opts.connect, settings: { collectionMethod: 'send_invoice', daysUntilDue: 14 } });
  const b = await stripeSubscriber(world(), s, `buyer-${Math.random().toString(36).slice(2, 8)}`, null);
  const [draft] = (await ok(s.api.get(`/api/v1/invoices?subscriptionId=${b.subscriptionId}`))).data;
  await ok(s.api.post(`/api/v1/test_clocks/${s.clockId}/advance`, { frozenTime: iso(JAN + 2 * HOUR) }));
  const invoice = await ok(s.api.get(`/api/v1/invoices/${draft.id}`));
  return { s, b, invoice };
}

/** The page's path: the invoice's hostedInvoiceUrl without its origin (PUBLIC_URL is unset in tests). */
const pathOf = (hostedInvoiceUrl: string) => new URL(hostedInvoiceUrl).pathname;

async function page(path: string, method: 'GET' | 'POST' = 'GET') {
  const res = await fetch(`${base}${path}`, {
    method,
    redirect: 'manual',
    ...(method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' } : {}),
  });
  return { status: res.status, location: res.headers.get('location'), headers: res.headers, html: await res.text() };
}

const paymentsOf = async (s: Seller, invoiceId: string) => (await ok(s.api.get(`/api/v1/invoices/${invoiceId}/payments`))).data;
const sessionIdOf = (url: string) => /\/fake\/checkout\/([^/?]+)/.exec(url)![1]!;
const pageSessionsFor = (invoiceId: string) => [...fake.checkoutSessions.values()].filter((cs) => cs.mode === 'payment' && cs.metadata.invoiceId === invoiceId);

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

describe('send_invoice: paid through the invoice’s payment page', () => {
  it('the buyer opens the page, a card declines on Stripe’s page, another pays: one charge, the invoice paid, webhooks twice and reversed change nothing', async () => {
    const { s, b, invoice } = await sentInvoice();
    assert.deepEqual(
      [invoice.status, invoice.collectionMethod, invoice.dueDate, invoice.paymentStatus, invoice.attemptCount],
      ['finalized', 'send_invoice', iso(JAN + 2 * HOUR + 14 * DAY), 'unpaid', 0],
    );
    assert.equal(
      invoice.hostedInvoiceUrl,
      `http://localhost:${t.deps.config.port}/pay/${s.ws.workspaceId}.t.${invoice.id}.${invoice.hostedInvoiceUrl.slice(-22)}`,
    );
    assert.match(invoice.hostedInvoiceUrl, /\.[A-Za-z0-9_-]{22}$/);
    assert.equal(fake.succeededPaymentIntents({ invoiceId: invoice.id }).length, 0, 'send_invoice: nothing charged by itself');
    const path = pathOf(invoice.hostedInvoiceUrl);

    const shown = await page(path);
    assert.equal(shown.status, 200);
    assert.match(shown.headers.get('content-type')!, /^text\/html/);
    assert.match(shown.headers.get('content-security-policy')!, /form-action 'self' http:\/\/127\.0\.0\.1:\d+;/);
    assert.equal(shown.headers.get('cache-control'), 'no-store');
    assert.match(shown.html, new RegExp(`Invoice ${invoice.number}`));
    assert.match(shown.html, /<dt>Due<\/dt><dd>Jan 24, 2026<\/dd>/);
    assert.match(shown.html, /<dd class="due">\$30\.00<\/dd>/);
    assert.match(shown.html, /<form method="post"><button type="submit">Pay \$30\.00<\/button><\/form>/);
    assert.equal(pageSessionsFor(invoice.id).length, 0, 'showing the page opens nothing at Stripe (a link preview must not)');

    const pay = await page(path, 'POST');
    assert.equal(pay.status, 303);
    const sessionId = sessionIdOf(pay.location!);
    const session = fake.checkoutSessions.get(sessionId)!;
    assert.deepEqual([session.mode, session.amount_total, session.currency, session.success_url], ['payment', 3000, 'usd', invoice.hostedInvoiceUrl]);
    const again = await page(path, 'POST');
    assert.equal(again.location, pay.location, 'a second press (another tab) goes back to the same page');
    assert.equal(pageSessionsFor(invoice.id).length, 1);
    const opened = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([opened.status, opened.paymentStatus, opened.attemptCount, opened.lastPaymentError], ['finalized', 'requires_action', 1, null]);

    fake.payCheckoutSession(sessionId, 'pm_card_chargeDeclined');
    for (const d of await fake.deliverWebhooks()) assert.equal(d.status, 200, JSON.stringify(d));
    const declined = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual(
      [declined.status, declined.paymentStatus, declined.lastPaymentError],
      ['finalized', 'requires_action', null],
      'the buyer may try another card on the page',
    );
    assert.equal((await ok(s.api.get(`/api/v1/subscriptions/${b.subscriptionId}`))).status, 'ACTIVE', 'no dunning for a page');

    fake.payCheckoutSession(sessionId, 'pm_card_visa');
    for (const d of await fake.deliverWebhooks({ order: 'reversed', duplicates: true })) assert.equal(d.status, 200, JSON.stringify(d));
    const paid = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual(
      [paid.status, paid.paymentStatus, paid.amountPaid, paid.amountRemaining, paid.paidAt],
      ['paid', 'paid', '30.00', '0.00', iso(JAN + 2 * HOUR)],
    );
    const [attempt] = await paymentsOf(s, invoice.id);
    assert.deepEqual([attempt.trigger, attempt.status, attempt.amount, attempt.attempt], ['payment_page', 'succeeded', '30.00', 1]);
    assert.match(attempt.providerReference, /^pi_/, 'the charge, for refunds');
    assert.equal(fake.succeededPaymentIntents({ invoiceId: invoice.id }).length, 1);

    assert.deepEqual(
      (await auditTypes(s, invoice.id)).filter((x) => x.startsWith('invoice.')),
      ['invoice.created', 'invoice.finalized', 'invoice.paid'],
    );
    const hooks = await webhookTypes(s, invoice.id);
    assert.deepEqual(hooks, ['invoice.created', 'invoice.finalized', 'invoice.paid']);
    const message = await t.deps.db
      .selectFrom('webhookMessages')
      .select('body')
      .where('eventType', '=', 'invoice.paid')
      .where('workspaceId', '=', s.ws.workspaceId)
      .executeTakeFirstOrThrow();
    assert.equal(JSON.parse(message.body).data.object.hostedInvoiceUrl, invoice.hostedInvoiceUrl, 'the same address in webhooks');
    assert.equal((await ok(s.api.get(`/api/v1/subscriptions/${b.subscriptionId}`))).status, 'ACTIVE');
    const check = await ok(s.api.get(`/v1/entitlements/check?accessorId=${b.customerId}&productId=${s.productId}`));
    assert.deepEqual([check.allowed, check.reason], [true, 'OK']);

    const after = await page(path);
    assert.match(after.html, /Paid on Jan 10, 2026\. Thank you\./);
    assert.doesNotMatch(after.html, /<form/);
    const late = await page(path, 'POST');
    assert.equal(late.status, 200, 'nothing left to pay: the page, no Stripe page');
    assert.equal(pageSessionsFor(invoice.id).length, 1);
  });

  it('a page left to expire is no failure and the next press opens a new one; a retry of the card withdraws an open page, so two payments cannot both succeed', async () => {
    const { s, b, invoice } = await sentInvoice();
    const path = pathOf(invoice.hostedInvoiceUrl);
    const first = sessionIdOf((await page(path, 'POST')).location!);
    fake.expireCheckoutSession(first);
    for (const d of await fake.deliverWebhooks()) assert.equal(d.status, 200, JSON.stringify(d));
    const expired = await ok(s.api.get(`/api/v1/invoices/${invoice.id}`));
    assert.deepEqual([expired.status, expired.paymentStatus, expired.lastPaymentError, expired.nextPaymentAttempt], ['finalized', 'unpaid', null, null]);
    assert.deepEqual(
      (await paymentsOf(s, invoice.id)).map((p: any) => [p.attempt, p.status, p.failureCode]),
      [[1, 'failed', 'expired']],
    );

    const second = sessionIdOf((await page(path, 'POST')).location!);
    assert.notEqual(second, first);
    // The operator charges a card the buyer saved meanwhile: the open page is expired at Stripe first.
    const customer = [...fake.customers.values()].find((c) => c.metadata.tollgateCustomerId === b.customerId)!;
    fake.attachCard(customer.id, 'pm_card_visa');
    const retried = await ok(s.api.post(`/api/v1/invoices/${invoice.id}/attempt_payment`, {}));
    assert.equal(retried.status, 'succeeded');
    assert.equal(fake.checkoutSessions.get(second)!.status, 'expired', 'withdrawn before the charge');
    assert.throws(() => fake.payCheckoutSession(second, 'pm_card_visa'), /not an open payment page/);
    assert.equal(fake.succeededPaymentIntents({ invoiceId: invoice.id }).length, 1);
    assert.deepEqual(
      (await paymentsOf(s, invoice.id)).map((p: any) => [p.attempt, p.trigger, p.status]),
      [
        [1, 'payment_page', 'failed'],
        [2, 'payment_page', 'failed'],
        [3, 'manual_retry', 'succeeded'],
      ],
    );
    assert.equal((await ok(s.api.get(`/api/v1/invoices/${invoice.id}`))).status, 'paid');
  });

  it('Stripe’s webhooks lost: the reconciliation reads the page and marks the invoice paid; Stripe down: 503 with Retry-After, then the one page', async () => {
    const { s, invoice } = await sentInvoice();
    const path = pathOf(invoice.hostedInvoiceUrl);

    await fake.setDown(true);
    const down = await page(path, 'POST');
    await fake.setDown(false);
    assert.equal(down.status, 503);
    assert.equal(down.headers.get('retry-after'), '5');
    assert.match(down.html, /did not answer\. Nothing was charged/);

    const sessionId = sessionIdOf((await page(path, 'POST')).location!);
    assert.equal(pageSessionsFor(invoice.id).length, 1);
    fake.payCheckoutSession(sessionId, 'pm_card_visa');
    for (const d of await fake.deliverWebhooks()) assert.equal(d.status, 200, JSON.stringify(d));
    assert.equal((await ok(s.api.get(`/api/v1/invoices/${invoice.id}`))).status, 'paid');
    assert.equal(fake.succeededPaymentIntents({ invoiceId: invoice.id }).length, 1);

    // Another invoice whose page is paid while Stripe's events never reach us.
    const other = await sentInvoice();
    const otherSession = sessionIdOf((await page(pathOf(other.invoice.hostedInvoiceUrl), 'POST')).location!);
    fake.payCheckoutSession(otherSession, 'pm_card_visa');
    fake.setWebhookEndpoint(`${base}/nowhere`, 'whsec_lost');
    await fake.deliverWebhooks();
    assert.equal((await ok(other.s.api.get(`/api/v1/invoices/${other.invoice.id}`))).status, 'finalized', 'nothing arrived');
    t.clock.advance(2 * HOUR);
    const run = await runBilling(t.deps, boundCredentials, { testClock: null });
    assert.ok(run.reconciled >= 1, JSON.stringify(run));
    const found = await ok(other.s.api.get(`/api/v1/invoices/${other.invoice.id}`));
    assert.deepEqual([found.status, found.amountPaid], ['paid', '30.00']);
    assert.equal(fake.succeededPaymentIntents({ invoiceId: other.invoice.id }).length, 1);
  });
});

describe('the payment page: addresses that name no invoice, and sellers without Stripe', () => {
  it('a forged, altered or malformed token is a 404 page; so is a draft', async () => {
    const { invoice } = await sentInvoice();
    const path = pathOf(invoice.hostedInvoiceUrl);
    const [ws, env, id, tag] = path.slice('/pay/'.length).split('.') as [string, string, string, string];
    const flip = (c: string) => (c === 'A' ? 'B' : 'A');
    for (const bad of [
      `/pay/${ws}.${env}.in_someoneelse.${tag}`,
      `/pay/${ws}.l.${id}.${tag}`,
      `/pay/${ws}.${env}.${id}.${tag.slice(0, -1)}${flip(tag.slice(-1))}`,
      `/pay/${ws}.${env}.${id}.${tag.slice(0, -1)}`,
      `/pay/${ws}.${env}.${id}`,
      '/pay/not-a-token',
    ]) {
      for (const method of ['GET', 'POST'] as const) {
        const res = await page(bad, method);
        assert.equal(res.status, 404, `${method} ${bad}`);
        assert.match(res.html, /This payment link is not valid/);
      }
    }
    const long = await page(`/pay/${'x'.repeat(101)}`);
    assert.equal(long.status, 400, 'longer than any token: refused before anything is read');
    const draftOnly = await stripeSeller(world(), JAN, { settings: { collectionMethod: 'send_invoice' } });
    const buyer = await stripeSubscriber(world(), draftOnly, 'drafty', null);
    const [draft] = (await ok(draftOnly.api.get(`/api/v1/invoices?subscriptionId=${buyer.subscriptionId}`))).data;
    assert.equal(draft.hostedInvoiceUrl, null, 'a draft has no payment page');
  });

  it('a seller without Stripe: the page shows what is owed and says to pay as the seller says; pressing Pay opens nothing', async () => {
    const { invoice } = await sentInvoice({ connect: false });
    const path = pathOf(invoice.hostedInvoiceUrl);
    const shown = await page(path);
    assert.match(shown.html, /<dd class="due">\$30\.00<\/dd>/);
    const pressed = await page(path, 'POST');
    assert.equal(pressed.status, 200);
    assert.match(pressed.html, /does not take card payments online/);
    assert.equal(pageSessionsFor(invoice.id).length, 0);
  });
});
