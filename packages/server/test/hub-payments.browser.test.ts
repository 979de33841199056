/**
 * The developer hub's payment screens in headless Chromium against a real server and the Stripe
 * fake (helpers/stripe-fake.ts, whose hosted pages stand in for Stripe's): an invoice whose charge
 * failed says why and when it is tried next, and Pay now says why it failed again; Payment method
 * shows no card, Add card goes to the provider's page and back, and the card then shows; the new
 * card needs 3-D Secure, so Pay now sends the customer to their bank's page, which returns them to
 * the hub's invoices, and the invoice is paid. Every screen axe-clean at 1280 and 390 px
 * (screenshots in test-artifacts/hub/). Without Chromium the file is skipped, and says so.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { boundCredentials } from '../src/modules/authentication/bound-credentials.js';
import { runBilling } from '../src/modules/billing/run-billing.js';
import { checkScreen, consoleBrowserSkip, HUB_ARTIFACTS, startConsoleBrowser, WIDE, type ConsoleBrowser, type ConsolePage } from './helpers/console-browser.js';
import type { Client } from './helpers/seed.js';
import { FAKE_STRIPE_SECRET_KEY, FAKE_STRIPE_WEBHOOK_SECRET, StripeFake } from './helpers/stripe-fake.js';

const skip = consoleBrowserSkip;
if (skip) console.log(`hub-payments.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 120_000 };

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();

describe('the developer hub’s payment screens in Chromium', () => {
  let fake: StripeFake;
  let b: ConsoleBrowser;
  let api: Client;
  let invoice: { id: string; number: string };
  let p: ConsolePage;

  const hub = (name: string, ready: (page: Page) => Promise<unknown>) => checkScreen(p, b.origin, name, ready, HUB_ARTIFACTS);
  const invoiceRow = (page: Page) => page.getByRole('table', { name: 'Your invoices, newest first' }).getByRole('row', { name: new RegExp(invoice.number) });
  const deliver = async () => {
    for (const d of await fake.deliverWebhooks()) assert.equal(d.status, 200, JSON.stringify(d));
  };

  before(async () => {
    if (skip) return;
    fake = await StripeFake.start({ clock: () => b.t.clock.now() });
    b = await startConsoleBrowser({ demo: true, config: { stripeApiBase: fake.apiBase, stripeTimeoutMs: 2_000 } });
    b.t.clock.set(NOW);
    const env = b.t.demo!.environments.test;
    api = b.t.seed.client(env.secretKey);
    const connected = await api.request('PUT', '/api/v1/payment_providers/stripe', {
      secretKey: FAKE_STRIPE_SECRET_KEY,
      webhookSecret: FAKE_STRIPE_WEBHOOK_SECRET,
    });
    assert.ok([200, 201].includes(connected.status), JSON.stringify(connected.body));
    fake.setWebhookEndpoint(`${b.origin}${connected.body.webhookUrl}`, FAKE_STRIPE_WEBHOOK_SECRET);
    // The demo customer has no card: the first invoice's charge fails (no_payment_method).
    const [draft] = (await api.get(`/api/v1/customers/${env.customerId}/invoices`)).body.data;
    const finalized = await api.post(`/api/v1/invoices/${draft.id}/finalize`, {});
    assert.equal(finalized.status, 200, JSON.stringify(finalized.body));
    invoice = finalized.body;
    await runBilling(b.t.deps, boundCredentials, { testClock: null });
    const failed = await api.get(`/api/v1/invoices/${invoice.id}`);
    assert.deepEqual([failed.body.paymentStatus, failed.body.lastPaymentError?.code], ['failed', 'no_payment_method']);

    const minted = await api.post('/api/v1/hub_sessions', { customerId: env.customerId });
    assert.equal(minted.status, 200, JSON.stringify(minted.body));
    p = await b.open(`/hub#${/#(hbl_\w+)$/.exec(minted.body.url)![1]}`);
    await heading(p.page, 'API keys');
  });
  // A test's pages close when it ends; the one signed in once in `before` stays.
  afterEach(async () => b?.closePages(p));
  after(async () => {
    await b?.close();
    await fake?.close();
  });

  it('an invoice whose charge failed says why and when it is tried next; Pay now without a card says to add one', opts, async () => {
    const { page } = p;
    await page.getByRole('navigation', { name: 'Developer hub' }).getByRole('link', { name: 'Invoices' }).click();
    await heading(page, 'Invoices');
    const row = invoiceRow(page);
    await row.waitFor();
    assert.match(
      await row.innerText(),
      /Payment failed: You have no card on file: add one under Payment method, then pay again\. Next try: 2026-01-18 12:00 UTC\./,
    );
    await hub('billing-failed', (pg) =>
      invoiceRow(pg)
        .getByRole('button', { name: /^Pay now/ })
        .waitFor(),
    );
    await page.setViewportSize(WIDE);

    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/api/v1/hub/invoices/${invoice.id}/pay`));
    await row.getByRole('button', { name: `Pay now: invoice ${invoice.number}` }).click();
    assert.ok((await sent).headers()['x-csrf-token'], 'sent with the CSRF token');
    await page
      .getByRole('status')
      .filter({ hasText: `Invoice ${invoice.number}: The payment failed: You have no card on file: add one under Payment method, then pay again.` })
      .waitFor();
    const attempts = await api.get(`/api/v1/invoices/${invoice.id}/payments`);
    assert.deepEqual(
      (attempts.body.data as Array<{ attempt: number; trigger: string; status: string }>).map((a) => [a.attempt, a.trigger, a.status]),
      [
        [1, 'automatic', 'failed'],
        [2, 'customer', 'failed'],
      ],
    );
  });

  it('Payment method: no card; Add card goes to the provider’s page and back, and the card shows', opts, async () => {
    const { page } = p;
    await page.getByRole('navigation', { name: 'Developer hub' }).getByRole('link', { name: 'Payment method' }).click();
    await heading(page, 'Payment method');
    await page.getByText('You have no card on file yet.').waitFor();
    await hub('payment-method-none', (pg) => pg.getByRole('button', { name: 'Add card' }).waitFor());
    await page.setViewportSize(WIDE);

    await page.getByRole('button', { name: 'Add card' }).click();
    await page.getByRole('heading', { name: 'Add a card (Stripe fake)' }).waitFor();
    assert.ok(page.url().startsWith(`${fake.apiBase}/fake/checkout/`), page.url());
    await page.locator('select[name="card"]').selectOption('pm_card_authenticationRequired');
    await page.getByRole('button', { name: 'Save card' }).click();
    await heading(page, 'Payment method');
    await page.getByRole('status').filter({ hasText: 'Thank you: your card is saved.' }).waitFor();
    assert.equal(new URL(page.url()).search, '', 'the notice is read once: out of the address');

    // Stripe's webhooks save the card (and retry the failed invoice with it); the page asks again until it shows.
    await deliver();
    await page.getByText('Visa ending in 3184, expires').waitFor();
    await page.getByRole('button', { name: 'Replace card' }).waitFor();
    p.requests.length = 0; // The provider's page was another host, on purpose.
    await hub('payment-method-card', (pg) => pg.getByText('Visa ending in 3184').waitFor());
    await page.setViewportSize(WIDE);
  });

  it('a card that needs 3-D Secure: Pay now sends the customer to their bank’s page, which returns them to the invoices, paid', opts, async () => {
    const { page } = p;
    await page.getByRole('navigation', { name: 'Developer hub' }).getByRole('link', { name: 'Invoices' }).click();
    const row = invoiceRow(page);
    await row.filter({ hasText: 'Your bank asks you to confirm the payment: use Pay now.' }).waitFor();

    await row.getByRole('button', { name: `Pay now: invoice ${invoice.number}` }).click();
    await page.getByRole('heading', { name: '3-D Secure (Stripe fake)' }).waitFor();
    const returned = page.waitForRequest((r) => r.isNavigationRequest() && r.url().startsWith(`${b.origin}/hub/billing`));
    await page.getByRole('button', { name: 'Complete' }).click();
    const back = new URL((await returned).url());
    await heading(page, 'Invoices');
    assert.deepEqual([back.pathname, back.searchParams.get('invoice'), back.searchParams.get('redirect_status')], ['/hub/billing', invoice.id, 'succeeded']);
    await page.getByRole('status').filter({ hasText: 'Thank you: your payment is confirmed.' }).waitFor();
    assert.equal(new URL(page.url()).search, '', 'the provider’s additions are out of the address');

    await deliver();
    await page.reload();
    await invoiceRow(page).getByRole('cell', { name: 'Paid', exact: true }).waitFor();
    assert.equal(
      await invoiceRow(page)
        .getByRole('button', { name: /^Pay now/ })
        .count(),
      0,
    );
    const paid = await api.get(`/api/v1/invoices/${invoice.id}`);
    assert.deepEqual([paid.body.status, paid.body.amountRemaining], ['paid', '0.00']);
    assert.equal(fake.succeededPaymentIntents({ invoiceId: invoice.id }).length, 1, 'charged once');
    p.requests.length = 0;
    await hub('billing-paid', (pg) => invoiceRow(pg).getByRole('cell', { name: 'Paid', exact: true }).waitFor());
  });

  it('an invoice sent to be paid: Pay online opens its payment page, Pay goes to Stripe’s page, and the buyer comes back to it paid', opts, async () => {
    // The payment page's address starts with PUBLIC_URL: this server's own here.
    b.t.deps.config.publicUrl = b.origin;
    const [demo] = (await api.get('/api/v1/offerings?limit=1')).body.data;
    const made = await api.post('/api/v1/offerings', {
      productId: demo.productId,
      name: 'Invoiced',
      currency: 'USD',
      billingPeriod: 'MONTHLY',
      entryPrice: '49',
      ratePlanIds: demo.ratePlanIds,
    });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const offering = made.body;
    const customer = await api.post('/api/v1/customers', { name: 'Sent Invoices Ltd', externalId: 'sent-invoices' });
    const sub = await api.post('/api/v1/subscriptions', { customerId: customer.body.id, offeringId: offering.id, collectionMethod: 'send_invoice' });
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    const [draft] = (await api.get(`/api/v1/customers/${customer.body.id}/invoices`)).body.data;
    const sent = (await api.post(`/api/v1/invoices/${draft.id}/finalize`, {})).body;
    assert.deepEqual([sent.collectionMethod, sent.paymentStatus, sent.total], ['send_invoice', 'unpaid', '49.00']);
    assert.ok(sent.hostedInvoiceUrl.startsWith(`${b.origin}/pay/${b.t.demo!.workspaceId}.t.`), sent.hostedInvoiceUrl);

    const minted = await api.post('/api/v1/hub_sessions', { customerId: customer.body.id });
    const buyer = await b.open(`/hub#${/#(hbl_\w+)$/.exec(minted.body.url)![1]}`);
    const { page } = buyer;
    await heading(page, 'API keys');
    await page.getByRole('navigation', { name: 'Developer hub' }).getByRole('link', { name: 'Invoices' }).click();
    await heading(page, 'Invoices');
    const row = page.getByRole('table', { name: 'Your invoices, newest first' }).getByRole('row', { name: new RegExp(sent.number) });
    assert.equal(await row.getByRole('button', { name: /^Pay now/ }).count(), 0, 'no charge of a card on file for a sent invoice');
    await row.getByRole('link', { name: `Pay online: invoice ${sent.number}` }).click();

    await page.getByRole('heading', { level: 1, name: `Invoice ${sent.number}` }).waitFor();
    assert.equal(page.url(), sent.hostedInvoiceUrl);
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('heading', { name: /^Pay \d+ usd \(Stripe fake\)$/ }).waitFor();
    await page.locator('select[name="card"]').selectOption('pm_card_visa');
    await page.getByRole('button', { name: 'Pay' }).click();
    // Back before Stripe's webhooks: the page reads Stripe and shows the invoice paid.
    await page.getByText(/^Paid on .*\. Thank you\.$/).waitFor();
    assert.equal(page.url(), sent.hostedInvoiceUrl);
    assert.deepEqual(buyer.problems, [], 'no script error, nothing the CSP refused');

    const paid = (await api.get(`/api/v1/invoices/${sent.id}`)).body;
    assert.deepEqual([paid.status, paid.paymentStatus, paid.amountRemaining], ['paid', 'paid', '0.00']);
    await deliver();
    assert.equal(fake.succeededPaymentIntents({ invoiceId: sent.id }).length, 1, 'paid once');
    assert.equal((await api.get(`/api/v1/invoices/${sent.id}`)).body.amountPaid, paid.amountPaid, 'the webhooks change nothing more');
  });
});
