/**
 * The operator console in a real headless Chromium against a real listening server (helpers in
 * helpers/console-browser.ts): what loads, that it loads nothing from elsewhere, the sign-in
 * screen at 1280 and 390 px with axe-core's WCAG 2.1 A and AA rules, and how the form shows the
 * API's errors. Screenshots land in test-artifacts/console/ (git-ignored). Without Chromium the
 * file is skipped, and says so.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createOperator } from '../src/modules/operators/create-operator.js';
import { checkScreen, consoleBrowserSkip, expectAccessible, startConsoleBrowser, type ConsoleBrowser } from './helpers/console-browser.js';

const skip = consoleBrowserSkip;
if (skip) console.log(`console.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 60_000 };

const SIGN_IN = 'Sign in to the Tollgate console';
const signInShown = (page: Page) => page.getByRole('heading', { level: 1, name: SIGN_IN }).waitFor();

const PASSWORD = 'correct horse battery staple';

async function signIn(page: Page, email: string): Promise<void> {
  await signInShown(page);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('the operator console in Chromium', () => {
  let b: ConsoleBrowser;
  let n = 0;
  /** An operator of the demo workspace; its e-mail. */
  const operator = async (role: 'admin' | 'viewer') => {
    const email = `${role}-${++n}@example.com`;
    await createOperator(
      b.t.deps,
      { workspaceId: b.t.demo!.workspaceId, email, name: role, role, password: PASSWORD },
      { actor: { type: 'SYSTEM', id: 'test' }, correlationId: 'test', source: 'system' },
    );
    return email;
  };
  before(async () => {
    if (!skip) b = await startConsoleBrowser({ demo: true });
  });
  // A test's pages close when it ends (an open page keeps costing the browser CPU).
  afterEach(async () => b?.closePages());
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
    assert.ok(paths.some((x) => /^\/console\/assets\/console\.[A-Z2-7]{8}\.js$/.test(x)));
    assert.ok(paths.some((x) => /^\/console\/assets\/console\.[A-Z2-7]{8}\.css$/.test(x)));
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

  it('a wrong password is refused in the form’s alert; the sixth attempt in 15 minutes is rate-limited, with the wait', opts, async () => {
    const email = await operator('admin');
    const p = await b.open('/console/sign-in');
    await signInShown(p.page);
    await p.page.getByLabel('E-mail').fill(email);
    await p.page.getByLabel('Password').fill('not the password');
    const submit = () => p.page.getByRole('button', { name: 'Sign in' }).click();
    await submit();
    const wrong = p.page.getByText('The e-mail or the password is not right.');
    await wrong.first().waitFor();
    // In the alert region, which a screen reader announces as it fills: not only under a field.
    assert.equal(await p.page.getByRole('alert').filter({ hasText: 'The e-mail or the password is not right.' }).count(), 1);
    await expectAccessible(p.page, 'sign-in after a 401');
    for (let i = 2; i <= 5; i++) {
      // Waiting for the answer from before the click: a quick one could come before a wait begun after.
      const answered = p.page.waitForResponse((r) => r.url().endsWith('/api/v1/operator_sessions'));
      await submit();
      await answered;
    }
    // Even the right password is refused now: the limit counts attempts per address and e-mail.
    await p.page.getByLabel('Password').fill(PASSWORD);
    await submit();
    await p.page.getByText('Try again in 15 minutes.').waitFor();
    await checkScreen(p, b.origin, 'sign-in-rate-limited', (page) => page.getByText('Try again in 15 minutes.').waitFor());
    const failed = await b.t.deps.db.selectFrom('auditEvents').select('payload').where('eventType', '=', 'operator.sign_in_failed').execute();
    const reasons = failed
      .map((e) => JSON.parse(e.payload) as { email: string; reason: string })
      .filter((e) => e.email === email)
      .map((e) => e.reason);
    assert.deepEqual(reasons.sort(), ['rate_limited', 'wrong_password', 'wrong_password', 'wrong_password', 'wrong_password', 'wrong_password']);
  });

  it('an admin signs in to the home screen, switches to live, and pages through customers', opts, async () => {
    const email = await operator('admin');
    const p = await b.open('/console');
    await signIn(p.page, email);
    await p.page.getByRole('heading', { level: 1, name: 'Demo workspace' }).waitFor();
    await checkScreen(p, b.origin, 'home', (page) => page.getByRole('heading', { level: 2, name: 'Customers' }).waitFor());
    await p.page.getByRole('link', { name: 'Customers' }).first().click();
    await p.page.getByRole('cell', { name: 'Acme Corp' }).first().waitFor();
    await checkScreen(p, b.origin, 'customers', (page) => page.getByRole('cell', { name: 'Acme Corp' }).first().waitFor());
    await p.page.getByRole('button', { name: 'Live data' }).click();
    await p.page.getByText('Live data: what you change here affects real customers and real money.').waitFor();
    assert.equal(await p.page.getByRole('button', { name: 'Live data' }).getAttribute('aria-pressed'), 'true');
    await checkScreen(p, b.origin, 'customers-live', (page) => page.getByRole('cell', { name: 'Acme Corp' }).first().waitFor());
    // Every API call of the live view asked for live data, with the cookie (no key in the page).
    const liveCustomers = await p.page.evaluate<string>(
      `fetch('/api/v1/customers', { headers: { 'X-Tollgate-Environment': 'live' } }).then((r) => r.json()).then((b) => b.data[0].id)`,
    );
    assert.equal(liveCustomers, b.t.demo?.environments.live.customerId);
    await p.page.getByRole('button', { name: 'Sign out' }).click();
    await signInShown(p.page);
    assert.equal(await p.page.evaluate<number>(`fetch('/api/v1/customers').then((r) => r.status)`), 401, 'signed out at once');
  });

  it('a screen is a chunk fetched on its first visit: focus goes to its heading; a chunk that cannot be fetched says so, with Reload', opts, async () => {
    const email = await operator('admin');
    const p = await b.open('/console');
    await signIn(p.page, email);
    await p.page.getByRole('heading', { level: 1, name: 'Demo workspace' }).waitFor();
    const chunks = () => p.requests.filter((u) => /\/console\/assets\/chunk\.[A-Z2-7]{8}\.js$/.test(new URL(u).pathname)).length;
    const before = chunks();
    await p.page.getByRole('link', { name: 'Operators' }).click();
    await p.page.getByRole('heading', { level: 1, name: 'Operators' }).waitFor();
    assert.ok(chunks() > before, 'the Operators screen came in a chunk of its own');
    await p.page.waitForFunction(`document.activeElement?.tagName === 'H1'`);
    assert.deepEqual(p.problems, []);
    // The network fails for the next screen's code: an alert and a way out, not a blank page.
    await p.page.route('**/console/assets/chunk.*.js', (route) => route.abort());
    await p.page.getByRole('link', { name: 'Test clocks' }).click();
    await p.page.getByRole('heading', { level: 1, name: 'This screen could not be loaded' }).waitFor();
    assert.match((await p.page.getByRole('alert').first().textContent()) ?? '', /could not fetch this screen/);
    await expectAccessible(p.page, 'chunk-failed');
    await p.page.unroute('**/console/assets/chunk.*.js');
    await p.page.getByRole('button', { name: 'Reload the page' }).click();
    await p.page.getByRole('heading', { level: 1, name: 'Test clocks' }).waitFor();
  });

  it('a viewer who tries an admin action from the console page gets 403 from the server; reads work', opts, async () => {
    const email = await operator('viewer');
    const p = await b.open('/console');
    await signIn(p.page, email);
    await p.page.getByRole('heading', { level: 1, name: 'Demo workspace' }).waitFor();
    const answer = await p.page.evaluate<{ status: number; code: string }>(`
      fetch('/api/v1/operator_sessions/current').then((r) => r.json()).then((s) =>
        fetch('/api/v1/customers', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': s.csrfToken }, body: JSON.stringify({ name: 'Not allowed' }) }))
      .then(async (r) => ({ status: r.status, code: (await r.json()).errors[0].code }))`);
    assert.deepEqual(answer, { status: 403, code: 'INSUFFICIENT_SCOPE' });
    assert.equal(await p.page.evaluate<number>(`fetch('/api/v1/customers').then((r) => r.status)`), 200);
  });

  it('an invitation link opens the join form; joining signs the newcomer in with the invited role; the link works once', opts, async () => {
    const key = b.t.demo!.environments.test.secretKey;
    const invite = await b.t.app.inject({
      method: 'POST',
      url: '/api/v1/operator_invitations',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', host: new URL(b.origin).host },
      payload: JSON.stringify({ email: 'newcomer@example.com', role: 'viewer' }),
    });
    assert.equal(invite.statusCode, 200, invite.body);
    const url = new URL(invite.json<{ url: string }>().url);
    assert.equal(url.origin, b.origin);
    const p = await b.open(url.pathname + url.hash);
    await p.page.getByRole('heading', { level: 1, name: 'Join a Tollgate workspace' }).waitFor();
    assert.equal(await p.page.title(), 'Join a workspace · Tollgate console');
    await p.page.getByLabel('Your name').fill('New Person');
    await p.page.getByLabel('New password').fill('short');
    await p.page.getByRole('button', { name: 'Join and sign in' }).click();
    await p.page.getByText('at least 12 characters long').first().waitFor();
    await checkScreen(p, b.origin, 'accept-invitation', (page) => page.getByText('at least 12 characters long').first().waitFor());
    await p.page.getByLabel('New password').fill(PASSWORD);
    await p.page.getByRole('button', { name: 'Join and sign in' }).click();
    await p.page.getByRole('heading', { level: 1, name: 'Demo workspace' }).waitFor();
    assert.equal(new URL(p.page.url()).pathname, '/console');
    assert.equal(new URL(p.page.url()).hash, '', 'the token leaves the address bar');
    assert.equal(await p.page.locator('.role').textContent(), 'viewer');

    const again = await b.open(url.pathname + url.hash);
    await again.page.getByLabel('Your name').fill('Someone else');
    await again.page.getByLabel('New password').fill(PASSWORD);
    await again.page.getByRole('button', { name: 'Join and sign in' }).click();
    await again.page.getByText('This invitation link is not valid').waitFor();
  });
});
