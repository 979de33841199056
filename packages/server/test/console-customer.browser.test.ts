/**
 * The console's customer page, invoice page and home charts in a real headless Chromium against
 * a real server (helpers/console-browser.ts): usage sent through the ingest API shows in the
 * customer's chart and its data table, an invoice opens with its lines and total, home charts
 * usage and revenue; a renewal's lines named as the pricing page names its units, those with no
 * usage folded; each screen axe-clean at 1280 and 390 px. The page's clock is set to the
 * server's frozen clock, so "this month" is the same month on both sides whatever the date.
 * Without Chromium the file is skipped, and says so.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { boundCredentials } from '../src/modules/authentication/bound-credentials.js';
import { runBilling } from '../src/modules/billing/run-billing.js';
import { createOperator } from '../src/modules/operators/create-operator.js';
import { checkScreen, consoleBrowserSkip, startConsoleBrowser, type ConsoleBrowser, type ConsolePage } from './helpers/console-browser.js';

const skip = consoleBrowserSkip;
if (skip) console.log(`console-customer.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 90_000 };

const PASSWORD = 'correct horse battery staple';
/** A USD amount as the console words it: "$49.00". Two decimals here: USD invoice totals are rounded to cents. */
const money = (amount: string) => `$${amount.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;

interface Invoice {
  id: string;
  number: string | null;
  status: string;
  total: string;
  currency: string;
  lines: Array<{ type: string; description: string; metricName: string | null }>;
}

describe('the console: a customer, an invoice, the home charts', () => {
  let b: ConsoleBrowser;
  let email: string;
  let customerId: string;
  let metric: string;
  let invoice: Invoice;
  let creditNote: string;
  const now = Date.UTC(2026, 0, 15, 12, 0, 0);

  before(async () => {
    if (skip) return;
    b = await startConsoleBrowser({ demo: true });
    b.t.clock.set(now);
    const demo = b.t.demo!.environments.test;
    customerId = demo.customerId;
    metric = demo.metricNames[0] as string;
    email = 'admin-customer@example.com';
    await createOperator(
      b.t.deps,
      { workspaceId: b.t.demo!.workspaceId, email, name: 'Admin', role: 'admin', password: PASSWORD },
      { actor: { type: 'SYSTEM', id: 'test' }, correlationId: 'test', source: 'system' },
    );
    const api = b.t.seed.client(demo.secretKey);
    const ingest = await api.post('/v1/ingest/batch', {
      events: [
        { customerId, metricName: metric, quantity: 1200, occurredAt: '2026-01-10T08:00:00Z' },
        { customerId, metricName: metric, quantity: 34, occurredAt: '2026-01-10T09:00:00Z' },
        { customerId, metricName: metric, quantity: 5, occurredAt: '2026-01-14T09:00:00Z' },
      ],
    });
    assert.equal(ingest.status, 200, JSON.stringify(ingest.body));
    // The demo subscription's first invoice, finalized: numbered, and revenue of today.
    const list = await api.get(`/api/v1/customers/${customerId}/invoices`);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const first = (list.body.data as Invoice[])[0];
    assert.ok(first, 'the demo subscription has an invoice');
    if (first.status === 'draft') {
      const fin = await api.post(`/api/v1/invoices/${first.id}/finalize`, {});
      assert.equal(fin.status, 200, JSON.stringify(fin.body));
    }
    const credit = await api.post('/api/v1/credit_notes', {
      invoiceId: first.id,
      reason: 'other',
      memo: 'Goodwill',
      lines: [{ description: 'Goodwill', amount: '5.00' }],
    });
    assert.equal(credit.status, 200, JSON.stringify(credit.body));
    creditNote = credit.body.number as string;
    invoice = (await api.get(`/api/v1/invoices/${first.id}`)).body as Invoice;
    assert.ok(invoice.number, 'finalized invoices have a number');
  });
  // A test's pages close when it ends (an open page keeps costing the browser CPU).
  afterEach(async () => b?.closePages());
  after(async () => b?.close());

  /** Signed in, the page's clock at the server's. */
  async function signedIn(path: string): Promise<ConsolePage> {
    const p = await b.open('/console/sign-in');
    await p.page.clock.setFixedTime(now);
    await p.page.getByLabel('E-mail').fill(email);
    await p.page.getByLabel('Password').fill(PASSWORD);
    await p.page.getByRole('button', { name: 'Sign in' }).click();
    await p.page.getByRole('heading', { level: 1, name: 'Demo workspace' }).waitFor();
    await p.page.goto(b.origin + path);
    return p;
  }

  const chart = (page: Page, title: string) => page.getByRole('figure', { name: title });

  it(
    "a customer's page charts their usage per metric and day, with the same figures in a table, and lists subscriptions, invoices and keys",
    opts,
    async () => {
      const p = await signedIn(`/console/customers/${customerId}`);
      const { page } = p;
      await page.getByRole('heading', { level: 1, name: 'Acme Corp' }).waitFor();
      const usage = chart(page, `${metric} per day`);
      await usage.getByRole('img').waitFor();
      assert.match((await usage.getByRole('img').getAttribute('aria-label')) ?? '', /15 bars from 2026-01-01 to 2026-01-15, highest 1,234/);
      await usage.getByText('Show the data as a table').click();
      const table = usage.getByRole('table', { name: `${metric} per day` });
      await table.getByRole('row', { name: '2026-01-10 1,234' }).waitFor();
      await table.getByRole('row', { name: '2026-01-14 5' }).waitFor();
      await table.getByRole('row', { name: '2026-01-11 0' }).waitFor();
      // The subscription, the key, the invoice and the (empty) credit notes.
      await page.getByRole('table', { name: 'Subscriptions of Acme Corp' }).getByRole('cell', { name: b.t.demo!.environments.test.subscriptionId }).waitFor();
      await page.getByRole('table', { name: 'Product keys of Acme Corp' }).getByRole('cell', { name: 'Acme production key' }).waitFor();
      await page.getByRole('link', { name: invoice.number! }).waitFor();
      await page.getByRole('table', { name: 'Credit notes of Acme Corp, newest first' }).getByRole('cell', { name: creditNote }).waitFor();
      await checkScreen(p, b.origin, 'customer', (pg) => pg.getByRole('link', { name: invoice.number! }).waitFor());

      // The period picker asks the API again.
      const asked = page.waitForRequest((r) => r.url().includes('/api/v1/usage/daily') && r.url().includes('from=2026-01-09'));
      await page.getByLabel('Period').first().selectOption('7');
      await asked;
      await usage.getByRole('img', { name: /7 bars from 2026-01-09 to 2026-01-15/ }).waitFor();
    },
  );

  it('an invoice opened from the customer page shows its header, lines and total', opts, async () => {
    const p = await signedIn(`/console/customers/${customerId}`);
    const { page } = p;
    await page.getByRole('link', { name: invoice.number! }).click();
    await page.getByRole('heading', { level: 1, name: `Invoice ${invoice.number}` }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/console/invoices/${invoice.id}`);
    const lines = page.getByRole('table', { name: 'Lines' });
    for (const l of invoice.lines) await lines.getByRole('cell', { name: l.description, exact: true }).first().waitFor();
    assert.equal(invoice.currency, 'USD');
    const total = page.getByRole('table', { name: 'Totals' }).getByRole('row', { name: /^Total / });
    assert.equal(await total.getByRole('cell').textContent(), money(invoice.total));
    const credited = page.getByRole('table', { name: 'Totals' }).getByRole('row', { name: /^Credited / });
    assert.equal(await credited.getByRole('cell').textContent(), '$5.00');
    const notes = page.getByRole('table', { name: `Credit notes of invoice ${invoice.number}` });
    await notes.getByRole('row', { name: new RegExp(`^${creditNote} issued other Goodwill \\$5\\.00 `) }).waitFor();
    await checkScreen(p, b.origin, 'invoice', (pg) => pg.getByRole('table', { name: 'Totals' }).waitFor());
  });

  it("home charts this month's usage across customers and the revenue of issued invoices", opts, async () => {
    const p = await signedIn('/console');
    const { page } = p;
    const usage = chart(page, `${metric} per day`);
    await usage.getByRole('img', { name: /highest 1,234/ }).waitFor();
    const revenue = chart(page, `Revenue in ${invoice.currency} per day`);
    await revenue.getByText('Show the data as a table').click();
    await revenue.getByRole('row', { name: new RegExp(`^2026-01-15 `) }).waitFor();
    const today = await revenue.getByRole('row', { name: /^2026-01-15 / }).textContent();
    assert.ok(today && !/\s0(\.00)?$/.test(today), `today's revenue is the finalized invoice's total: ${today}`);
    await checkScreen(p, b.origin, 'home-charts', (pg) => chart(pg, `Revenue in ${invoice.currency} per day`).waitFor());
  });

  // Last: it moves the server's clock a month on, past what the tests above read as "this month".
  it('a renewal names each usage line as the pricing page names its unit, and folds the lines with no usage behind one disclosure', opts, async () => {
    const demo = b.t.demo!.environments.test;
    const api = b.t.seed.client(demo.secretKey);
    // The demo subscription's first period runs from 2026-01-15 12:00 for a month: API calls in it, no tokens, no seats.
    b.t.clock.set(Date.UTC(2026, 0, 20));
    const sent = await api.post('/v1/ingest/batch', {
      events: [{ customerId, metricName: 'api_calls', quantity: 123_456, occurredAt: '2026-01-20T00:00:00Z' }],
    });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    b.t.clock.set(Date.UTC(2026, 1, 15, 12, 5));
    await runBilling(b.t.deps, boundCredentials, { testClock: null });
    const list = await api.get(`/api/v1/invoices?subscriptionId=${demo.subscriptionId}&limit=100`);
    const renewal = (list.body.data as Array<Invoice & { billingReason: string }>).find((i) => i.billingReason === 'subscription_cycle');
    assert.ok(renewal, JSON.stringify(list.body));
    // The entry price, then one usage line per unit of the demo's Pro plan: API calls, tokens, seats.
    assert.deepEqual(
      renewal.lines.map((l) => [l.type, l.metricName]),
      [
        ['entry_price', null],
        ['usage', 'api_calls'],
        ['usage', 'tokens'],
        ['usage', 'seats'],
      ],
    );

    const p = await signedIn(`/console/invoices/${renewal.id}`);
    const { page } = p;
    const lines = page.getByRole('table', { name: 'Lines' });
    await lines.getByRole('cell', { name: 'API calls: $1.50 per 1,000 calls after 100,000 free', exact: true }).waitFor();
    await lines.getByRole('cell', { name: 'Entry price', exact: true }).waitFor();
    assert.equal(await lines.getByText(/api_calls|INCLUDED_QUOTA|VOLUME_TIERED|STAIRCASE/).count(), 0, 'no code of the API in the lines');
    // Tokens and seats, with no usage: folded, not gone.
    const fold = lines.getByRole('button', { name: '2 usage lines with no usage' });
    assert.equal(await fold.getAttribute('aria-expanded'), 'false');
    const tokens = lines.getByRole('cell', { name: 'Tokens: From $0.000008 / token', exact: true });
    assert.equal(await tokens.count(), 0, 'folded lines are out of the page until asked for');
    await checkScreen(p, b.origin, 'invoice-renewal', () => fold.waitFor());
    await fold.click();
    assert.equal(await fold.getAttribute('aria-expanded'), 'true');
    await tokens.waitFor();
    await lines.getByRole('cell', { name: 'Seats: Free up to 5 seats, then from $40.00/mo', exact: true }).waitFor();
    await checkScreen(p, b.origin, 'invoice-renewal-unfolded', () => tokens.waitFor());
  });
});
