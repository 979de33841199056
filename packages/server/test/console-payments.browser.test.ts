/**
 * The console's payment screens in headless Chromium against a real server
 * (helpers/console-browser.ts): an invoice's payments and the Record payment form (each refusal
 * at the field it names, a partial payment then the rest, a double click recorded once, a viewer
 * with no form), a paid invoice's Refund form (returned outside Tollgate: each refusal at the field
 * it names, a partial refund, the rest double-clicked once), and the Payments settings screen (connect Stripe, a live key refused at the key's
 * input, the hints and the webhook URL, replace the keys, disconnect). The server's clock is
 * frozen and the page's set to it, so "today" is the same day on both sides whatever the date.
 * One admin and one viewer, each signed in once (sign-in is rate-limited per address and e-mail).
 * Without Chromium the file is skipped, and says so.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createOperator } from '../src/modules/operators/create-operator.js';
import { checkScreen, consoleBrowserSkip, startConsoleBrowser, WIDE, type ConsoleBrowser, type ConsolePage } from './helpers/console-browser.js';

const skip = consoleBrowserSkip;
if (skip) console.log(`console-payments.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 90_000 };

const PASSWORD = 'correct horse battery staple';
const ADMIN = 'payments-admin@example.com';
const VIEWER = 'payments-viewer@example.com';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
// The docs' example keys (docs/payments.md): of the right shape, and no real account's.
const TEST_KEY = 'sk_test_51ExampleOnlyNotARealKey0001';
const LIVE_KEY = 'sk_live_51ExampleOnlyNotARealKey0003';
const WEBHOOK_SECRET = 'whsec_ExampleOnlyNotARealSecret0002';

interface Invoice {
  id: string;
  number: string | null;
  status: string;
  total: string;
  amountPaid: string;
  amountRemaining: string;
  creditedTotal: string;
}

const heading = (page: Page, name: string, level = 1) => page.getByRole('heading', { level, name, exact: true }).waitFor();
/** A fact of the invoice's header (<dt>name</dt><dd>value</dd>), as text. */
const fact = (page: Page, name: string) => page.locator('dl.facts dt', { hasText: new RegExp(`^${name}$`) }).locator('xpath=following-sibling::dd[1]');

