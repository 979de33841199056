/**
 * An invoice's payment status, its attempts through Stripe and Retry payment, in headless Chromium
 * against a real server and the Stripe fake (helpers/stripe-fake.ts): an automatic charge that
 * fails shows its status, the failure and the next attempt, and each attempt in the list; Retry
 * payment shows a decline in Stripe's words, then, with a card that needs 3-D Secure, the buyer's
 * page; once the buyer paid, a retry from the page still open is refused in the server's words;
 * then the Refund form gives part of it back through Stripe.
 * The server's clock is frozen. Without Chromium the file is skipped, and says so.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createOperator } from '../src/modules/operators/create-operator.js';
import { boundCredentials } from '../src/modules/authentication/bound-credentials.js';
import { runBilling } from '../src/modules/billing/run-billing.js';
import { checkScreen, consoleBrowserSkip, startConsoleBrowser, WIDE, type ConsoleBrowser, type ConsolePage } from './helpers/console-browser.js';
import type { Client } from './helpers/seed.js';
import { FAKE_STRIPE_SECRET_KEY, FAKE_STRIPE_WEBHOOK_SECRET, StripeFake, type TestCard } from './helpers/stripe-fake.js';

const skip = consoleBrowserSkip;
if (skip) console.log(`console-payment-attempts.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 90_000 };

const PASSWORD = 'correct horse battery staple';
const ADMIN = 'attempts-admin@example.com';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
/** A fact of the invoice's header (<dt>name</dt><dd>value</dd>). */
const fact = (page: Page, name: string) => page.locator('dl.facts dt', { hasText: new RegExp(`^${name}$`) }).locator('xpath=following-sibling::dd[1]');

