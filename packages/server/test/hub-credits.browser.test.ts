/**
 * The developer hub's Credits page in headless Chromium against a real listening server
 * (helpers/console-browser.ts): the demo customer's balance, what is left of each grant soonest
 * expiry first, and the ledger, never another customer's credits; Buy credits shows the pending
 * purchase and its invoice's payment page, and the grant is pending on the server. Axe-clean at
 * 1280 and 390 px (screenshots in test-artifacts/hub/). The server's clock is frozen; the page is
 * waited on, never slept on. Without Chromium the file is skipped, and says so.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { checkScreen, consoleBrowserSkip, HUB_ARTIFACTS, startConsoleBrowser, type ConsoleBrowser } from './helpers/console-browser.js';
import type { Client } from './helpers/seed.js';

const skip = consoleBrowserSkip;
if (skip) console.log(`hub-credits.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 90_000 };

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const DAY = 86_400_000;
const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();

describe('the developer hub’s Credits page in Chromium', () => {
  let b: ConsoleBrowser;
  let api: Client;
  let customerId: string;

  async function grant(to: string, amount: string, extra: Record<string, unknown> = {}) {
    const res = await api.post('/api/v1/credit_grants', { customerId: to, amount, currency: 'USD', ...extra });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }

  before(async () => {
    if (skip) return;
    b = await startConsoleBrowser({ demo: true });
    b.t.clock.set(NOW);
    const env = b.t.demo!.environments.test;
    api = b.t.seed.client(env.secretKey);
    customerId = env.customerId;
    await grant(customerId, '40.00');
    await grant(customerId, '12.50', { expiresAt: new Date(NOW + 10 * DAY).toISOString() });
    const other = await api.post('/api/v1/customers', { name: 'Bea' });
    const sub = await api.post('/api/v1/subscriptions', { customerId: other.body.id, offeringId: env.offeringId });
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    await grant(other.body.id, '777.00');
  });
  afterEach(async () => b?.closePages());
  after(async () => b?.close());

  it('shows the balance, the credits left soonest expiry first and the ledger; Buy credits shows the pending purchase and how to pay it', opts, async () => {
    const minted = await api.post('/api/v1/hub_sessions', { customerId });
    assert.equal(minted.status, 200, JSON.stringify(minted.body));
    const p = await b.open(`/hub#${/#(hbl_\w+)$/.exec(minted.body.url)![1]}`);
    const { page } = p;
    await heading(page, 'API keys');
    await page.getByRole('navigation', { name: 'Developer hub' }).getByRole('link', { name: 'Credits' }).click();
    await heading(page, 'Credits');

    await page
      .getByRole('paragraph')
      .filter({ hasText: /^\$52\.50$/ })
      .waitFor();
    const left = page.getByRole('list', { name: 'Credits left, soonest to expire first' }).getByRole('listitem');
    await left.first().waitFor();
    assert.deepEqual(await left.allInnerTexts(), ['$12.50 left of $12.50, expires 2026-01-25 12:00 UTC', '$40.00 left of $40.00, never expires']);
    const ledger = page.getByRole('table', { name: 'Your credit ledger, newest first' });
    await ledger.getByRole('row', { name: /\$12\.50/ }).waitFor();
    assert.equal(await ledger.getByRole('row').count(), 3, 'a header row and the two grants');
    assert.ok(!(await page.content()).includes('777'), 'nothing of another customer');
    await checkScreen(p, b.origin, 'credits', (pg) => pg.getByRole('heading', { name: 'Buy credits' }).waitFor(), HUB_ARTIFACTS);

    await page.getByLabel('Amount (USD)').fill('15');
    const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/v1/hub/credits/purchases'));
    await page.getByRole('button', { name: 'Buy credits' }).click();
    const request = await sent;
    assert.ok(request.headers()['x-csrf-token'], 'sent with the CSRF token');
    assert.ok(request.headers()['idempotency-key'], 'sent with an Idempotency-Key');
    await page.getByRole('status').filter({ hasText: 'Purchase pending: $15.00 of credits' }).waitFor();
    const pay = page.getByRole('link', { name: /^Pay invoice / });
    await pay.waitFor();
    await left.filter({ hasText: '$15.00 bought: added once its invoice is paid' }).waitFor();

    const grants = (await api.get(`/api/v1/credit_grants?customerId=${customerId}`)).body.data;
    const bought = grants.find((g: { source: string }) => g.source === 'purchased');
    assert.deepEqual([bought?.status, bought?.amount], ['pending', '15.00']);
    const invoice = (await api.get(`/api/v1/invoices/${bought.invoiceId}`)).body;
    assert.deepEqual([invoice.status, invoice.total, invoice.billingReason], ['finalized', '15.00', 'credit_purchase']);
    assert.equal(await pay.getAttribute('href'), invoice.hostedInvoiceUrl);
    assert.equal(await pay.innerText(), `Pay invoice ${invoice.number}`);
    await checkScreen(p, b.origin, 'credits-pending', (pg) => pg.getByRole('link', { name: /^Pay invoice / }).waitFor(), HUB_ARTIFACTS);
  });

  it('a bad amount is refused under the Amount input, in the API’s words; nothing is bought', opts, async () => {
    const minted = await api.post('/api/v1/hub_sessions', { customerId });
    const p = await b.open(`/hub/credits#${/#(hbl_\w+)$/.exec(minted.body.url)![1]}`);
    const { page } = p;
    await heading(page, 'Credits');
    const before = (await api.get(`/api/v1/credit_grants?customerId=${customerId}`)).body.data.length;
    await page.getByLabel('Amount (USD)').fill('1.234');
    await page.getByRole('button', { name: 'Buy credits' }).click();
    const input = page.getByLabel('Amount (USD)');
    await page.locator('#amount-error').waitFor();
    assert.equal(await input.getAttribute('aria-invalid'), 'true');
    assert.match(await page.locator('#amount-error').innerText(), /minor unit/);
    assert.equal((await api.get(`/api/v1/credit_grants?customerId=${customerId}`)).body.data.length, before);
  });
});