describe('the console’s payment screens in Chromium', () => {
  let b: ConsoleBrowser;
  let admin: ConsolePage;
  let invoice: Invoice;
  /** The Idempotency-Key of the first payment recorded. */
  let firstKey = '';

  async function signedIn(email: string): Promise<ConsolePage> {
    const p = await b.open('/console');
    await p.page.clock.setFixedTime(NOW);
    await heading(p.page, 'Sign in to the Tollgate console');
    await p.page.getByLabel('E-mail').fill(email);
    await p.page.getByLabel('Password').fill(PASSWORD);
    await p.page.getByRole('button', { name: 'Sign in' }).click();
    await heading(p.page, 'Demo workspace');
    return p;
  }
  async function openInvoice(p: ConsolePage): Promise<Page> {
    await p.page.setViewportSize(WIDE);
    await p.page.goto(`${b.origin}/console/invoices/${invoice.id}`);
    await heading(p.page, `Invoice ${invoice.number}`);
    return p.page;
  }
  const payments = (page: Page) => page.getByRole('table', { name: 'Payments, oldest first' });
  /** The invoice and its payments as the API has them now. */
  async function fromApi(): Promise<{ invoice: Invoice; payments: unknown[] }> {
    const api = b.t.seed.client(b.t.demo!.environments.test.secretKey);
    const i = await api.get(`/api/v1/invoices/${invoice.id}`);
    const list = await api.get(`/api/v1/invoices/${invoice.id}/payments`);
    return { invoice: i.body as Invoice, payments: list.body.data as unknown[] };
  }

  before(async () => {
    if (skip) return;
    b = await startConsoleBrowser({ demo: true });
    b.t.clock.set(NOW);
    const origin = { actor: { type: 'SYSTEM' as const, id: 'test' }, correlationId: 'test', source: 'system' as const };
    for (const [email, role] of [
      [ADMIN, 'admin'],
      [VIEWER, 'viewer'],
    ] as const) {
      await createOperator(b.t.deps, { workspaceId: b.t.demo!.workspaceId, email, name: role, role, password: PASSWORD }, origin);
    }
    // The demo subscription's first invoice, finalized through the API: 49.00 USD owed.
    const demo = b.t.demo!.environments.test;
    const api = b.t.seed.client(demo.secretKey);
    const list = await api.get(`/api/v1/customers/${demo.customerId}/invoices`);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const first = (list.body.data as Invoice[])[0];
    assert.ok(first, 'the demo subscription has an invoice');
    const fin = await api.post(`/api/v1/invoices/${first.id}/finalize`, {});
    assert.equal(fin.status, 200, JSON.stringify(fin.body));
    invoice = fin.body as Invoice;
    assert.equal(invoice.status, 'finalized');
    assert.equal(invoice.amountRemaining, '49.00');
    admin = await signedIn(ADMIN);
    await admin.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: b.origin });
  });
  // A test's pages close when it ends; the one signed in once in `before` stays.
  afterEach(async () => b?.closePages(admin));
  after(async () => b?.close());

  it('an invoice with nothing paid: no payments, a form prefilled with what is owed and today; each refusal at the field it names', opts, async () => {
    const page = await openInvoice(admin);
    await payments(page).getByRole('cell', { name: 'No payments yet.' }).waitFor();
    assert.equal(await fact(page, 'Still owed').textContent(), '$49.00');
    assert.equal(await fact(page, 'Paid').textContent(), '$0.00');
    const amount = page.getByLabel('Amount (USD)');
    assert.equal(await amount.inputValue(), '49.00');
    assert.equal(await page.getByLabel('Date it arrived (UTC)').inputValue(), '2026-01-15');

    // More than is owed: the server's words under the amount.
    await amount.fill('50');
    await page.getByRole('button', { name: 'Record payment' }).click();
    const amountError = page.locator('#amount-error');
    await amountError.waitFor();
    assert.equal(await amountError.textContent(), '50.00 USD is more than the invoice still owes (49.00 USD).');
    assert.equal(await amount.getAttribute('aria-invalid'), 'true');
    assert.match((await amount.getAttribute('aria-describedby')) ?? '', /\bamount-error\b/);
    assert.equal(await page.getByRole('alert').filter({ hasText: /\S/ }).count(), 0, 'a field’s error is at the field, not in the alert');

    // A day after the server's today: the server's words under the date.
    await amount.fill('20');
    await page.getByLabel('Date it arrived (UTC)').fill('2026-01-16');
    await page.getByRole('button', { name: 'Record payment' }).click();
    await page.locator('#paidAt-error').waitFor();
    assert.match((await page.locator('#paidAt-error').textContent()) ?? '', /^paidAt 2026-01-16T00:00:00\.000Z is in the future/);
    assert.equal(await page.getByLabel('Date it arrived (UTC)').getAttribute('aria-invalid'), 'true');
    assert.equal(await amount.getAttribute('aria-invalid'), null, 'the amount is no longer refused');
    assert.deepEqual((await fromApi()).payments, [], 'nothing was recorded');
  });

  it('a partial payment: listed with its day and reference, Paid and Still owed change, the form starts again with the rest', opts, async () => {
    const page = await openInvoice(admin);
    await page.getByLabel('Amount (USD)').fill('20');
    await page.getByLabel('Date it arrived (UTC)').fill('2026-01-14');
    await page.getByLabel('Reference (optional)').fill('SEPA 0115-77');
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/api/v1/invoices/${invoice.id}/payments`));
    await page.getByRole('button', { name: 'Record payment' }).click();
    const request = await sent;
    assert.deepEqual(request.postDataJSON(), { amount: '20', paidAt: '2026-01-14T00:00:00.000Z', reference: 'SEPA 0115-77' });
    firstKey = (await request.allHeaders())['idempotency-key'] ?? '';
    assert.match(firstKey, /^[0-9a-f-]{36}$/, 'an Idempotency-Key on the request');

    await page.getByRole('status').filter({ hasText: 'Recorded $20.00. Still owed: $29.00.' }).waitFor();
    await payments(page).getByRole('row', { name: '2026-01-14 00:00 UTC $20.00 Recorded by hand SEPA 0115-77' }).waitFor();
    await page.getByLabel('Amount (USD)').and(page.locator('[value="29.00"]')).waitFor();
    assert.equal(await fact(page, 'Still owed').textContent(), '$29.00');
    assert.equal(await fact(page, 'Paid').textContent(), '$20.00');
    assert.equal(await fact(page, 'Status').textContent(), 'finalized');
    const totals = page.getByRole('table', { name: 'Totals' });
    assert.equal(
      await totals
        .getByRole('row', { name: /^Still owed / })
        .getByRole('cell')
        .textContent(),
      '$29.00',
    );
    assert.equal(await page.getByLabel('Reference (optional)').inputValue(), '', 'a new payment starts with no reference');
    // Focus on the section's heading, not lost with the form that had it.
    await page.getByRole('heading', { level: 2, name: 'Payments', exact: true }).and(page.locator(':focus')).waitFor();
    await checkScreen(admin, b.origin, 'invoice-payments', (pg) =>
      payments(pg)
        .getByRole('row', { name: /SEPA 0115-77/ })
        .waitFor(),
    );
  });

  it('a viewer sees the payments and no form', opts, async () => {
    const viewer = await signedIn(VIEWER);
    const page = await openInvoice(viewer);
    await payments(page)
      .getByRole('row', { name: /\$20\.00 Recorded by hand SEPA 0115-77/ })
      .waitFor();
    assert.equal(await fact(page, 'Still owed').textContent(), '$29.00');
    assert.equal(await page.getByRole('button', { name: 'Record payment' }).count(), 0);
    assert.equal(await page.getByLabel('Amount (USD)').count(), 0);
    await checkScreen(viewer, b.origin, 'invoice-payments-viewer', (pg) =>
      payments(pg)
        .getByRole('row', { name: /SEPA 0115-77/ })
        .waitFor(),
    );
  });

  it('the rest, double-clicked: recorded once, the invoice paid, the form gone', opts, async () => {
    const page = await openInvoice(admin);
    await page.getByLabel('Amount (USD)').and(page.locator('[value="29.00"]')).waitFor();
    const keys: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith(`/api/v1/invoices/${invoice.id}/payments`)) keys.push(r.headers()['idempotency-key'] ?? '');
    });
    await page.getByRole('button', { name: 'Record payment' }).dblclick();
    await page.getByRole('status').filter({ hasText: 'Recorded $29.00. The invoice is paid.' }).waitFor();
    await payments(page).getByRole('row', { name: '2026-01-15 12:00 UTC $29.00 Recorded by hand —' }).waitFor();
    assert.equal(await payments(page).getByRole('row').count(), 3, 'a header and two payments');
    // The invoice loads again after the payment: wait for its new status, then read the rest.
    await fact(page, 'Status')
      .filter({ hasText: /^paid$/ })
      .waitFor();
    assert.equal(await fact(page, 'Still owed').textContent(), '$0.00');
    assert.equal(await fact(page, 'Paid').textContent(), '$49.00');
    assert.equal(await fact(page, 'Paid on').textContent(), '2026-01-15 12:00 UTC');
    assert.equal(await page.getByRole('button', { name: 'Record payment' }).count(), 0);
    const now = await fromApi();
    assert.equal(now.payments.length, 2, 'the double click recorded one payment');
    assert.ok(keys.length >= 1 && keys.every((k) => k === keys[0] && k !== firstKey), `one new Idempotency-Key for the submission: ${keys.join(', ')}`);
    assert.equal(now.invoice.status, 'paid');
    await checkScreen(admin, b.origin, 'invoice-paid', (pg) => pg.getByRole('status').filter({ hasText: 'The invoice is paid.' }).waitFor());
  });

  it(
    'Refund, returned outside Tollgate: each refusal at the field it names, a partial refund issued and listed, then the rest, double-clicked, once',
    opts,
    async () => {
      const page = await openInvoice(admin);
      const refunds = page.getByRole('list', { name: 'Refunds, newest first' });
      await refunds.getByText('No refunds yet.').waitFor();
      const amount = page.getByLabel('Amount (USD)');
      await amount.and(page.locator('[value="49.00"]')).waitFor();
      assert.match((await page.locator(`#${await amount.getAttribute('id')}-hint`).textContent()) ?? '', /not yet refunded or credited: \$49\.00\.$/);
      // Both payments were recorded by hand: the money goes back outside Tollgate unless told otherwise.
      assert.equal(await page.getByLabel('How', { exact: true }).inputValue(), 'out_of_band');
      const refund = page.getByRole('button', { name: 'Refund', exact: true });
      const amountError = page.locator('#refund-amount-error');

      // No reason: the server's words under the reason.
      await refund.click();
      await page.locator('#reason-error').waitFor();
      assert.equal(await page.locator('#reason-error').textContent(), 'body.reason is required.');
      assert.equal(await page.getByLabel('Reason', { exact: true }).getAttribute('aria-invalid'), 'true');

      // More than is left to credit (the API names the credit note's line): at the amount.
      await page.getByLabel('Reason', { exact: true }).selectOption('product_unsatisfactory');
      await amount.fill('50');
      await refund.click();
      await amountError.filter({ hasText: /^The credit note totals 50\.00, more than the 49\.00 left to credit/ }).waitFor();
      assert.equal(await amount.getAttribute('aria-invalid'), 'true');
      assert.match((await amount.getAttribute('aria-describedby')) ?? '', /\brefund-amount-error\b/);
      assert.equal(await page.getByLabel('Reason', { exact: true }).getAttribute('aria-invalid'), null, 'the reason is no longer refused');

      // Through Stripe, which took none of it: the API's 400 naming body.refund.amount, at the amount.
      await amount.fill('10');
      await page.getByLabel('How', { exact: true }).selectOption('provider');
      await refund.click();
      await amountError.filter({ hasText: /Stripe payments have left to refund \(0\.00 USD\)/ }).waitFor();
      assert.equal(await page.getByRole('alert').filter({ hasText: /\S/ }).count(), 0, 'a field’s error is at the field, not in the alert');
      const api = b.t.seed.client(b.t.demo!.environments.test.secretKey);
      const notes = async () => (await api.get(`/api/v1/credit_notes?invoiceId=${invoice.id}`)).body.data as Array<Record<string, unknown>>;
      assert.deepEqual(await notes(), [], 'no credit note was issued');

      // 10.00 returned outside Tollgate.
      await page.getByLabel('How', { exact: true }).selectOption('out_of_band');
      const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/v1/credit_notes'));
      await refund.click();
      const request = await sent;
      assert.deepEqual(request.postDataJSON(), {
        invoiceId: invoice.id,
        reason: 'product_unsatisfactory',
        lines: [{ description: 'Refund', amount: '10' }],
        refund: { method: 'out_of_band', amount: '10' },
      });
      const firstRefundKey = (await request.allHeaders())['idempotency-key'] ?? '';
      assert.match(firstRefundKey, /^[0-9a-f-]{36}$/, 'an Idempotency-Key on the request');
      await page.getByRole('status').filter({ hasText: 'Credit note CN-2026-000001 issued. Returned outside Tollgate: $10.00, succeeded.' }).waitFor();
      await refunds.getByText('2026-01-15 12:00 UTC — Returned outside Tollgate: $10.00, succeeded.').waitFor();
      // The form starts again with what may still go back; the credit note is listed; focus stays in the section.
      await amount.and(page.locator('[value="39.00"]')).waitFor();
      await page.getByRole('heading', { level: 3, name: 'Refunds', exact: true }).and(page.locator(':focus')).waitFor();
      await page
        .getByRole('table', { name: `Credit notes of invoice ${invoice.number}` })
        .getByRole('row', { name: /^CN-2026-000001 issued product_unsatisfactory/ })
        .waitFor();
      const totals = page.getByRole('table', { name: 'Totals' });
      await totals.getByRole('row', { name: 'Credited $10.00' }).waitFor();
      assert.equal(await fact(page, 'Status').textContent(), 'paid');

      // The API has the credit note, the refund, and the payment it was taken from (the newest) shows it refunded.
      const [note] = await notes();
      assert.deepEqual([note?.number, note?.total, note?.reason, note?.status], ['CN-2026-000001', '10.00', 'product_unsatisfactory', 'issued']);
      const shown = await fromApi();
      assert.equal(shown.invoice.creditedTotal, '10.00');
      assert.equal(shown.invoice.status, 'paid');
      const given = (await api.get(`/api/v1/refunds?invoiceId=${invoice.id}`)).body.data as Array<Record<string, unknown>>;
      assert.deepEqual(
        given.map((r) => [r.creditNoteId, r.method, r.status, r.amount]),
        [[note?.id, 'out_of_band', 'succeeded', '10.00']],
      );
      assert.deepEqual(
        (shown.payments as Array<{ amount: string; amountRefunded: string }>).map((p) => [p.amount, p.amountRefunded]),
        [
          ['20.00', '0.00'],
          ['29.00', '10.00'],
        ],
      );
      await checkScreen(admin, b.origin, 'invoice-refund', (pg) => pg.getByRole('status').filter({ hasText: 'Credit note CN-2026-000001 issued.' }).waitFor());
      await page.setViewportSize(WIDE);

      // The rest, double-clicked: one credit note, with a key of its own; nothing left, so no form.
      const keys: string[] = [];
      page.on('request', (r) => {
        if (r.method() === 'POST' && r.url().endsWith('/api/v1/credit_notes')) keys.push(r.headers()['idempotency-key'] ?? '');
      });
      await page.getByLabel('Reason', { exact: true }).selectOption('duplicate');
      await refund.dblclick();
      // Taken from the newest payment first: what is left of the 29.00, then the 20.00, a refund each.
      await page
        .getByRole('status')
        .filter({ hasText: 'Credit note CN-2026-000002 issued. Returned outside Tollgate: $19.00, succeeded. Returned outside Tollgate: $20.00, succeeded.' })
        .waitFor();
      await refunds.getByText(/\$20\.00, succeeded/).waitFor();
      assert.equal(await refunds.getByRole('listitem').count(), 3);
      await totals.getByRole('row', { name: 'Credited $49.00' }).waitFor();
      assert.equal(await refund.count(), 0, 'nothing left to refund: no form');
      assert.equal((await notes()).length, 2, 'the double click issued one credit note');
      assert.deepEqual(
        ((await fromApi()).payments as Array<{ amount: string; amountRefunded: string }>).map((p) => [p.amount, p.amountRefunded]),
        [
          ['20.00', '20.00'],
          ['29.00', '29.00'],
        ],
      );
      assert.ok(keys.length >= 1 && keys.every((k) => k === keys[0] && k !== firstRefundKey), `one new Idempotency-Key for the submission: ${keys.join(', ')}`);
    },
  );

  it(
    'Payments settings: a live key refused at its input, a test key connects (hints and the webhook URL, never the secrets), keys replaced, disconnected',
    opts,
    async () => {
      const { page } = admin;
      await page.setViewportSize(WIDE);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Payments' }).click();
      await heading(page, 'Payments');
      assert.equal(new URL(page.url()).pathname, '/console/settings/payments');
      await page.getByText('Stripe is not connected to test data.').waitFor();
      const key = page.getByLabel('Secret key');
      const secret = page.getByLabel('Webhook signing secret');
      assert.equal(await key.getAttribute('type'), 'password');
      assert.equal(await secret.getAttribute('type'), 'password');

      // A live key on test data: the server's 400 under the key's input.
      await key.fill(LIVE_KEY);
      await secret.fill(WEBHOOK_SECRET);
      await page.getByRole('button', { name: 'Connect Stripe' }).click();
      await page.locator('#secretKey-error').waitFor();
      assert.match((await page.locator('#secretKey-error').textContent()) ?? '', /^This is a live-mode Stripe key; the test environment takes a test-mode key/);
      assert.equal(await key.getAttribute('aria-invalid'), 'true');
      assert.equal(await secret.getAttribute('aria-invalid'), null);
      await checkScreen(admin, b.origin, 'payment-settings-refused', (pg) => pg.locator('#secretKey-error').waitFor());
      await page.setViewportSize(WIDE);

      // A test key: connected; the page shows the hints and the webhook URL, with Copy.
      await key.fill(TEST_KEY);
      await page.getByRole('button', { name: 'Connect Stripe' }).click();
      await page.getByRole('status').filter({ hasText: 'Connected. Give Stripe the webhook URL below.' }).waitFor();
      const url = page.locator('code.secret-value');
      await url.waitFor();
      const shown = (await url.textContent()) ?? '';
      assert.match(shown, new RegExp(`^${b.origin}/v1/payments/stripe/webhooks/pp_\\w+$`));
      const stored = await b.t.seed.client(b.t.demo!.environments.test.secretKey).get('/api/v1/payment_providers/stripe');
      assert.equal(shown, `${b.origin}${stored.body.webhookUrl as string}`);
      assert.equal(await fact(page, 'Secret key').textContent(), '…0001');
      assert.equal(await fact(page, 'Webhook signing secret').textContent(), '…0002');
      assert.equal(await page.getByLabel('Secret key').count(), 0, 'no key input once connected');
      const html = await page.content();
      for (const s of [TEST_KEY, LIVE_KEY, WEBHOOK_SECRET]) assert.ok(!html.includes(s), 'no secret in the page');
      await page.getByRole('button', { name: 'Copy the webhook URL' }).click();
      await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
      assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), shown);
      await checkScreen(admin, b.origin, 'payment-settings', (pg) => pg.locator('code.secret-value').waitFor());
      await page.setViewportSize(WIDE);

      // Replace keys: new hints, the same webhook URL.
      await page.getByRole('button', { name: 'Replace keys' }).click();
      await page.getByLabel('Secret key').fill('sk_test_51ExampleOnlyNotARealKey0009');
      await page.getByLabel('Webhook signing secret').fill('whsec_ExampleOnlyNotARealSecret0008');
      await page.getByRole('button', { name: 'Save the new keys' }).click();
      await page.getByRole('status').filter({ hasText: 'The keys are replaced.' }).waitFor();
      await page.locator('dl.facts dd', { hasText: '…0009' }).waitFor();
      assert.equal(await fact(page, 'Webhook signing secret').textContent(), '…0008');
      assert.equal(await url.textContent(), shown);

      // Disconnect: asked first, focus on Cancel; then gone.
      await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
      const panel = page.getByRole('group', { name: /^Disconnect Stripe from test data\?/ });
      await panel.waitFor();
      // The panel moves focus to Cancel once it is drawn: wait for it there rather than read it at once.
      await panel.getByRole('button', { name: 'Cancel' }).and(page.locator(':focus')).waitFor();
      await panel.getByRole('button', { name: 'Disconnect Stripe' }).click();
      await page.getByRole('status').filter({ hasText: 'Stripe is disconnected from test data.' }).waitFor();
      await page.getByText('Stripe is not connected to test data.').waitFor();
      const left = await b.t.seed.client(b.t.demo!.environments.test.secretKey).get('/api/v1/payment_providers');
      assert.deepEqual(left.body.data, []);
    },
  );
});
