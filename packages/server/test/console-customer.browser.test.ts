/**
 * The console's customer page, invoice page and home charts in a real headless Chromium against
 * a real server (helpers/console-browser.ts): usage sent through the ingest API shows in the
 * customer's chart and its data table, an invoice opens with its lines and total, home charts
 * usage and revenue; each screen axe-clean at 1280 and 390 px. The page's clock is set to the
 * server's frozen clock, so "this month" is the same month on both sides whatever the date.
 * Without Chromium the file is skipped, and says so.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
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
  lines: Array<{ description: string }>;
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
});
