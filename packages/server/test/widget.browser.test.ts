/**
 * The upgrade/cancel widget in a real headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core) against a real listening server: a seller's account page on another origin
 * (http://localhost:<port>, served by a second server) loads the script from the server
 * (http://127.0.0.1:<port>/widget/v1/tollgate-widget.js) and drives the widget backend with a
 * widget session minted server-side, as a seller's backend would. What the buyer sees and does,
 * what the server then holds, the 8 browser events, keyboard-only operation, both render modes,
 * a 320 px viewport, and axe-core's WCAG 2.1 A and AA rules on every step.
 *
 * Screenshots of each step land in test-artifacts/widget/ (git-ignored). Without Chromium the
 * whole file is skipped, and says so. Functions passed to page.evaluate are strings on purpose:
 * tsx compiles this file with esbuild's keepNames, whose __name() helper does not exist in the page.
 */
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import type { WidgetConfig } from '../../widget/src/api.js';
import { candidateUnits } from '../../widget/src/present.js';
import { widgetDemo, type WidgetDemo } from './helpers/widget-demo.js';

const CHROMIUM = '/usr/bin/chromium';
const root = fileURLToPath(new URL('../../../', import.meta.url));
const artifacts = path.join(root, 'test-artifacts', 'widget');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} not found: the headless-Chromium tests of the widget are skipped (install Debian's chromium: apt-get install -y chromium; .ci/run does it when run as root)`;
if (skip) console.log(`widget.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 60_000 };

const START = Date.UTC(2026, 3, 1);
const MID = Date.UTC(2026, 3, 16);
const EVENTS = [
  'svc.upgrade-cancel.opened',
  'svc.upgrade-cancel.selected',
  'svc.upgrade-cancel.previewed',
  'svc.upgrade-cancel.confirmed',
  'svc.upgrade-cancel.completed',
  'svc.upgrade-cancel.deflection_offer_accepted',
  'svc.upgrade-cancel.dismissed',
  'svc.upgrade-cancel.failed',
];

/** What has the focus, through shadow roots: tag, text and name attribute. */
const DEEP_FOCUS = `(() => { let a = document.activeElement; while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement; return (a?.tagName ?? '') + ' ' + (a?.textContent?.trim() ?? '') + ' ' + (a?.getAttribute?.('name') ?? ''); })()`;

interface Shop extends WidgetDemo {
  page: Page;
}

interface SeenEvent {
  name: string;
  detail: Record<string, unknown>;
}

describe('the upgrade/cancel widget in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let api: string;
  let shopOrigin: string;
  let shopServer: http.Server;
  /** The seller's pages by path. */
  const pages = new Map<string, string>();
  /**
   * The buyer's tab, one for the file: each test opens its own account page in it (a new
   * document: the widget, its events and the page's focus start again), as the old page's tests
   * leave nothing behind but what afterEach undoes. A new context and page per test cost the
   * browser two renderer processes each (~0.5 s of CPU apiece), and an open page keeps costing it.
   */
  let context: BrowserContext;
  let page: Page;
  /** The current account page's script errors. */
  let problems: string[] = [];

  before(async () => {
    if (skip) return;
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    api = `http://127.0.0.1:${port}`;
    // The seller's site: another server, on another origin (localhost, not 127.0.0.1), so the
    // widget's calls are cross-origin as on a real site.
    shopServer = http.createServer((req, res) => {
      const body = pages.get(req.url ?? '');
      res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' }).end(body ?? 'not found');
    });
    await new Promise<void>((resolve) => shopServer.listen(0, '127.0.0.1', resolve));
    shopOrigin = `http://localhost:${(shopServer.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    context = await browser.newContext();
    page = await context.newPage();
    page.on('pageerror', (e) => problems.push(String(e)));
    mkdirSync(artifacts, { recursive: true });
  });
  beforeEach(() => t?.clock.set(START));
  // What a test set on the tab, undone: its routes, its request listeners, its emulated media.
  afterEach(async () => {
    if (!page) return;
    await page.unrouteAll();
    page.removeAllListeners('request');
    await page.emulateMedia({ reducedMotion: null });
  });
  after(async () => {
    try {
      await context?.close().catch(() => {});
      await browser?.close();
      await new Promise((resolve) => (shopServer ? shopServer.close(resolve) : resolve(undefined)));
    } finally {
      await t?.close();
    }
  });

  /**
   * A demo workspace (the customer on Pro, mid-period), a widget session minted for its
   * subscription as the seller's backend does, and the seller's account page with the widget.
   */
  async function shop(
    attrs: { mode: 'upgrade' | 'cancel'; renderMode?: 'modal' | 'inline'; defaultApplyAt?: 'IMMEDIATE' | 'PERIOD_END'; token?: string },
    viewport = { width: 1024, height: 800 },
  ): Promise<Shop> {
    const demo = await widgetDemo(t, MID, [shopOrigin]);
    await page.setViewportSize(viewport);
    const tag = `<tollgate-upgrade-cancel mode="${attrs.mode}" render-mode="${attrs.renderMode ?? 'modal'}" default-apply-at="${attrs.defaultApplyAt ?? 'IMMEDIATE'}" base-url="${api}" token="${attrs.token ?? demo.token}"></tollgate-upgrade-cancel>`;
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
      <title>Your account</title><style>body { font-family: Georgia, serif; margin: 1rem; }</style>
      <script>window.__events = []; for (const n of ${JSON.stringify(EVENTS)}) document.addEventListener(n, (e) => window.__events.push({ name: n, detail: e.detail }));</script>
      <script src="${api}/widget/v1/tollgate-widget.js"></script></head>
      <body><main><h1>Your account</h1><p>Plan and billing</p>${tag}</main></body></html>`;
    const at = `/account/${pages.size}`;
    pages.set(at, html);
    // The errors of this page only, from its start.
    problems = [];
    await page.goto(`${shopOrigin}${at}`);
    await page.waitForFunction(`!!customElements.get('tollgate-upgrade-cancel')`);
    (page as unknown as { problems: string[] }).problems = problems;
    return { ...demo, page };
  }

  const events = (page: Page) => page.evaluate<SeenEvent[]>('window.__events');
  const names = async (page: Page) => (await events(page)).map((e) => e.name.replace('svc.upgrade-cancel.', ''));
  const widget = (page: Page) => page.locator('tollgate-upgrade-cancel');

  async function shot(page: Page, name: string): Promise<void> {
    const file = path.join(artifacts, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    assert.ok(readFileSync(file).length > 1000, `${name}.png is a real image`);
  }

  /** axe-core in the page: no violation of the WCAG 2.1 A and AA rules. */
  async function accessible(page: Page, where: string): Promise<void> {
    if (!(await page.evaluate<boolean>('typeof window.axe !== "undefined"'))) await page.addScriptTag({ content: axeSource });
    const violations = await page.evaluate<Array<{ id: string; help: string; nodes: Array<{ target: unknown }> }>>(
      `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
    );
    assert.deepEqual(violations, [], `${where}: ${JSON.stringify(violations)}`);
  }

  async function waitIdle(page: Page): Promise<void> {
    await page.waitForFunction(
      `(() => { const p = document.querySelector('tollgate-upgrade-cancel')?.shadowRoot?.querySelector('.panel'); return p && p.getAttribute('aria-busy') === 'false'; })()`,
    );
  }

  /** Font weight of each review line's term and amount, by term. */
  const lineWeights = (page: Page) =>
    page.evaluate<Array<[string, string, string]>>(
      `[...document.querySelector('tollgate-upgrade-cancel').shadowRoot.querySelectorAll('dl dt')].map((dt) => [dt.textContent.trim(), getComputedStyle(dt).fontWeight, getComputedStyle(dt.nextElementSibling).fontWeight])`,
    );

  it(
    'upgrade IMMEDIATE in the modal: three steps, "Charged today" stands out, an invoice for the previewed amount shown by its number, the events in order',
    opts,
    async () => {
      const s = await shop({ mode: 'upgrade' });
      const w = widget(s.page);
      await w.getByRole('button', { name: 'Change plan' }).click();
      const dialog = w.getByRole('dialog', { name: 'Change your plan' });
      await dialog.waitFor();
      await waitIdle(s.page);
      await shot(s.page, 'upgrade-1-choose');
      await accessible(s.page, 'upgrade, step 1');
      // Each price as the pricing page words it.
      const candidates = (await s.api.get(`/api/v1/subscriptions/${s.env.subscriptionId}/change-candidates`)).body.data as Array<{
        name: string;
        priceText: string;
      }>;
      for (const c of candidates) await dialog.getByText(c.priceText).first().waitFor();
      await dialog.getByRole('radio', { name: /Agents/ }).check();
      await dialog.getByRole('button', { name: 'Continue' }).click();
      await waitIdle(s.page);
      await dialog.getByText('Charged today').waitFor();
      // What the buyer pays today stands out from the lines that make it up.
      const weights = await lineWeights(s.page);
      assert.ok(weights.length >= 3, JSON.stringify(weights));
      for (const [term, dt, dd] of weights) {
        if (term === 'Charged today') assert.ok(Number(dt) >= 600 && Number(dd) >= 600, `"Charged today" is bold: ${dt}/${dd}`);
        else assert.ok(Number(dt) < 600 && Number(dd) < 600, `"${term}" is not: ${dt}/${dd}`);
      }
      await shot(s.page, 'upgrade-2-preview');
      await accessible(s.page, 'upgrade, step 2');
      const preview = (await events(s.page)).find((e) => e.name === 'svc.upgrade-cancel.previewed')!.detail;
      await dialog.getByRole('button', { name: 'Confirm change' }).click();
      await dialog.getByText('Your plan is now Agents.').waitFor();
      await shot(s.page, 'upgrade-3-done');
      await accessible(s.page, 'upgrade, step 3');
      const completed = (await events(s.page)).find((e) => e.name === 'svc.upgrade-cancel.completed')!.detail;
      assert.equal(completed.action, 'UPGRADE');
      assert.match(String(completed.invoiceId), /^inv_/);
      const invoice = await s.api.get(`/api/v1/invoices/${String(completed.invoiceId)}`);
      assert.equal(invoice.status, 200, JSON.stringify(invoice.body));
      // The buyer reads the invoice's number, as on the invoice itself, never its id.
      assert.match(String(invoice.body.number), /^INV-2026-\d{6}$/);
      await dialog.getByText(`Invoice ${String(invoice.body.number)}`, { exact: true }).waitFor();
      assert.doesNotMatch(await w.locator('[part~="result"]').innerText(), /inv_|cn_/);
      assert.equal(invoice.body.total, preview.invoiceTotal, 'the invoice charges what the preview showed');
      assert.equal((await s.api.get(`/api/v1/subscriptions/${s.env.subscriptionId}`)).body.status, 'ACTIVE');
      assert.deepEqual(await names(s.page), ['opened', 'selected', 'previewed', 'confirmed', 'completed']);
      for (const e of await events(s.page)) assert.equal(e.detail.subscriptionId, s.env.subscriptionId, `${e.name} names the subscription`);
      for (const e of await events(s.page)) assert.doesNotMatch(JSON.stringify(e.detail), /@|Demo|name/i, `${e.name}: no PII in ${JSON.stringify(e.detail)}`);
      await dialog.getByRole('button', { name: 'Done' }).click();
      assert.equal(await w.getByRole('dialog').count(), 0, 'closed');
      assert.equal(await s.page.evaluate<string>(`document.activeElement?.tagName`), 'TOLLGATE-UPGRADE-CANCEL', 'focus is back on the opener');
      assert.deepEqual((s.page as unknown as { problems: string[] }).problems, []);
    },
  );

  it('upgrade PERIOD_END inline (default-apply-at PERIOD_END): nothing charged, ACTIVE_PENDING_CHANGE, the scheduled date shown', opts, async () => {
    const s = await shop({ mode: 'upgrade', renderMode: 'inline', defaultApplyAt: 'PERIOD_END' });
    const region = widget(s.page).getByRole('region', { name: 'Change your plan' });
    await region.waitFor();
    await waitIdle(s.page);
    assert.equal(await widget(s.page).getByRole('dialog').count(), 0, 'inline: no dialog');
    await region.getByRole('radio', { name: /Agents/ }).check();
    await region.getByRole('button', { name: 'Continue' }).click();
    await waitIdle(s.page);
    assert.equal(await region.getByRole('radio', { name: /At the end of the period/ }).isChecked(), true, 'PERIOD_END chosen by default');
    assert.equal(await region.getByText('Charged today').count(), 0, 'nothing charged today');
    // Changing the apply-at choice previews again, each time.
    await region.getByRole('radio', { name: 'Now' }).check();
    await region.getByText('Charged today').waitFor();
    await region.getByRole('radio', { name: /At the end of the period/ }).check();
    await waitIdle(s.page);
    await region.getByText('Charged today').waitFor({ state: 'detached' });
    assert.deepEqual(
      (await events(s.page)).filter((e) => e.name === 'svc.upgrade-cancel.previewed').map((e) => e.detail.applyAt),
      ['PERIOD_END', 'IMMEDIATE', 'PERIOD_END'],
    );
    await shot(s.page, 'upgrade-period-end-2-preview');
    await region.getByRole('button', { name: 'Confirm change' }).click();
    await region.getByText('Agents starts on May 1, 2026.').waitFor();
    await region.getByText('Status: active, a change is scheduled').waitFor();
    await shot(s.page, 'upgrade-period-end-3-done');
    await accessible(s.page, 'inline upgrade, done');
    const sub = (await s.api.get(`/api/v1/subscriptions/${s.env.subscriptionId}`)).body;
    assert.equal(sub.status, 'ACTIVE_PENDING_CHANGE');
    assert.equal(sub.scheduledChange.offeringId, s.offerings.get('Agents'));
    const completed = (await events(s.page)).find((e) => e.name === 'svc.upgrade-cancel.completed')!.detail;
    assert.deepEqual([completed.applyAt, completed.status, completed.invoiceId], ['PERIOD_END', 'ACTIVE_PENDING_CHANGE', null]);
  });

  it('downgrade IMMEDIATE: a credit note and an invoice, each shown by its number, the credit note with its amount', opts, async () => {
    const s = await shop({ mode: 'upgrade', renderMode: 'inline' });
    const region = widget(s.page).getByRole('region');
    await waitIdle(s.page);
    await region.getByRole('radio', { name: /Starter/ }).check();
    await region.getByRole('button', { name: 'Continue' }).click();
    await waitIdle(s.page);
    await region.getByText('Credited today').waitFor();
    await shot(s.page, 'downgrade-2-preview');
    await region.getByRole('button', { name: 'Confirm change' }).click();
    await region.getByText('Your plan is now Starter.').waitFor();
    const completed = (await events(s.page)).find((e) => e.name === 'svc.upgrade-cancel.completed')!.detail;
    assert.equal(completed.action, 'DOWNGRADE');
    assert.match(String(completed.creditNoteId), /^cn_/);
    const note = await s.api.get(`/api/v1/credit_notes/${String(completed.creditNoteId)}`);
    assert.equal(note.status, 200, JSON.stringify(note.body));
    assert.equal(note.body.total, completed.creditNoteAmount);
    assert.match(String(note.body.number), /^CN-2026-\d{6}$/);
    await region.getByText(new RegExp(`^Credit note ${String(note.body.number)}: \\$\\d+\\.\\d\\d$`)).waitFor();
    const invoice = await s.api.get(`/api/v1/invoices/${String(completed.invoiceId)}`);
    assert.equal(invoice.status, 200, JSON.stringify(invoice.body));
    await region.getByText(`Invoice ${String(invoice.body.number)}`, { exact: true }).waitFor();
    assert.doesNotMatch(await region.locator('[part~="result"]').innerText(), /inv_|cn_/);
    await shot(s.page, 'downgrade-3-done');
  });

  it('cancel with the offer accepted: the deflection event fires once, the subscription stays', opts, async () => {
    const s = await shop({ mode: 'cancel', renderMode: 'inline', defaultApplyAt: 'PERIOD_END' });
    const region = widget(s.page).getByRole('region', { name: 'Cancel your subscription' });
    await waitIdle(s.page);
    await shot(s.page, 'cancel-1-reasons');
    await accessible(s.page, 'cancel, reasons');
    await region.getByRole('radio', { name: 'It is too expensive' }).check();
    await region.getByRole('button', { name: 'Continue' }).click();
    await region.getByRole('heading', { name: 'Before you go' }).waitFor();
    await shot(s.page, 'cancel-offer');
    await accessible(s.page, 'cancel, offer');
    await region.getByRole('button', { name: 'Accept offer' }).click();
    await region.getByText('Offer accepted. Your subscription continues.').waitFor();
    const deflections = (await events(s.page)).filter((e) => e.name === 'svc.upgrade-cancel.deflection_offer_accepted');
    assert.equal(deflections.length, 1);
    assert.deepEqual([deflections[0]!.detail.offerKey, deflections[0]!.detail.reason], ['DISCOUNT_20_PERCENT', 'TOO_EXPENSIVE']);
    assert.ok(!(await names(s.page)).includes('completed'), 'no cancellation completed');
    assert.equal((await s.api.get(`/api/v1/subscriptions/${s.env.subscriptionId}`)).body.status, 'ACTIVE');
  });

  it('cancel completed now: the completed event, every key of the subscription revoked at once, no refund figure before', opts, async () => {
    const s = await shop({ mode: 'cancel' });
    const w = widget(s.page);
    await w.getByRole('button', { name: 'Cancel subscription' }).click();
    const dialog = w.getByRole('dialog');
    await waitIdle(s.page);
    await dialog.getByRole('radio', { name: 'Another reason' }).check();
    await dialog.getByRole('button', { name: 'Continue' }).click();
    await dialog.getByRole('button', { name: 'Confirm cancellation' }).waitFor();
    await waitIdle(s.page);
    assert.equal(await dialog.getByText(/Credit for unused time|Credited today|refund/i).count(), 0, 'no refund figure in an immediate cancel');
    await shot(s.page, 'cancel-2-preview');
    await dialog.getByRole('button', { name: 'Confirm cancellation' }).click();
    await dialog.getByText('Your subscription is cancelled.').waitFor();
    await shot(s.page, 'cancel-3-done');
    const completed = (await events(s.page)).find((e) => e.name === 'svc.upgrade-cancel.completed')!.detail;
    assert.deepEqual([completed.action, completed.applyAt, completed.status, completed.reason], ['CANCEL', 'IMMEDIATE', 'CANCELLED', 'OTHER']);
    assert.equal((await s.api.get(`/api/v1/api-keys/${s.env.productKeyId}`)).body.status, 'REVOKED');
    assert.equal((await s.api.get(`/api/v1/subscriptions/${s.env.subscriptionId}`)).body.status, 'CANCELLED');
  });

  it('a subscription changed since the preview: the typed error inline, back at step 1 with fresh data', opts, async () => {
    const s = await shop({ mode: 'upgrade', renderMode: 'inline' });
    const region = widget(s.page).getByRole('region');
    await waitIdle(s.page);
    await region.getByRole('radio', { name: /Agents/ }).check();
    await region.getByRole('button', { name: 'Continue' }).click();
    await region.getByRole('button', { name: 'Confirm change' }).waitFor();
    await waitIdle(s.page);
    // Meanwhile the seller's backend schedules a downgrade.
    const changed = await s.api.post(
      `/api/v1/subscriptions/${s.env.subscriptionId}/upgrade`,
      { offeringId: s.offerings.get('Starter'), applyAt: 'PERIOD_END' },
      { 'idempotency-key': 'stale-test' },
    );
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    await region.getByRole('button', { name: 'Confirm change' }).click();
    await region.getByText('Your subscription changed in the meantime. Here is what it is now; please choose again.').waitFor();
    await region.getByRole('radio', { name: /Agents/ }).waitFor();
    await shot(s.page, 'stale-subscription');
    const failed = (await events(s.page)).find((e) => e.name === 'svc.upgrade-cancel.failed')!.detail;
    assert.deepEqual([failed.status, failed.code], [409, 'SUBSCRIPTION_CHANGED']);
    assert.equal(
      (await s.api.get(`/api/v1/subscriptions/${s.env.subscriptionId}`)).body.scheduledChange.offeringId,
      s.offerings.get('Starter'),
      'nothing else changed',
    );
  });

  it('an expired (revoked) session says so', opts, async () => {
    const s = await shop({ mode: 'upgrade' });
    assert.equal((await s.api.delete(`/api/v1/widget_sessions/${s.sessionId}`)).status, 200);
    const w = widget(s.page);
    await w.getByRole('button', { name: 'Change plan' }).click();
    await w.getByRole('alert').getByText('This session has expired. Reload the page to start again.').waitFor();
    assert.equal(await w.getByRole('button', { name: 'Try again' }).count(), 0, 'no retry for an expired session');
    const failed = (await events(s.page)).find((e) => e.name === 'svc.upgrade-cancel.failed')!.detail;
    assert.deepEqual([failed.status, failed.code], [401, 'SESSION_EXPIRED']);
    await shot(s.page, 'expired-session');
    await accessible(s.page, 'expired session');
  });

  it('a token that is not valid (not a token at all, or well-formed and unknown) says the link is not valid, not that it expired', opts, async () => {
    for (const [i, token] of ['garbage', `wst_test_${'0'.repeat(64)}`].entries()) {
      const s = await shop({ mode: 'upgrade', token });
      const w = widget(s.page);
      await w.getByRole('button', { name: 'Change plan' }).click();
      await w.getByRole('alert').getByText('This link is not valid. Reload the page to start again.').waitFor();
      assert.equal(await w.getByText(/expired/).count(), 0, `${token}: not called expired`);
      assert.equal(await w.getByRole('button', { name: 'Try again' }).count(), 0, 'no retry: the same token would fail again');
      const failed = (await events(s.page)).find((e) => e.name === 'svc.upgrade-cancel.failed')!.detail;
      assert.deepEqual([failed.status, failed.code], [401, 'UNAUTHENTICATED']);
      if (i === 0) {
        await shot(s.page, 'invalid-token');
        await accessible(s.page, 'invalid token');
      }
    }
  });

  it('the first load failing: opened comes first, then failed, as documented; the retry opens nothing again', opts, async () => {
    const s = await shop({ mode: 'upgrade' });
    const w = widget(s.page);
    await s.page.route('**/v1/widget/subscription', (route) => route.abort('connectionrefused'));
    await w.getByRole('button', { name: 'Change plan' }).click();
    const alert = w.getByRole('alert');
    await alert.getByText('We could not reach the billing service. Check your connection and try again.').waitFor();
    assert.deepEqual(await names(s.page), ['opened', 'failed']);
    const [opened, failed] = await events(s.page);
    assert.equal(opened!.detail.subscriptionId, null, 'opened names no subscription: none was loaded');
    assert.deepEqual([failed!.detail.step, failed!.detail.status, failed!.detail.code], ['choose', 0, 'NETWORK']);
    await s.page.unroute('**/v1/widget/subscription');
    await alert.getByRole('button', { name: 'Try again' }).click();
    await w.getByRole('radio', { name: /Agents/ }).waitFor();
    assert.deepEqual(await names(s.page), ['opened', 'failed']);
  });

  it('keyboard only: a whole upgrade in the modal, focus kept inside, Escape closes and returns focus', opts, async () => {
    const s = await shop({ mode: 'upgrade' });
    const k = s.page.keyboard;
    /** Presses Tab until the focus matches, at most 20 times. */
    const tabTo = async (pattern: RegExp) => {
      for (let i = 0; i < 20 && !pattern.test(await focused()); i++) await k.press('Tab');
      assert.match(await focused(), pattern);
    };
    const focused = () => s.page.evaluate<string>(DEEP_FOCUS);
    await k.press('Tab');
    assert.match(await focused(), /BUTTON Change plan/);
    await k.press('Enter');
    await waitIdle(s.page);
    // Escape closes, and focus is back on the opener.
    await k.press('Escape');
    assert.equal(await widget(s.page).getByRole('dialog').count(), 0);
    assert.match(await focused(), /BUTTON Change plan/);
    assert.ok((await names(s.page)).includes('dismissed'));
    await k.press('Enter');
    await waitIdle(s.page);
    // Tab cycles inside the dialog: from the last control back to the first.
    const seen = new Set<string>();
    for (let i = 0; i < 8; i++) {
      await k.press('Tab');
      seen.add(await focused());
    }
    assert.ok(
      [...seen].every((f) => !/Change plan/.test(f)),
      `focus stayed in the dialog: ${[...seen].join(' | ')}`,
    );
    // Choose Agents with the arrow keys, continue, confirm.
    await tabTo(/INPUT\s+offering/);
    await k.press('Space');
    let guard = 0;
    while (
      !(await widget(s.page)
        .getByRole('radio', { name: /Agents/ })
        .isChecked()) &&
      guard++ < 5
    )
      await k.press('ArrowDown');
    assert.equal(
      await widget(s.page)
        .getByRole('radio', { name: /Agents/ })
        .isChecked(),
      true,
    );
    await tabTo(/BUTTON Continue/);
    await k.press('Enter');
    await waitIdle(s.page);
    await tabTo(/BUTTON Confirm change/);
    await k.press('Enter');
    await widget(s.page).getByText('Your plan is now Agents.').waitFor();
    assert.equal((await s.api.get(`/api/v1/subscriptions/${s.env.subscriptionId}`)).body.offeringId, s.offerings.get('Agents'));
  });

  it('keyboard only: Tab and Shift+Tab reach the cancel reasons, also after Escape from a reason and opening again', opts, async () => {
    const s = await shop({ mode: 'cancel' });
    const k = s.page.keyboard;
    const focused = () => s.page.evaluate<string>(DEEP_FOCUS);
    const cycle = async (key: 'Tab' | 'Shift+Tab') => {
      const seen: string[] = [];
      for (let i = 0; i < 8; i++) {
        await k.press(key);
        seen.push(await focused());
      }
      return seen;
    };
    await k.press('Tab');
    await k.press('Enter');
    await waitIdle(s.page);
    // With no reason chosen Continue is disabled, so the reasons are the last stop: Shift+Tab wraps to them.
    const first = await cycle('Shift+Tab');
    assert.ok(
      first.some((f) => /INPUT\s+reason/.test(f)),
      `Shift+Tab reaches the reasons on the first opening: ${first.join(' | ')}`,
    );
    // Tab to a reason (the group's first radio, none checked yet), then Escape from it.
    let guard = 0;
    while (!/INPUT\s+reason/.test(await focused()) && guard++ < 10) await k.press('Tab');
    assert.match(await focused(), /INPUT\s+reason/);
    await k.press('Escape');
    assert.equal(await widget(s.page).getByRole('dialog').count(), 0);
    assert.match(await focused(), /BUTTON Cancel subscription/);
    await k.press('Enter');
    await waitIdle(s.page);
    const forward = await cycle('Tab');
    assert.ok(
      forward.some((f) => /INPUT\s+reason/.test(f)),
      `Tab reaches the reasons: ${forward.join(' | ')}`,
    );
    const backward = await cycle('Shift+Tab');
    assert.ok(
      backward.some((f) => /INPUT\s+reason/.test(f)),
      `Shift+Tab reaches the reasons: ${backward.join(' | ')}`,
    );
    // And the flow goes on from the keyboard: a reason, Continue.
    guard = 0;
    while (!/INPUT\s+reason/.test(await focused()) && guard++ < 10) await k.press('Tab');
    await k.press('Space');
    assert.equal(await widget(s.page).getByRole('radio', { checked: true }).count(), 1, 'a reason is chosen');
    guard = 0;
    while (!/BUTTON Continue/.test(await focused()) && guard++ < 10) await k.press('Tab');
    assert.match(await focused(), /BUTTON Continue/);
  });

  it('readable at 320 px: nothing wider than the screen, every step', opts, async () => {
    const s = await shop({ mode: 'upgrade' }, { width: 320, height: 640 });
    const w = widget(s.page);
    await w.getByRole('button', { name: 'Change plan' }).click();
    await waitIdle(s.page);
    const width = () => s.page.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok((await width()) <= 320, `step 1 is ${await width()} px wide`);
    await shot(s.page, 'phone-1-choose');
    await w.getByRole('radio', { name: /Agents/ }).check();
    await w.getByRole('button', { name: 'Continue' }).click();
    await waitIdle(s.page);
    assert.ok((await width()) <= 320, `step 2 is ${await width()} px wide`);
    await shot(s.page, 'phone-2-preview');
    await accessible(s.page, 'phone, step 2');
  });

  it("follows the page: its font, the theme's custom properties and parts, a translated catalogue, no motion when reduced", opts, async () => {
    const s = await shop({ mode: 'upgrade' });
    await s.page.emulateMedia({ reducedMotion: 'reduce' });
    await s.page.addStyleTag({
      content: 'tollgate-upgrade-cancel { --tollgate-accent: rgb(15, 118, 110); } tollgate-upgrade-cancel::part(opener) { font-weight: 700; }',
    });
    await s.page.evaluate(`document.querySelector('tollgate-upgrade-cancel').messages = { openUpgrade: 'Changer de forfait', continue: 'Continuer' }`);
    const w = widget(s.page);
    /** A computed style of an element in the widget's shadow root. */
    const style = (selector: string, property: string) =>
      s.page.evaluate<string>(
        `getComputedStyle(document.querySelector('tollgate-upgrade-cancel').shadowRoot.querySelector(${JSON.stringify(selector)})).${property}`,
      );
    const opener = w.getByRole('button', { name: 'Changer de forfait' });
    assert.equal(await style('[part~="opener"]', 'fontWeight'), '700', '::part(opener)');
    await opener.click();
    await waitIdle(s.page);
    assert.match(await style('.panel', 'fontFamily'), /Georgia/, "the page's font");
    assert.equal(await style('.panel', 'animationName'), 'none', 'no motion under prefers-reduced-motion');
    await w.getByRole('radio', { name: /Agents/ }).check();
    await w.getByRole('button', { name: 'Continuer' }).waitFor();
    assert.equal(await style('button.primary', 'backgroundColor'), 'rgb(15, 118, 110)', '--tollgate-accent');
    await shot(s.page, 'themed-translated');
  });

  it('a failed call is shown inline in its step, with a retry that goes on from there', opts, async () => {
    const s = await shop({ mode: 'upgrade', renderMode: 'inline' });
    const region = widget(s.page).getByRole('region');
    await waitIdle(s.page);
    let refused = 0;
    await s.page.route('**/v1/widget/preview-change', (route) => (refused++ === 0 ? route.abort('connectionrefused') : route.continue()));
    await region.getByRole('radio', { name: /Agents/ }).check();
    await region.getByRole('button', { name: 'Continue' }).click();
    const alert = region.getByRole('alert');
    await alert.getByText('We could not reach the billing service. Check your connection and try again.').waitFor();
    await shot(s.page, 'error-retry');
    await accessible(s.page, 'an error with a retry');
    await alert.getByRole('button', { name: 'Try again' }).click();
    await region.getByText('Charged today').waitFor();
    assert.equal(await region.getByRole('alert').count(), 0, 'the error is gone');
    const failed = (await events(s.page)).find((e) => e.name === 'svc.upgrade-cancel.failed')!.detail;
    assert.deepEqual([failed.step, failed.status, failed.code], ['preview', 0, 'NETWORK']);
  });

  it('a double click on confirm changes and charges once: every request carries the same Idempotency-Key', opts, async () => {
    const s = await shop({ mode: 'upgrade', renderMode: 'inline' });
    const region = widget(s.page).getByRole('region');
    await waitIdle(s.page);
    const keys: string[] = [];
    s.page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/v1/widget/upgrade')) keys.push(r.headers()['idempotency-key'] ?? '');
    });
    await region.getByRole('radio', { name: /Agents/ }).check();
    await region.getByRole('button', { name: 'Continue' }).click();
    await waitIdle(s.page);
    await region.getByRole('button', { name: 'Confirm change' }).dblclick();
    await region.getByText('Your plan is now Agents.').waitFor();
    assert.ok(keys.length >= 1 && keys.every((k) => k === keys[0] && /^[0-9a-f-]{36}$/.test(k)), `keys sent: ${JSON.stringify(keys)}`);
    assert.equal((await names(s.page)).filter((n) => n === 'completed').length, 1);
    const audit = await s.api.get('/v1/events?limit=100');
    assert.equal(audit.status, 200, JSON.stringify(audit.body));
    const upgrades = (audit.body.data as Array<{ eventType?: string; event_type?: string }>).filter(
      (e) => (e.eventType ?? e.event_type) === 'subscription.upgraded',
    );
    assert.equal(upgrades.length, 1, 'one upgrade in the audit log');
  });

  it("step 1 lists each plan's units in the pricing page's words, as each choice's description, the current plan's too", opts, async () => {
    const s = await shop({ mode: 'upgrade' }, { width: 390, height: 844 });
    const w = widget(s.page);
    await w.getByRole('button', { name: 'Change plan' }).click();
    const dialog = w.getByRole('dialog', { name: 'Change your plan' });
    await dialog.waitFor();
    await waitIdle(s.page);
    // What a buyer reads, written out: the demo's metrics carry display names and units.
    await dialog.getByText('API calls: $1.50 per 1,000 calls after 100,000 free', { exact: true }).waitFor();
    await dialog.getByText('API calls: $0.0020 / call after 1,000 free', { exact: true }).waitFor();
    await dialog.getByText('Each token is billed at the rate of the tier it falls in.', { exact: true }).waitFor();
    // Every candidate's units, as the widget's presenter words the configuration it was sent.
    const from = { origin: shopOrigin };
    const config = (await s.widget.get('/v1/widget/config', from)).body as WidgetConfig;
    const candidates = (await s.widget.get('/v1/widget/change-candidates', from)).body.data as Array<{ offeringId: string; name: string }>;
    assert.ok(candidates.length >= 2, JSON.stringify(candidates));
    for (const [i, c] of candidates.entries()) {
      const radio = dialog.getByRole('radio').nth(i);
      assert.equal(await radio.inputValue(), c.offeringId, 'the choices in the candidates order');
      const describedBy = await radio.getAttribute('aria-describedby');
      assert.ok(describedBy, `${c.name}: the radio names its description`);
      const description = await w.locator(`#${describedBy}`).innerText();
      const lines = candidateUnits(config, c.offeringId);
      assert.ok(lines.length > 0, `${c.name} has units`);
      for (const l of lines) {
        assert.ok(description.includes(l.text), `${c.name}: "${l.text}" in ${JSON.stringify(description)}`);
        if (l.note) assert.ok(description.includes(l.note), `${c.name}: "${l.note}"`);
      }
    }
    // A radio's name stays short ("Agents $199.00/mo Upgrade"): the units are its description, not its label.
    assert.equal(await dialog.getByRole('radio', { name: /:/ }).count(), 0);
    const width = await s.page.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok(width <= 390, `step 1 with units is ${width} px wide`);
    await shot(s.page, 'units-390');
    await accessible(s.page, 'step 1 with units, 390 px');
  });
});
