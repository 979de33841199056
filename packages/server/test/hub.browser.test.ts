/**
 * The developer hub (/hub, packages/console/src/hub) in a real headless Chromium against a real
 * listening server (helpers/console-browser.ts): a hub link for customer A shows A's keys,
 * invoices, usage and subscription (with the upgrade/cancel widget), never customer B's, and the
 * API refuses B's ids; Roll revokes the old key at once and shows the new secret once; a used
 * link and an expired session (the server's frozen clock moved, no sleep) show the expired page.
 * Create key shows the new secret once and it works; a CSV upload reports its bad line by number
 * and stores the good one (the operator API counts it), and the daily chart draws it (the page's
 * clock set to the server's frozen one, so "this month" is the server's).
 * Every view is axe-clean at 1280 and 390 px, screenshots in test-artifacts/hub/. Without
 * Chromium the file is skipped, and says so.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { Client } from './helpers/seed.js';
import { findCredentialBySecret } from '../src/modules/authentication/find-credential.js';
import {
  checkScreen,
  consoleBrowserSkip,
  contrastOf,
  HUB_ARTIFACTS,
  startConsoleBrowser,
  type ConsoleBrowser,
  type ConsolePage,
} from './helpers/console-browser.js';

const skip = consoleBrowserSkip;
if (skip) console.log(`hub.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 90_000 };

interface Customer {
  customerId: string;
  subscriptionId: string;
  keyId: string;
  key: string;
  keyHint: string;
  invoiceNumber: string;
}

const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();

describe('the developer hub in Chromium', () => {
  let b: ConsoleBrowser;
  let api: Client;
  let a: Customer;
  let bee: Customer;

  /** Finalizes the subscription's draft invoice: its number. */
  async function issued(subscriptionId: string): Promise<string> {
    const [draft] = (await api.get(`/api/v1/invoices?subscriptionId=${subscriptionId}`)).body.data;
    const fin = await api.post(`/api/v1/invoices/${draft.id}/finalize`, {});
    assert.equal(fin.status, 200, JSON.stringify(fin.body));
    return fin.body.number;
  }

  /** A single-use hub link's path for a customer (`/hub#hbl_…`). */
  async function hubLink(customerId: string, extra: Record<string, unknown> = {}): Promise<string> {
    const minted = await api.post('/api/v1/hub_sessions', { customerId, ...extra });
    assert.equal(minted.status, 200, JSON.stringify(minted.body));
    return `/hub#${/#(hbl_\w+)$/.exec(minted.body.url)![1]}`;
  }

  const hub = (p: ConsolePage, name: string, ready: (page: Page) => Promise<unknown>) => checkScreen(p, b.origin, name, ready, HUB_ARTIFACTS);

  before(async () => {
    if (skip) return;
    b = await startConsoleBrowser({ demo: true });
    const env = b.t.demo!.environments.test;
    api = b.t.seed.client(env.secretKey);
    const keyOf = async (id: string) => (await api.get(`/api/v1/api-keys/${id}`)).body.hint as string;
    a = {
      customerId: env.customerId,
      subscriptionId: env.subscriptionId,
      keyId: env.productKeyId,
      key: env.productKey,
      keyHint: await keyOf(env.productKeyId),
      invoiceNumber: await issued(env.subscriptionId),
    };
    const customer = await api.post('/api/v1/customers', { name: 'Bea', email: 'bea@example.com' });
    const sub = await api.post('/api/v1/subscriptions', { customerId: customer.body.id, offeringId: env.offeringId });
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    const key = await api.post('/api/v1/api-keys', { kind: 'PRODUCT', name: 'bea production', subscriptionId: sub.body.id });
    bee = {
      customerId: customer.body.id,
      subscriptionId: sub.body.id,
      keyId: key.body.id,
      key: key.body.fullToken,
      keyHint: key.body.hint,
      invoiceNumber: await issued(sub.body.id),
    };
    assert.notEqual(a.invoiceNumber, bee.invoiceNumber);
  });
  // A test's pages close when it ends (an open page keeps costing the browser CPU).
  afterEach(async () => b?.closePages());
  after(async () => b?.close());

  it("a hub link shows customer A's keys, usage, subscription and invoices, never B's; the API refuses B's ids with 404", opts, async () => {
    const p = await b.open(
      await hubLink(a.customerId, { theme: { accentColor: '#0f766e', title: 'Acme developers' }, returnUrl: 'https://shop.example.com/account' }),
    );
    await heading(p.page, 'API keys');
    assert.equal(new URL(p.page.url()).hash, '', 'the link token is out of the address');
    assert.equal(await p.page.title(), 'API keys · Acme developers');
    await p.page.getByRole('cell', { name: a.keyHint }).waitFor();
    await hub(p, 'keys', (page) => page.getByRole('cell', { name: a.keyHint }).waitFor());
    const text = () => p.page.locator('body').innerText();
    assert.ok(!(await text()).includes(bee.keyHint), "B's key is not shown");
    assert.equal(await p.page.getByRole('link', { name: 'Back to shop.example.com' }).getAttribute('href'), 'https://shop.example.com/account');

    // A reload keeps the session (the cookie), not the spent link.
    await p.page.reload();
    await p.page.getByRole('cell', { name: a.keyHint }).waitFor();

    await p.page.getByRole('link', { name: 'Invoices' }).click();
    await p.page.getByRole('cell', { name: a.invoiceNumber }).waitFor();
    await hub(p, 'billing', (page) => page.getByRole('cell', { name: a.invoiceNumber }).waitFor());
    assert.ok(!(await text()).includes(bee.invoiceNumber), "B's invoice is not shown");

    await p.page.getByRole('link', { name: 'Usage and quotas' }).click();
    await p.page.getByRole('heading', { level: 2, name: 'Left this period' }).waitFor();
    await hub(p, 'usage', (page) => page.locator('table[aria-busy="false"]').first().waitFor());

    await p.page.getByRole('link', { name: 'Subscription' }).click();
    await p.page.locator('tollgate-upgrade-cancel[mode="upgrade"]').waitFor();
    await p.page.waitForFunction(`!!customElements.get('tollgate-upgrade-cancel')`);
    await hub(p, 'subscription', (page) => page.locator('tollgate-upgrade-cancel[mode="cancel"]').waitFor());

    // The page's own session, asked for B's things: absent.
    const refused = await p.page.evaluate<number[]>(`
      fetch('/api/v1/hub/session').then((r) => r.json()).then((s) => {
        const post = (url, body) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': s.csrfToken }, body: JSON.stringify(body ?? {}) }).then((r) => r.status);
        return Promise.all([
          post('/api/v1/hub/keys/${bee.keyId}/revoke'),
          post('/api/v1/hub/keys/${bee.keyId}/roll'),
          post('/api/v1/hub/widget_session', { subscriptionId: '${bee.subscriptionId}' }),
        ]);
      })`);
    assert.deepEqual(refused, [404, 404, 404]);
    const keys = await p.page.evaluate<string[]>(`fetch('/api/v1/hub/keys').then((r) => r.json()).then((l) => l.data.map((k) => k.id))`);
    assert.ok(!keys.includes(bee.keyId));
  });

  it(
    'plans are named with their price, never by product id: the key form, the quota card (with the metric of what is left) and the subscription',
    opts,
    async () => {
      const p = await b.open(await hubLink(a.customerId));
      const noProductId = async (view: string) => assert.doesNotMatch(await p.page.locator('main').innerText(), /prod_/, `${view} shows no product id`);
      const option = p.page.locator(`#field-subscriptionId option[value="${a.subscriptionId}"]`);
      await option.waitFor({ state: 'attached' });
      assert.equal((await option.innerText()).trim(), 'Pro (Demo Search API), active');
      await p.page.getByRole('cell', { name: a.keyHint }).waitFor();
      await noProductId('keys');

      await p.page.getByRole('link', { name: 'Usage and quotas' }).click();
      const card = p.page.locator('.card').filter({ has: p.page.getByRole('heading', { level: 3, name: 'Pro (Demo Search API)' }) });
      await card.waitFor();
      assert.match(await card.innerText(), /100,000\s+API calls left · Available/);
      await noProductId('usage');

      await p.page.getByRole('link', { name: 'Subscription' }).click();
      const section = p.page.getByRole('region', { name: 'Pro (Demo Search API)' });
      await section.waitFor();
      assert.match(await section.innerText(), /Price\s+\$49\.00\/mo/);
      await noProductId('subscription');
    },
  );

  it('the Revoke button reads: its text stands out from its own background (contrast 4.5:1 or more)', opts, async () => {
    const p = await b.open(await hubLink(a.customerId));
    const revoke = p.page.getByRole('button', { name: /^Revoke / }).first();
    await revoke.waitFor();
    const ratio = await contrastOf(p.page, 'button[aria-label^="Revoke "]');
    assert.ok(ratio >= 4.5, `Revoke's text on its background: ${ratio.toFixed(2)}:1`);
  });

  it('/hub opened without a link says how to get one, not that a link expired', opts, async () => {
    const p = await b.open('/hub');
    await heading(p.page, 'Open the developer hub from your account');
    await p.page.getByText(/sign in to your account on the site of the service you use, and open its developer hub/).waitFor();
    assert.doesNotMatch(await p.page.locator('body').innerText(), /expired/);
    assert.equal(await p.page.title(), 'Open from your account · Developer hub');
    await hub(p, 'no-link', (page) => heading(page, 'Open the developer hub from your account'));
  });

  it('Roll, after a confirmation, revokes the old key at once (401) and shows the new secret once, with Copy', opts, async () => {
    const p = await b.open(await hubLink(a.customerId));
    await p.page.getByRole('cell', { name: a.keyHint }).waitFor();
    const old = await b.t.app.inject({ method: 'GET', url: `/api/v1/api-keys/${a.keyId}`, headers: { authorization: `Bearer ${a.key}` } });
    assert.equal(old.statusCode, 200, 'the key works before');
    await p.page
      .getByRole('button', { name: /^Roll / })
      .first()
      .click();
    await p.page.getByRole('heading', { level: 2, name: /^Roll / }).waitFor();
    await hub(p, 'keys-roll-confirm', (page) => page.getByRole('button', { name: 'Roll now' }).waitFor());
    await p.page.getByRole('button', { name: 'Roll now' }).click();
    await p.page.getByRole('heading', { level: 2, name: 'Your new key' }).waitFor();
    const secret = (await p.page.locator('code.secret').innerText()).trim();
    assert.match(secret, /^sk_test_[0-9a-f]{32}$/);
    await p.page.getByText('it stopped working at once').first().waitFor();
    await hub(p, 'keys-new-secret', (page) => page.locator('code.secret').waitFor());

    const after = await b.t.app.inject({ method: 'GET', url: `/api/v1/api-keys/${a.keyId}`, headers: { authorization: `Bearer ${a.key}` } });
    assert.equal(after.statusCode, 401, 'the old key is refused at once');
    const fresh = await b.t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: { authorization: `Bearer ${secret}` } });
    assert.notEqual(fresh.statusCode, 401, 'the new key works');

    await p.page.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await p.page.locator('code.secret').count(), 0, 'the secret is gone once dismissed');
    await p.page.getByRole('cell', { name: 'Revoked' }).first().waitFor();
    const listed = await p.page.evaluate<string>(`fetch('/api/v1/hub/keys').then((r) => r.text())`);
    assert.ok(!listed.includes(secret), 'the list never holds a secret');
  });

  it('a used link, and a session past its expiry (the frozen clock moved), show the expired page, naming the seller', opts, async () => {
    const link = await hubLink(a.customerId, { expiresInSeconds: 300, returnUrl: 'https://shop.example.com/account' });
    const p = await b.open(link);
    await heading(p.page, 'API keys');

    const again = await b.open(link);
    await heading(again.page, 'This link has expired');
    await again.page.getByText('This link has expired: ask the site that sent you here for a new one.').waitFor();
    await hub(again, 'expired-link', (page) => heading(page, 'This link has expired'));

    b.t.clock.advance(301_000);
    await p.page.getByRole('link', { name: 'Invoices' }).click();
    await heading(p.page, 'This link has expired');
    await p.page.getByText('This link has expired: ask shop.example.com for a new one.').waitFor();
    await p.page.reload();
    await p.page.getByText('This link has expired: ask shop.example.com for a new one.').waitFor();
    await hub(p, 'expired-session', (page) => heading(page, 'This link has expired'));
  });

  it('Create key: the only subscription is chosen, a missing name is said by its field, the secret is shown once and works as a Bearer key', opts, async () => {
    const p = await b.open(await hubLink(a.customerId));
    await p.page.getByRole('heading', { level: 2, name: 'Create a key' }).waitFor();
    const select = p.page.getByLabel('Subscription');
    await p.page.locator(`#field-subscriptionId option[value="${a.subscriptionId}"]`).waitFor({ state: 'attached' });
    assert.equal(await select.inputValue(), a.subscriptionId, 'the one subscription is preselected');

    await p.page.getByRole('button', { name: 'Create key' }).click();
    await p.page.locator('#name-error').waitFor();
    assert.equal(await p.page.getByLabel('Name').getAttribute('aria-invalid'), 'true');
    await hub(p, 'keys-create-errors', (page) => page.locator('#name-error').waitFor());

    await p.page.getByLabel('Name').fill('ci runner');
    await p.page.getByRole('button', { name: 'Create key' }).click();
    await p.page.getByRole('heading', { level: 2, name: 'Your new key' }).waitFor();
    const secret = (await p.page.locator('code.secret').innerText()).trim();
    assert.match(secret, /^sk_test_[0-9a-f]{32}$/);
    await p.page.getByRole('cell', { name: 'ci runner', exact: true }).waitFor();
    await hub(p, 'keys-created', (page) => page.locator('code.secret').waitFor());

    const credential = await findCredentialBySecret(b.t.deps, secret);
    assert.equal(credential?.status, 'ACTIVE');
    const used = await b.t.app.inject({ method: 'GET', url: '/api/v1/api-keys', headers: { authorization: `Bearer ${secret}` } });
    assert.notEqual(used.statusCode, 401, 'the new key is accepted as a Bearer key');
    await p.page.getByRole('button', { name: 'I have copied it' }).click();
    assert.equal(await p.page.locator('code.secret').count(), 0, 'shown once: gone when dismissed');
    const listed = await p.page.evaluate<string>(`fetch('/api/v1/hub/keys').then((r) => r.text())`);
    assert.ok(!listed.includes(secret), 'the list never holds a secret');
  });

  it('an uploaded CSV reports its bad line by number, stores the good one (the operator API counts it), and the daily chart draws it', opts, async () => {
    const env = b.t.demo!.environments.test;
    const metric = env.metricNames[0]!;
    const today = new Date(b.t.clock.now()).toISOString().slice(0, 10);
    const daily = async () => {
      const res = await api.get(`/api/v1/usage/daily?from=${today}&to=${today}&customerId=${a.customerId}&metricName=${metric}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return (res.body.data as Array<{ sum: string }>)[0]?.sum ?? '0';
    };
    const before = await daily();

    const p = await b.open(await hubLink(a.customerId));
    await heading(p.page, 'API keys');
    // The page's "this month" is the server's: its clock is frozen, so the browser's is set to it.
    await p.page.clock.setFixedTime(b.t.clock.now());
    await p.page.goto(`${b.origin}/hub/usage`);
    await p.page.getByRole('heading', { level: 2, name: 'Upload historical usage' }).waitFor();
    const at = new Date(b.t.clock.now() - 3_600_000).toISOString();
    const csv = ['metricName,quantity,occurredAt,eventId', `${metric},7,${at},hist-ok-1`, `no_such_metric,3,${at},hist-bad-1`, ''].join('\n');
    await p.page.getByLabel(/^Usage file/).setInputFiles({ name: 'history.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    // The answer is held back until the progress state has been checked: no timing involved.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await p.page.route('**/api/v1/hub/usage/uploads', async (route) => {
      await held;
      await route.continue();
    });
    await p.page.getByRole('button', { name: 'Upload' }).click();
    await p.page
      .getByRole('status')
      .filter({ hasText: /Sending the file|File sent/ })
      .waitFor();
    assert.equal(await p.page.locator('progress').count(), 1);
    await hub(p, 'usage-upload-progress', (page) => page.locator('progress').waitFor());
    release();
    const report = p.page.getByRole('status').filter({ hasText: 'Upload finished' });
    await report.waitFor();
    assert.match(await report.innerText(), /2 lines read: 1 accepted, 0 duplicates skipped, 1 rejected\./);
    const row = p.page
      .getByRole('table', { name: /Rejected lines/ })
      .getByRole('row')
      .filter({ has: p.page.getByRole('rowheader', { name: '3' }) });
    await row.waitFor();
    // A sentence, not the API's path ("line 3.metricName").
    assert.match(await row.innerText(), /^3\s+metricName\s+The metricName 'no_such_metric' is not a billable metric of this workspace and environment\./);
    assert.doesNotMatch(await row.innerText(), /line 3/);
    await hub(p, 'usage-upload-report', (page) => page.getByRole('table', { name: /Rejected lines/ }).waitFor());

    assert.equal(Number(await daily()) - Number(before), 7, 'the good line is counted by the operator API');

    // The chart redrew after the upload: today's bar holds the new total.
    const chart = p.page.getByRole('figure', { name: `${metric} per day` });
    await chart.getByText('Show the data as a table').click();
    const cell = chart.getByRole('row').filter({ has: p.page.getByRole('rowheader', { name: today }) });
    await cell.getByText(await daily()).waitFor();
    assert.match((await chart.locator('svg').getAttribute('aria-label')) ?? '', new RegExp(`highest ${await daily()}`));
    await hub(p, 'usage-chart', (page) => page.getByRole('figure', { name: `${metric} per day` }).waitFor());
  });
});
