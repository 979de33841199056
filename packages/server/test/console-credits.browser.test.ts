/**
 * A customer's prepaid credits on the console's customer page, in a real headless Chromium
 * against a real server (helpers/console-browser.ts): the balance, the grants and the ledger of
 * grants made through the API (a purchase's top-up linking to its invoice); the Grant credits
 * form refusing an amount of 0 at its field, then granting; a grant voided after asking; the
 * section axe-clean at 1280 and 390 px. The server's clock is frozen and the page's set to it.
 * Without Chromium the file is skipped, and says so.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createOperator } from '../src/modules/operators/create-operator.js';
import { checkScreen, consoleBrowserSkip, startConsoleBrowser, type ConsoleBrowser, type ConsolePage } from './helpers/console-browser.js';

const skip = consoleBrowserSkip;
if (skip) console.log(`console-credits.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 90_000 };

const PASSWORD = 'correct horse battery staple';
const NAME = 'Credits Co';

describe("the console: a customer's prepaid credits", () => {
  let b: ConsoleBrowser;
  const email = 'admin-credits@example.com';
  let customerId: string;
  let promotionalId: string;
  let topUpInvoiceId: string;
  const now = Date.UTC(2026, 0, 15, 12, 0, 0);

  before(async () => {
    if (skip) return;
    b = await startConsoleBrowser({ demo: true });
    b.t.clock.set(now);
    const demo = b.t.demo!.environments.test;
    await createOperator(
      b.t.deps,
      { workspaceId: b.t.demo!.workspaceId, email, name: 'Admin', role: 'admin', password: PASSWORD },
      { actor: { type: 'SYSTEM', id: 'test' }, correlationId: 'test', source: 'system' },
    );
    const api = b.t.seed.client(demo.secretKey);
    const customer = await api.post('/api/v1/customers', { name: NAME, email: 'billing@credits.example' });
    assert.equal(customer.status, 200, JSON.stringify(customer.body));
    customerId = customer.body.id as string;
    // No subscription: credits in any currency. A promotional grant, then a purchase, its invoice paid: a top-up with that invoice.
    const promotional = await api.post('/api/v1/credit_grants', {
      customerId,
      amount: '50',
      currency: 'USD',
      priority: 10,
      expiresAt: '2099-01-01T00:00:00Z',
    });
    assert.equal(promotional.status, 200, JSON.stringify(promotional.body));
    promotionalId = promotional.body.id as string;
    const purchased = await api.post('/api/v1/credit_grants', { customerId, amount: '20', currency: 'USD', source: 'purchased' });
    assert.equal(purchased.status, 200, JSON.stringify(purchased.body));
    topUpInvoiceId = purchased.body.invoiceId as string;
    assert.ok(topUpInvoiceId, 'a purchase has its invoice');
    const paid = await api.post(`/api/v1/invoices/${topUpInvoiceId}/pay`, {});
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
  });
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

  const balanceRow = (page: Page, text: string) =>
    page.getByRole('table', { name: `Credit balance of ${NAME}` }).getByRole('row', { name: `USD ${text} 2026-01-15 12:00 UTC` });
  const grants = (page: Page) => page.getByRole('table', { name: `Credit grants of ${NAME}, newest first` });
  const ledger = (page: Page) => page.getByRole('table', { name: `Credit ledger of ${NAME}, newest first` });

  it('shows the balance, the grants and the ledger; grants credits, a bad amount refused at its field; voids a grant after asking', opts, async () => {
    const p = await signedIn(`/console/customers/${customerId}`);
    const { page } = p;
    await page.getByRole('heading', { level: 1, name: NAME }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Prepaid credits' }).waitFor();

    // The balance, both grants (newest first) and their ledger entries.
    await balanceRow(page, '$70.00').waitFor();
    const promotional = grants(page).getByRole('row', { name: /^promotional \$50\.00 \$50\.00 active 10 2099-01-01 00:00 UTC Void$/ });
    await promotional.waitFor();
    await grants(page)
      .getByRole('row', { name: /^purchased \$20\.00 \$20\.00 active 50 never Void$/ })
      .waitFor();
    await ledger(page).getByRole('row', { name: '2026-01-15 12:00 UTC grant +$50.00 $50.00 —' }).waitFor();
    const topUp = ledger(page).getByRole('row', { name: `2026-01-15 12:00 UTC top-up +$20.00 $70.00 ${topUpInvoiceId}` });
    await topUp.waitFor();
    assert.equal(await topUp.getByRole('link', { name: topUpInvoiceId }).getAttribute('href'), `/console/invoices/${topUpInvoiceId}`);
    await checkScreen(p, b.origin, 'customer-credits', (pg) => balanceRow(pg, '$70.00').waitFor());

    // The form: currency defaults to what the customer has credits in; an amount of 0 is refused at its field.
    const amount = page.getByLabel('Amount', { exact: true });
    assert.equal(await page.getByLabel('Currency').inputValue(), 'USD');
    await amount.fill('0');
    await page.getByLabel('Priority (optional)').fill('5');
    await page.getByRole('button', { name: 'Grant credits' }).click();
    await page.locator('#amount-error').getByText('amount must be greater than 0, got 0.', { exact: false }).waitFor();
    assert.equal(await amount.getAttribute('aria-invalid'), 'true');
    assert.equal(await amount.getAttribute('aria-describedby'), 'field-amount-hint amount-error');
    await balanceRow(page, '$70.00').waitFor();
    await checkScreen(p, b.origin, 'customer-credits-refused', (pg) => pg.locator('#amount-error').waitFor());

    // A good one: granted, the balance, grants and ledger loaded again, the form emptied.
    await amount.fill('25.50');
    await page.getByLabel('Expires (optional)').fill('2026-03-01');
    await page.getByLabel('Source').selectOption('adjustment');
    await page.getByRole('button', { name: 'Grant credits' }).click();
    await page.getByRole('status').filter({ hasText: 'Granted $25.50 of adjustment credits.' }).waitFor();
    await balanceRow(page, '$95.50').waitFor();
    await grants(page)
      .getByRole('row', { name: /^adjustment \$25\.50 \$25\.50 active 5 2026-03-01 00:00 UTC Void$/ })
      .waitFor();
    await ledger(page).getByRole('row', { name: '2026-01-15 12:00 UTC grant +$25.50 $95.50 —' }).waitFor();
    assert.equal(await amount.inputValue(), '');
    assert.equal(await page.locator('#amount-error').count(), 0, 'the refusal is gone');

    // Void asks first; Cancel leaves the grant as it was.
    await promotional.getByRole('button', { name: 'Void' }).click();
    const asking = promotional.getByRole('group', { name: 'Void' });
    await asking.getByText('Void the $50.00 left of this promotional grant? What was drawn stays drawn.').waitFor();
    await checkScreen(p, b.origin, 'customer-credits-void', () => asking.waitFor());
    await asking.getByRole('button', { name: 'Cancel' }).click();
    await promotional.getByRole('button', { name: 'Void' }).click();
    await promotional.getByRole('button', { name: 'Yes, void it' }).click();
    await page.getByRole('status').filter({ hasText: 'Voided what was left of the promotional grant of $50.00.' }).waitFor();
    await grants(page)
      .getByRole('row', { name: /^promotional \$50\.00 \$0\.00 voided 10 2099-01-01 00:00 UTC$/ })
      .waitFor();
    await balanceRow(page, '$45.50').waitFor();
    await ledger(page).getByRole('row', { name: '2026-01-15 12:00 UTC void \u2212$50.00 $45.50 —' }).waitFor();
    const stored = await b.t.seed.client(b.t.demo!.environments.test.secretKey).get(`/api/v1/credit_grants/${promotionalId}`);
    assert.equal(stored.body.status, 'voided');
    assert.equal(stored.body.remaining, '0.00');
    await checkScreen(p, b.origin, 'customer-credits-voided', (pg) => balanceRow(pg, '$45.50').waitFor());
  });
});