describe('an invoice’s payment attempts and Retry payment in Chromium', () => {
  let fake: StripeFake;
  let b: ConsoleBrowser;
  let api: Client;
  let admin: ConsolePage;
  let invoice: { id: string; number: string };

  async function addCard(card: TestCard): Promise<void> {
    const customerId = b.t.demo!.environments.test.customerId;
    const session = await api.post(`/api/v1/customers/${customerId}/payment_method_sessions`, {
      successUrl: 'https://seller.example/ok',
      cancelUrl: 'https://seller.example/no',
    });
    assert.equal(session.status, 200, JSON.stringify(session.body));
    fake.completeSetupSession(session.body.id, card);
    for (const d of await fake.deliverWebhooks()) assert.equal(d.status, 200, JSON.stringify(d));
  }
  async function openInvoice(): Promise<Page> {
    const { page } = admin;
    await page.setViewportSize(WIDE);
    await page.goto(`${b.origin}/console/invoices/${invoice.id}`);
    await heading(page, `Invoice ${invoice.number}`);
    return page;
  }
  const attempts = (page: Page) => page.getByRole('table', { name: 'Payments, oldest first' });

  before(async () => {
    if (skip) return;
    fake = await StripeFake.start({ clock: () => b.t.clock.now() });
    b = await startConsoleBrowser({ demo: true, config: { stripeApiBase: fake.apiBase, stripeTimeoutMs: 2_000 } });
    b.t.clock.set(NOW);
    const demo = b.t.demo!;
    await createOperator(
      b.t.deps,
      { workspaceId: demo.workspaceId, email: ADMIN, name: 'admin', role: 'admin', password: PASSWORD },
      { actor: { type: 'SYSTEM', id: 'test' }, correlationId: 'test', source: 'system' },
    );
    api = b.t.seed.client(demo.environments.test.secretKey);
    const connected = await api.request('PUT', '/api/v1/payment_providers/stripe', {
      secretKey: FAKE_STRIPE_SECRET_KEY,
      webhookSecret: FAKE_STRIPE_WEBHOOK_SECRET,
    });
    assert.ok([200, 201].includes(connected.status), JSON.stringify(connected.body));
    fake.setWebhookEndpoint(`${b.origin}${connected.body.webhookUrl}`, FAKE_STRIPE_WEBHOOK_SECRET);
    await addCard('pm_card_chargeDeclinedInsufficientFunds');
    // The demo subscription's first invoice, finalized; the billing run charges it, and the card declines.
    const [draft] = (await api.get(`/api/v1/customers/${demo.environments.test.customerId}/invoices`)).body.data;
    const finalized = await api.post(`/api/v1/invoices/${draft.id}/finalize`, {});
    assert.equal(finalized.status, 200, JSON.stringify(finalized.body));
    invoice = finalized.body;
    await runBilling(b.t.deps, boundCredentials, { testClock: null });

    admin = await b.open('/console');
    await heading(admin.page, 'Sign in to the Tollgate console');
    await admin.page.getByLabel('E-mail').fill(ADMIN);
    await admin.page.getByLabel('Password').fill(PASSWORD);
    await admin.page.getByRole('button', { name: 'Sign in' }).click();
    await heading(admin.page, 'Demo workspace');
  });
  // A test's pages close when it ends; the one signed in once in `before` stays.
  afterEach(async () => b?.closePages(admin));
  after(async () => {
    await b?.close();
    await fake?.close();
  });

  it('a declined charge: the status, the failure, the next attempt and the attempt; Retry payment says why it failed again', opts, async () => {
    const page = await openInvoice();
    assert.equal(await fact(page, 'Payment').textContent(), 'Failed');
    assert.equal(await fact(page, 'Attempts').textContent(), '1');
    assert.equal(await fact(page, 'Last failure').textContent(), 'insufficient_funds: Your card has insufficient funds.');
    assert.equal(await fact(page, 'Next attempt').textContent(), '2026-01-18 12:00 UTC');
    const first = attempts(page).getByRole('row', { name: /#1, at finalization/ });
    await first.waitFor();
    assert.match(await first.innerText(), /\$49\.00\s+Stripe\s+pi_\w+\s+failed\s+#1, at finalization\s+insufficient_funds: Your card has insufficient funds\./);

    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/api/v1/invoices/${invoice.id}/attempt_payment`));
    await page.getByRole('button', { name: 'Retry payment' }).click();
    assert.deepEqual((await sent).postDataJSON(), { returnUrl: `${b.origin}/hub/billing?invoice=${invoice.id}` });
    await page.getByRole('status').filter({ hasText: 'The payment failed: Your card has insufficient funds. (insufficient_funds)' }).waitFor();
    await attempts(page)
      .getByRole('row', { name: /#2, operator’s retry/ })
      .waitFor();
    await fact(page, 'Attempts').filter({ hasText: /^2$/ }).waitFor();
    await checkScreen(admin, b.origin, 'invoice-attempts-failed', (pg) => pg.getByRole('status').filter({ hasText: 'The payment failed' }).waitFor());
  });

  it(
    'a card that needs 3-D Secure: waiting for the buyer; Retry payment gives the buyer’s page; once paid, the open page’s retry is refused',
    opts,
    async () => {
      // The new card retries at once, off-session: the bank wants the buyer.
      await addCard('pm_card_authenticationRequired');
      const page = await openInvoice();
      assert.equal(await fact(page, 'Payment').textContent(), 'Waiting for the buyer to authenticate');
      await attempts(page)
        .getByRole('row', { name: /#3, new card/ })
        .waitFor();

      await page.getByRole('button', { name: 'Retry payment' }).click();
      const status = page.getByRole('status').filter({ hasText: 'The buyer’s bank wants them to authenticate this payment: send them the link.' });
      await status.waitFor();
      const link = status.getByRole('link', { name: 'The buyer’s page' });
      assert.match((await link.getAttribute('href')) ?? '', /\/fake\/authenticate\/pi_\w+$/);
      await attempts(page)
        .getByRole('row', { name: /#4, operator’s retry/ })
        .waitFor();
      // The page the earlier attempt waited on is withdrawn, in the list too.
      assert.match(
        await attempts(page)
          .getByRole('row', { name: /#3, new card/ })
          .innerText(),
        /failed\s+#3, new card\s+canceled/,
      );
      await checkScreen(admin, b.origin, 'invoice-attempts-buyer', (pg) => pg.getByRole('link', { name: 'The buyer’s page' }).first().waitFor());
      await page.setViewportSize(WIDE);

      // The buyer authenticates; Stripe's webhook pays the invoice while the page is still open.
      const pi = /\/fake\/authenticate\/(pi_\w+)$/.exec((await link.getAttribute('href'))!)![1]!;
      fake.completeAuthentication(pi, 'succeed');
      for (const d of await fake.deliverWebhooks()) assert.equal(d.status, 200, JSON.stringify(d));
      await page.getByRole('button', { name: 'Retry payment' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: `Invoice '${invoice.id}' is paid: only a finalized invoice is charged.` })
        .waitFor();

      await page.reload();
      await fact(page, 'Payment')
        .filter({ hasText: /^Paid$/ })
        .waitFor();
      assert.equal(await page.getByRole('button', { name: 'Retry payment' }).count(), 0);
      assert.equal(await page.locator('dl.facts dt', { hasText: /^Next attempt$/ }).count(), 0);
      assert.match(
        await attempts(page)
          .getByRole('row', { name: /#4, operator’s retry/ })
          .innerText(),
        /succeeded/,
      );
    },
  );

  it('the paid invoice refunded through Stripe with the Refund form: the credit note and the refund’s status, at Stripe once', opts, async () => {
    const page = await openInvoice();
    const refunds = page.getByRole('list', { name: 'Refunds, newest first' });
    await refunds.getByText('No refunds yet.').waitFor();
    // Stripe took the newest payment: the form starts with the refund through Stripe, for all that was paid.
    await page.getByLabel('Amount (USD)').and(page.locator('[value="49.00"]')).waitFor();
    assert.equal(await page.getByLabel('How', { exact: true }).inputValue(), 'provider');
    await page.getByLabel('Amount (USD)').fill('10.00');
    await page.getByLabel('Reason', { exact: true }).selectOption('duplicate');
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/v1/credit_notes'));
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    const request = await sent;
    assert.deepEqual(request.postDataJSON().refund, { method: 'provider', amount: '10.00' });
    assert.match((await request.allHeaders())['idempotency-key'] ?? '', /^[0-9a-f-]{36}$/);
    await page.getByRole('status').filter({ hasText: 'Credit note CN-2026-000001 issued. Through Stripe: $10.00, succeeded.' }).waitFor();
    await refunds.getByText('2026-01-15 12:00 UTC — Through Stripe: $10.00, succeeded.').waitFor();
    await page.getByLabel('Amount (USD)').and(page.locator('[value="39.00"]')).waitFor();
    await page.getByRole('table', { name: 'Totals' }).getByRole('row', { name: 'Credited $10.00' }).waitFor();

    // The API: the credit note, its refund through Stripe, and the Stripe payment refunded 10.00, which Stripe refunded once.
    const [note] = (await api.get(`/api/v1/credit_notes?invoiceId=${invoice.id}`)).body.data;
    assert.deepEqual([note.number, note.total, note.reason], ['CN-2026-000001', '10.00', 'duplicate']);
    assert.equal((await api.get(`/api/v1/invoices/${invoice.id}`)).body.creditedTotal, '10.00');
    const [refund] = (await api.get(`/api/v1/refunds?invoiceId=${invoice.id}`)).body.data;
    assert.deepEqual([refund.creditNoteId, refund.method, refund.status, refund.amount], [note.id, 'provider', 'succeeded', '10.00']);
    assert.match(refund.providerReference, /^re_/);
    const paid = (await api.get(`/api/v1/invoices/${invoice.id}/payments`)).body.data.find((p: { status: string }) => p.status === 'succeeded');
    assert.equal(paid.amountRefunded, '10.00');
    assert.deepEqual(
      [...fake.refunds.values()].filter((r) => r.payment_intent === paid.providerReference).map((r) => r.amount),
      [1000],
    );
    await checkScreen(admin, b.origin, 'invoice-refund-stripe', (pg) =>
      pg.getByRole('status').filter({ hasText: 'Through Stripe: $10.00, succeeded.' }).waitFor(),
    );
  });
});
