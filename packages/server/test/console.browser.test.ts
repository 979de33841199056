/**
 * The operator console in a real headless Chromium against a real listening server (helpers in
 * helpers/console-browser.ts): what loads, that it loads nothing from elsewhere, the sign-in
 * screen at 1280 and 390 px with axe-core's WCAG 2.1 A and AA rules, and how the form shows the
 * API's errors. Screenshots land in test-artifacts/console/ (git-ignored). Without Chromium the
 * file is skipped, and says so.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { checkScreen, consoleBrowserSkip, expectAccessible, startConsoleBrowser, type ConsoleBrowser } from './helpers/console-browser.js';

const skip = consoleBrowserSkip;
if (skip) console.log(`console.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 60_000 };

const SIGN_IN = 'Sign in to the Tollgate console';
const signInShown = (page: Page) => page.getByRole('heading', { level: 1, name: SIGN_IN }).waitFor();

describe('the operator console in Chromium', () => {
  let b: ConsoleBrowser;
  before(async () => {
    if (!skip) b = await startConsoleBrowser();
  });
  after(async () => b?.close());

  it('signed out, /console shows the sign-in form: labelled, axe-clean at 1280 and 390 px, nothing loaded from elsewhere', opts, async () => {
    const p = await b.open('/console');
    await signInShown(p.page);
    assert.equal(await p.page.title(), 'Sign in · Tollgate console');
    assert.equal(await p.page.locator('html').getAttribute('lang'), 'en');
    for (const label of ['E-mail', 'Password', 'Workspace id (optional)']) assert.equal(await p.page.getByLabel(label).count(), 1, label);
    assert.equal(await p.page.getByLabel('E-mail').getAttribute('autocomplete'), 'username');
    assert.equal(await p.page.getByLabel('Password').getAttribute('type'), 'password');
    await checkScreen(p, b.origin, 'sign-in', signInShown);
    // The page, its stylesheet and script, and the session check: all from this server.
    const paths = p.requests.map((u) => new URL(u).pathname);
    assert.equal(paths[0], '/console');
    assert.ok(paths.some((x) => /^\/console\/assets\/console\.[0-9a-f]{16}\.js$/.test(x)));
    assert.ok(paths.some((x) => /^\/console\/assets\/console\.[0-9a-f]{16}\.css$/.test(x)));
    assert.ok(paths.includes('/api/v1/operator_sessions/current'));
  });

  it('a deep link with ?workspace= shows the sign-in form with the workspace filled in, operable from the keyboard', opts, async () => {
    const p = await b.open('/console/customers?workspace=ws_0123456789');
    await signInShown(p.page);
    assert.equal(await p.page.getByLabel('Workspace id (optional)').inputValue(), 'ws_0123456789');
    await p.page.keyboard.press('Tab');
    assert.equal(await p.page.evaluate<string>('document.activeElement.name'), 'email', 'the first stop is the e-mail');
    await p.page.keyboard.press('Tab');
    assert.equal(await p.page.evaluate<string>('document.activeElement.name'), 'password');
    const outline = await p.page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
    assert.equal(outline, 'solid', 'focus is visible');
  });

  // Until the operator session API lands on this branch, its answers are played by the page's
  // router (same origin): the form's handling of 401, 429 and field errors is the console's own.
  it("the API's errors: 401 above the form, 429 with the wait, a field's error next to its input", opts, async () => {
    const p = await b.open('/console/sign-in');
    await signInShown(p.page);
    const answers: Array<{ status: number; headers: Record<string, string>; body: unknown }> = [
      { status: 401, headers: {}, body: { success: false, errors: [{ code: 'UNAUTHENTICATED', message: 'Wrong e-mail or password.' }] } },
      { status: 429, headers: { 'retry-after': '900' }, body: { success: false, errors: [{ code: 'RATE_LIMITED', message: 'Too many failed sign-ins.' }] } },
      {
        status: 400,
        headers: {},
        body: {
          success: false,
          errors: [{ code: 'VALIDATION_FAILED', message: 'body.workspaceId must be a workspace id (ws_…).', field: 'body.workspaceId' }],
        },
      },
    ];
    const sent: unknown[] = [];
    await p.page.route('**/api/v1/operator_sessions', async (route) => {
      sent.push({ body: route.request().postDataJSON(), csrf: route.request().headers()['x-csrf-token'] ?? null });
      const a = answers.shift()!;
      await route.fulfill({ status: a.status, headers: { 'content-type': 'application/json', ...a.headers }, body: JSON.stringify(a.body) });
    });
    await p.page.getByLabel('E-mail').fill('op@example.com');
    await p.page.getByLabel('Password').fill('not it');
    const submit = () => p.page.getByRole('button', { name: 'Sign in' }).click();
    const alert = p.page.getByRole('alert');

    await submit();
    await alert.getByText('Wrong e-mail or password.').waitFor();
    await expectAccessible(p.page, 'sign-in after a 401');

    await submit();
    await alert.getByText('Too many failed sign-ins.').waitFor();
    await alert.getByText('Try again in 15 minutes.').waitFor();

    await p.page.getByLabel('Workspace id (optional)').fill('nope');
    await submit();
    const workspace = p.page.getByLabel('Workspace id (optional)');
    await p.page.getByText('body.workspaceId must be a workspace id (ws_…).').waitFor();
    assert.equal(await workspace.getAttribute('aria-invalid'), 'true');
    assert.match(String(await workspace.getAttribute('aria-describedby')), /workspaceId-error/);
    assert.equal(await p.page.locator('#workspaceId-error').textContent(), 'body.workspaceId must be a workspace id (ws_…).');
    await expectAccessible(p.page, 'sign-in with a field error');
    await checkScreen(p, b.origin, 'sign-in-errors', (page) => page.locator('#workspaceId-error').waitFor());

    assert.deepEqual(sent, [
      { body: { email: 'op@example.com', password: 'not it' }, csrf: null },
      { body: { email: 'op@example.com', password: 'not it' }, csrf: null },
      { body: { email: 'op@example.com', password: 'not it', workspaceId: 'nope' }, csrf: null },
    ]);
  });
});
