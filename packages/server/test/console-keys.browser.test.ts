/**
 * The console's Keys, Operators and Test clocks screens in headless Chromium against a real
 * server (helpers/console-browser.ts): a secret shown once with its Copy button, a rolled key
 * refused at once and a rotated one's grace, a viewer refused by the server, inviting and removing
 * operators, and a test clock created and advanced. Every screen is checked at 1280 and 390 px.
 * One admin for the file, signed in once (sign-in is rate-limited per address and e-mail, and the
 * last-admin refusal needs a single admin). Without Chromium the file is skipped, and says so.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createOperator } from '../src/modules/operators/create-operator.js';
import {
  checkScreen,
  consoleBrowserSkip,
  contrastOf,
  NARROW,
  startConsoleBrowser,
  WIDE,
  type ConsoleBrowser,
  type ConsolePage,
} from './helpers/console-browser.js';

const skip = consoleBrowserSkip;
if (skip) console.log(`console-keys.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 90_000 };

const PASSWORD = 'correct horse battery staple';
const ADMIN = 'keys-admin@example.com';
const VIEWER = 'keys-viewer@example.com';

const heading = (page: Page, name: string, level = 1) => page.getByRole('heading', { level, name }).waitFor();

describe('the console’s keys, operators and test clocks in Chromium', () => {
  let b: ConsoleBrowser;
  let admin: ConsolePage;

  async function signedIn(email: string): Promise<ConsolePage> {
    const p = await b.open('/console');
    await heading(p.page, 'Sign in to the Tollgate console');
    await p.page.getByLabel('E-mail').fill(email);
    await p.page.getByLabel('Password').fill(PASSWORD);
    await p.page.getByRole('button', { name: 'Sign in' }).click();
    await heading(p.page, 'Demo workspace');
    return p;
  }
  /** A screen of the admin's page, by its navigation link (no reload, as an operator would). */
  async function go(p: ConsolePage, link: string): Promise<Page> {
    // checkScreen leaves the page at 390 px, where the navigation folds behind Menu.
    await p.page.setViewportSize(WIDE);
    await p.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click();
    await heading(p.page, link);
    return p.page;
  }
  /** The status an API key gets from the server when used as a Bearer key. */
  async function statusWith(key: string): Promise<number> {
    const res = await b.t.app.inject({ method: 'GET', url: '/api/v1/customers', headers: { authorization: `Bearer ${key}` } });
    return res.statusCode;
  }
  async function createWorkspaceKey(page: Page, name: string): Promise<string> {
    await page.getByRole('button', { name: 'New API key' }).click();
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByRole('checkbox', { name: 'admin' }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await heading(page, `New key “${name}”`, 3);
    return (await page.locator('.secret-value').textContent()) ?? '';
  }
  async function confirm(page: Page, button: string, confirmLabel: string) {
    await page.getByRole('button', { name: button }).click();
    await page.getByRole('button', { name: confirmLabel }).click();
  }

  before(async () => {
    if (skip) return;
    b = await startConsoleBrowser({ demo: true });
    const origin = { actor: { type: 'SYSTEM' as const, id: 'test' }, correlationId: 'test', source: 'system' as const };
    for (const [email, role] of [
      [ADMIN, 'admin'],
      [VIEWER, 'viewer'],
    ] as const) {
      await createOperator(
        b.t.deps,
        { workspaceId: b.t.demo!.workspaceId, email, name: role === 'admin' ? 'Keys Admin' : 'Keys Viewer', role, password: PASSWORD },
        origin,
      );
    }
    admin = await signedIn(ADMIN);
    await admin.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: b.origin });
  });
  // A test's pages close when it ends; the one signed in once in `before` stays.
  afterEach(async () => b?.closePages(admin));
  after(async () => b?.close());

  it('an admin issues a key: the secret once, Copy says Copied; rolling it makes the old key get 401 at once', opts, async () => {
    const page = await go(admin, 'Keys');
    await page
      .getByRole('cell', { name: b.t.demo!.environments.test.secretKey.slice(0, 8), exact: false })
      .first()
      .waitFor();
    await checkScreen(admin, b.origin, 'keys', (pg) => pg.getByRole('table', { name: 'API keys, newest first' }).getByRole('row').nth(1).waitFor());

    const secret = await createWorkspaceKey(page, 'Deploy key');
    assert.match(secret, /^sk_test_[0-9a-f]{32}$/);
    await page.getByText('it will not be shown again').waitFor();
    await checkScreen(admin, b.origin, 'keys-secret-shown', (pg) => pg.locator('.secret-value').waitFor());
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), secret);
    assert.equal(await statusWith(secret), 200);

    await page.getByRole('button', { name: 'Done, hide it' }).click();
    assert.equal(await page.getByText(secret).count(), 0, 'the secret is gone from the page');
    // The list shows its hint only.
    await page.getByRole('cell', { name: `sk_test_…${secret.slice(-4)}` }).waitFor();

    // "Roll now", as the developer hub says it: the old key stops at once.
    await confirm(page, 'Roll Deploy key', 'Roll now');
    await heading(page, 'New key for “Deploy key”', 3);
    await page.getByText('The old key is revoked').waitFor();
    const rolled = (await page.locator('.secret-value').textContent()) ?? '';
    assert.match(rolled, /^sk_test_[0-9a-f]{32}$/);
    assert.notEqual(rolled, secret);
    assert.equal(await statusWith(secret), 401, 'the rolled key is refused at once');
    assert.equal(await statusWith(rolled), 200);
    await page.getByRole('button', { name: 'Done, hide it' }).click();
  });

  it('rotating a key shows until when the old one works; it works until then and not after', opts, async () => {
    const page = await go(admin, 'Keys');
    const old = await createWorkspaceKey(page, 'Rotating key');
    await page.getByRole('button', { name: 'Done, hide it' }).click();
    await confirm(page, 'Rotate Rotating key', 'Rotate key');
    await heading(page, 'New key for “Rotating key”', 3);
    // The test app's clock is frozen: 300 seconds after it.
    const until = new Date(b.t.clock.now() + 300_000).toISOString();
    const words = `${until.slice(11, 19)} UTC on ${until.slice(0, 10)}`;
    await page.getByText(`The old key works until ${words}, then stops.`).waitFor();
    await page.getByRole('cell', { name: `Rotated: works until ${words}` }).waitFor();
    await checkScreen(admin, b.origin, 'keys-rotated', (pg) => pg.getByText(`The old key works until ${words}`).waitFor());
    assert.equal(await statusWith(old), 200, 'the old key works in its grace');
    b.t.clock.advance(300_000);
    assert.equal(await statusWith(old), 401, 'and not after it');
    await page.getByRole('button', { name: 'Done, hide it' }).click();
  });

  it('at 390 px every key’s status and actions are in view in each list, without scrolling it or the page sideways', opts, async () => {
    const page = await go(admin, 'Keys');
    const name = 'A key with a long name, as people name keys';
    await createWorkspaceKey(page, name);
    await page.getByRole('button', { name: 'Done, hide it' }).click();
    await page.getByRole('cell', { name, exact: true }).waitFor();
    await page.setViewportSize(NARROW);
    let checked = 0;
    for (const caption of ['API keys, newest first', 'Client credentials, newest first', 'Storefront keys, newest first']) {
      const table = page.getByRole('table', { name: caption });
      const headings = await table.getByRole('columnheader').allTextContents();
      const status = headings.indexOf('Status');
      const actions = headings.indexOf('Actions');
      assert.ok(status >= 0 && actions >= 0, `${caption}: ${headings.join(', ')}`);
      const rows = table.getByRole('row').filter({ has: page.getByRole('cell') });
      for (let r = 0; r < (await rows.count()); r++) {
        const cells = rows.nth(r).getByRole('cell');
        if ((await cells.count()) < headings.length) continue; // the empty list's one cell
        const where = `${caption}, row ${r + 1}`;
        const inView = async (what: string, box: { x: number; width: number } | null) =>
          assert.ok(box && box.x >= 0 && box.x + box.width <= NARROW.width, `${where}: ${what} at ${JSON.stringify(box)}, out of a ${NARROW.width} px window`);
        await inView('the status', await cells.nth(status).boundingBox());
        const buttons = cells.nth(actions).getByRole('button');
        for (let k = 0; k < (await buttons.count()); k++) await inView(`“${await buttons.nth(k).textContent()}”`, await buttons.nth(k).boundingBox());
        checked += 1;
      }
    }
    assert.ok(checked >= 3, `${checked} rows checked`);
    assert.ok((await page.evaluate<number>('document.documentElement.scrollWidth')) <= NARROW.width, 'the page is no wider than the window');
  });

  it('a storefront key: its secret once, then revoked after a confirmation', opts, async () => {
    const page = await go(admin, 'Keys');
    await page.getByRole('button', { name: 'New storefront key' }).click();
    const form = page.locator('#storefront-keys-new');
    await form.getByLabel('Name', { exact: true }).fill('Shop');
    await form.getByLabel('Storefront id').fill('sf_nope');
    await form.getByRole('button', { name: 'Create key' }).click();
    // The API's refusal in the page (next to the field when it names one).
    await form.locator('.field-error, .form-alert:not(.empty)').first().waitFor();
    await form.getByLabel('Storefront id').fill(b.t.demo!.environments.test.storefrontId);
    await form.getByRole('button', { name: 'Create key' }).click();
    await heading(page, 'New storefront key “Shop”', 3);
    assert.match((await page.locator('.secret-value').textContent()) ?? '', /^pk_test_/);
    await page.getByRole('button', { name: 'Done, hide it' }).click();
    await page.getByRole('button', { name: 'Revoke Shop' }).click();
    await page.getByText('Revoke “Shop”? It stops working at once.').waitFor();
    // The confirming button is a danger button: its text must read on its own background (it was red on red).
    const ratio = await contrastOf(page, 'button.danger');
    assert.ok(ratio >= 4.5, `the danger button's text on its background: ${ratio.toFixed(2)}:1`);
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    const row = page.getByRole('table', { name: 'Storefront keys, newest first' }).getByRole('row', { name: /Shop/ });
    await row.getByRole('cell', { name: 'Revoked' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Revoke Shop' }).count(), 0);
    // The confirmation gone, focus stays in the section (on its heading), not at the page's start.
    assert.equal(await page.evaluate<string>('document.activeElement.textContent'), 'Storefront keys');
  });

  it('a viewer who tries to revoke or create a key sees the server’s 403 in the page; nothing changes', opts, async () => {
    const viewer = await signedIn(VIEWER);
    const page = await go(viewer, 'Keys');
    const demoKey = b.t.demo!.environments.test.secretKey;
    const refusal = 'Your role is viewer, which may only read; DELETE needs an admin of this workspace.';
    const revokeButtons = page.getByRole('table', { name: 'API keys, newest first' }).getByRole('button', { name: /^Revoke / });
    await revokeButtons.first().waitFor();
    const answer = page.waitForResponse((r) => r.request().method() === 'DELETE');
    await revokeButtons.first().click();
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    assert.equal((await answer).status(), 403);
    await page.getByRole('alert').filter({ hasText: refusal }).waitFor();
    await checkScreen(viewer, b.origin, 'keys-viewer-refused', (pg) => pg.getByText(refusal).waitFor());
    await page.getByRole('button', { name: 'New API key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Not allowed');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Your role is viewer, which may only read; POST needs an admin of this workspace.').waitFor();
    assert.equal(await statusWith(demoKey), 200, 'the demo key still works');
  });

  it('operators: an admin invites one (the link once, with Copy), removes another, and is refused removing the last admin', opts, async () => {
    const page = await go(admin, 'Operators');
    await page.getByRole('cell', { name: VIEWER, exact: true }).waitFor();
    await checkScreen(admin, b.origin, 'operators', (pg) => pg.getByRole('cell', { name: ADMIN, exact: true }).waitFor());

    await page.getByRole('button', { name: 'Invite an operator' }).click();
    // Someone already in: the server's 409 names the field, so it shows under the E-mail input.
    await page.getByLabel('E-mail').fill(ADMIN);
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    await page.locator('#email-error').filter({ hasText: 'is already an operator of this workspace' }).waitFor();
    assert.equal(await page.getByLabel('E-mail').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('E-mail').fill('invited@example.com');
    await page.getByLabel('Role').selectOption('admin');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    await heading(page, 'Invitation for invited@example.com (admin)', 3);
    const url = (await page.locator('.secret-value').textContent()) ?? '';
    assert.match(url, new RegExp(`^${b.origin}/console/accept#tgi_[0-9a-f]{64}$`));
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    await checkScreen(admin, b.origin, 'operators-invitation', (pg) => pg.locator('.secret-value').waitFor());
    await page.getByRole('button', { name: 'Done, hide it' }).click();

    await confirm(page, `Remove ${VIEWER}`, 'Remove operator');
    await page.getByRole('cell', { name: ADMIN, exact: true }).waitFor();
    await page.getByRole('cell', { name: VIEWER, exact: true }).waitFor({ state: 'detached' });

    await confirm(page, `Remove ${ADMIN}`, 'Remove operator');
    await page
      .getByRole('alert')
      .filter({ hasText: `'${ADMIN}' is the workspace's last admin` })
      .waitFor();
    await page.getByRole('cell', { name: ADMIN, exact: true }).waitFor();
  });

  it('test clocks: one created and advanced by a month; a time in its past is refused next to the field; live explains', opts, async () => {
    const page = await go(admin, 'Test clocks');
    await page.getByRole('button', { name: 'New test clock' }).click();
    await page.getByLabel('Name (optional)').fill('Renewals');
    await page.getByLabel('Start time (optional)').fill('2026-01-31T09:00:00Z');
    await page.getByRole('button', { name: 'Create test clock' }).click();
    await page.getByRole('cell', { name: '2026-01-31 09:00:00 UTC' }).waitFor();
    await page.getByRole('button', { name: 'Advance Renewals' }).click();
    await page.getByRole('button', { name: 'Advance 1 month' }).click();
    await page.getByText('“Renewals” is now at 2026-02-28 09:00:00 UTC (ready).').waitFor();
    await page.getByRole('cell', { name: '2026-02-28 09:00:00 UTC' }).waitFor();
    const stored = await b.t.app.inject({
      method: 'GET',
      url: '/api/v1/test_clocks',
      headers: { authorization: `Bearer ${b.t.demo!.environments.test.secretKey}` },
    });
    assert.equal(
      stored.json<{ data: Array<{ name: string; frozenTime: string }> }>().data.find((c) => c.name === 'Renewals')?.frozenTime,
      '2026-02-28T09:00:00.000Z',
    );

    await page.getByLabel('New time').fill('2026-01-01T00:00:00Z');
    await page.getByRole('button', { name: 'Advance to this time' }).click();
    await page.locator('#frozenTime-error').filter({ hasText: 'only moves forward' }).waitFor();
    await checkScreen(admin, b.origin, 'test-clocks', (pg) => pg.locator('#frozenTime-error').waitFor());

    await page.getByRole('button', { name: 'Live data' }).click();
    await page.getByText('Test clocks exist in test data only').waitFor();
    assert.equal(await page.getByRole('table').count(), 0);
    await checkScreen(admin, b.origin, 'test-clocks-live', (pg) => pg.getByText('Test clocks exist in test data only').waitFor());
    await page.getByRole('button', { name: 'Test data' }).click();
  });
});
