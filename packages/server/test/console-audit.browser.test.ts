/**
 * The console's audit log screen in a real headless Chromium against a real listening server
 * (helpers in helpers/console-browser.ts): searching by a filter (the search in the address bar,
 * the API's field errors next to the filter), an event's details, saved searches through the
 * API's presets, and the live tail over the SSE stream read with fetch. Skipped, with the reason
 * printed, when Chromium is absent.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createOperator } from '../src/modules/operators/create-operator.js';
import { checkScreen, consoleBrowserSkip, startConsoleBrowser, WIDE, type ConsoleBrowser } from './helpers/console-browser.js';

const skip = consoleBrowserSkip;
if (skip) console.log(`console-audit.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 60_000 };

const PASSWORD = 'correct horse battery staple';
const auditShown = (page: Page) => page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
const rows = (page: Page) => page.locator('.audit-table tbody tr');

describe('the console audit log in Chromium', () => {
  let b: ConsoleBrowser;
  let n = 0;

  /** A customer made through the API with the demo's test key: a customer.created event. */
  const createCustomer = async (name: string, correlationId: string) => {
    const res = await b.t.app.inject({
      method: 'POST',
      url: '/api/v1/customers',
      headers: { authorization: `Bearer ${b.t.demo!.environments.test.secretKey}`, 'content-type': 'application/json', 'x-correlation-id': correlationId },
      payload: JSON.stringify({ name }),
    });
    assert.equal(res.statusCode, 200, res.body);
  };

  /** A new admin of the demo workspace, signed in on a fresh page at `path`. */
  const signedIn = async (path: string, role: 'admin' | 'viewer' = 'admin') => {
    const email = `audit-${role}-${++n}@example.com`;
    await createOperator(
      b.t.deps,
      { workspaceId: b.t.demo!.workspaceId, email, name: 'Auditor', role, password: PASSWORD },
      { actor: { type: 'SYSTEM', id: 'test' }, correlationId: 'test', source: 'system' },
    );
    const p = await b.open(path);
    await p.page.getByRole('heading', { level: 1, name: 'Sign in to the Tollgate console' }).waitFor();
    await p.page.getByLabel('E-mail').fill(email);
    await p.page.getByLabel('Password').fill(PASSWORD);
    await p.page.getByRole('button', { name: 'Sign in' }).click();
    await auditShown(p.page);
    return p;
  };

  before(async () => {
    if (skip) return;
    // A short retry: the live tail's reconnect comes at once.
    b = await startConsoleBrowser({ demo: true, config: { auditStreamRetryMs: 200 } });
    await createCustomer('Zebulon <b>Quartz</b>', 'corr-zebulon');
    await createCustomer('Yolanda Quartz', 'corr-yolanda');
  });
  // A test's pages close when it ends (an open page keeps costing the browser CPU).
  afterEach(async () => b?.closePages());
  after(async () => b?.close());

  it(
    'a search by a filter shows the matching event only, as a link; its details show actor, source, correlation id and the payload as text',
    opts,
    async () => {
      const p = await signedIn('/console/audit');
      const { page } = p;
      for (const label of [
        'Words',
        'Event type',
        'Severity and above',
        'Actor type',
        'Actor id',
        'Target type',
        'Target id',
        'Correlation id',
        'From (included)',
        'Until (not included)',
      ]) {
        assert.equal(await page.getByLabel(label, { exact: true }).count(), 1, label);
      }
      await page.getByLabel('Words').fill('zebulon');
      await page.getByLabel('Event type').fill('customer.*');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForURL(/\/console\/audit\?q=zebulon&type=customer\.\*$/);
      await page.getByRole('button', { name: 'customer.created' }).waitFor();
      assert.equal(await rows(page).count(), 1, 'only the matching event');

      await page.getByRole('button', { name: 'customer.created' }).click();
      const details = page.locator('.event-detail-row');
      await details.waitFor();
      const text = (await details.textContent()) ?? '';
      assert.match(text, /WORKSPACE_KEY/);
      assert.match(text, /corr-zebulon/);
      assert.match(text, /Source\s*api/);
      assert.match((await page.locator('.payload').textContent()) ?? '', /"name": "Zebulon <b>Quartz<\/b>"/, 'markup in a payload is shown as text');
      assert.equal(await page.locator('.payload b').count(), 0, 'and never rendered');
      await checkScreen(p, b.origin, 'audit', (pg) => pg.locator('.payload').waitFor());

      // The address is the search: loaded afresh, it shows the same search, filled in.
      await page.reload();
      await page.getByRole('button', { name: 'customer.created' }).waitFor();
      assert.equal(await page.getByLabel('Words').inputValue(), 'zebulon');
      assert.equal(await rows(page).count(), 1);

      // The correlation id's link finds every event of that request.
      await page.getByRole('button', { name: 'customer.created' }).click();
      await page.getByRole('link', { name: 'every event of this request' }).click();
      await page.waitForURL(/\?correlationId=corr-zebulon$/);
      assert.equal(await page.getByLabel('Correlation id').inputValue(), 'corr-zebulon');

      // A filter the API refuses: its message next to that field.
      await page.getByLabel('From (included)').fill('yesterday');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.locator('#createdFrom-error').getByText('must be an ISO 8601 time with a zone').waitFor();
      assert.equal(await page.getByLabel('From (included)').getAttribute('aria-invalid'), 'true');
    },
  );

  it('a search is saved under a name, listed, re-applied and deleted', opts, async () => {
    // The type too: saving writes an audit_preset.created event whose payload holds the name.
    const { page } = await signedIn('/console/audit?q=yolanda&type=customer.created');
    await page.getByRole('button', { name: 'customer.created' }).waitFor();
    await page.getByLabel('Save this search as').fill('Yolanda');
    await page.getByRole('button', { name: 'Save search' }).click();
    await page.getByRole('status').getByText('Saved “Yolanda”: words yolanda; type customer.created.').waitFor();
    await page.getByRole('cell', { name: 'Yolanda', exact: true }).waitFor();
    // The same name twice: the API's conflict, next to the name.
    await page.getByLabel('Save this search as').fill('Yolanda');
    await page.getByRole('button', { name: 'Save search' }).click();
    await page.locator('#name-error').getByText('already exists').waitFor();

    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL(/\/console\/audit$/);
    assert.equal(await page.getByLabel('Words').inputValue(), '');
    await page.getByRole('button', { name: 'Apply Yolanda' }).click();
    await page.waitForURL(/\/console\/audit\?q=yolanda&type=customer\.created$/);
    assert.equal(await page.getByLabel('Words').inputValue(), 'yolanda');
    await page.getByRole('button', { name: 'customer.created' }).waitFor();
    assert.equal(await rows(page).count(), 1);
    assert.match((await rows(page).textContent()) ?? '', /customer\.created/);

    await page.getByRole('button', { name: 'Delete Yolanda' }).click();
    await page.getByText('No saved searches yet.').waitFor();
    await page.getByRole('status').getByText('Deleted “Yolanda”.').waitFor();
  });

  it('the live tail shows an event caused through the API as it happens, without moving focus', opts, async () => {
    const p = await signedIn('/console/audit?type=customer.created');
    const { page } = p;
    const toggle = page.getByRole('button', { name: 'Live tail' });
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    await page.getByText('Live tail on: new events appear below as they happen.').waitFor();
    await createCustomer('Xavier Tail', 'corr-xavier');
    const item = page.locator('.tail-list li').filter({ hasText: 'customer.created' });
    await item.waitFor();
    assert.equal(await page.locator('.tail-list li').count(), 1, 'the tail carries the search: one customer.created');
    await page.getByText('1 new event; the latest: customer.created.').waitFor();
    assert.equal(await page.evaluate<string>('document.activeElement.textContent'), 'Live tail', 'focus stays on the toggle');
    await item.locator('summary').click();
    await item.getByText('"name": "Xavier Tail"').waitFor();
    await item.getByText('corr-xavier').waitFor();
    await checkScreen(p, b.origin, 'audit-live-tail', (pg) => pg.locator('.tail-list li').first().waitFor());

    // The server drops the stream; an event is committed while the page is away (most likely:
    // the retry is 200 ms); the page reconnects after the stream's retry: with Last-Event-ID and
    // receives it, once.
    const resumed = page.waitForRequest((r) => r.url().includes('/api/v1/events/stream') && r.headers()['last-event-id'] !== undefined);
    b.t.composition.auditFeed.endStreams();
    await createCustomer('Wanda Resumed', 'corr-wanda');
    const again = await resumed;
    assert.match(again.headers()['last-event-id'] ?? '', /^\d+(-\d+)?$/, 'the id: of the last event received');
    assert.equal(again.headers()['x-tollgate-environment'], 'test');
    assert.equal(again.headers()['x-tenant-id'], b.t.demo!.workspaceId);
    await page.locator('.tail-list li').filter({ hasText: 'customer.created' }).nth(1).waitFor();
    await page.getByText('2 new events; the latest: customer.created.').waitFor();
    assert.equal(await page.locator('.tail-list li').count(), 2, 'no event twice');

    // Off: the page aborts its request.
    const aborted = page.waitForEvent('requestfailed', (r) => r.url().includes('/api/v1/events/stream'));
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    await page.getByText('The live tail is off.').waitFor();
    await aborted;

    // Leaving the screen ends the stream too (at 1280 px, where the navigation shows).
    await page.setViewportSize(WIDE);
    await toggle.click();
    await page.getByText('Live tail on: new events appear below as they happen.').waitFor();
    const left = page.waitForEvent('requestfailed', (r) => r.url().includes('/api/v1/events/stream'));
    await page.getByRole('link', { name: 'Customers' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Customers' }).waitFor();
    await left;
  });

  it('with no filter, every event a page at a time', opts, async () => {
    const { page } = await signedIn('/console/audit');
    await rows(page).first().waitFor();
    assert.equal(await rows(page).count(), 20, 'the demo and the tests made more than a page');
    const first = (await rows(page).first().textContent()) ?? '';
    // The events' pager is the first; the saved searches have their own.
    const pager = page.locator('.pager').first();
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('Page 2').waitFor();
    // The page number changes one render before the rows do: wait for the rows.
    const firstRow = page.locator('.audit-table tbody tr:first-child');
    await page.locator('.audit-table tbody tr:first-child', { hasNotText: first }).waitFor();
    await pager.getByRole('button', { name: 'Previous' }).click();
    await pager.getByText('Page 1').waitFor();
    await page.locator('.audit-table tbody tr:first-child', { hasText: first }).waitFor();
    assert.equal(await firstRow.textContent(), first);
  });

  it('a viewer searches but is offered no save or delete (the server refuses them anyway)', opts, async () => {
    const { page } = await signedIn('/console/audit?type=customer.created', 'viewer');
    await page.getByRole('button', { name: 'customer.created' }).first().waitFor();
    assert.equal(await page.getByLabel('Save this search as').count(), 0);
    await page.getByRole('heading', { level: 2, name: 'Saved searches' }).waitFor();
  });
});
