/**
 * The hosted pricing page in a real headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core), served by a real listening server: what a buyer sees, with and without
 * JavaScript, on a desktop (1280 px) and on a phone (390 px), in each state a buyer can put it
 * in (monthly, annual chosen, a seller's theme); axe-core's WCAG 2.1 A and AA rules on each; and
 * the @tollgate/pricing library bundled for the browser giving, in Chromium, exactly what it
 * gives in Node.
 *
 * Screenshots land in test-artifacts/ at the repository root (git-ignored). With UPDATE_TOUR=1
 * the demo's page is also written to docs/tour/pricing.png and pricing-phone.png (shown in
 * docs/catalog-and-pricing-page.md), compressed with pngquant when it is installed. Without Chromium the whole file is
 * skipped, and says so.
 *
 * Functions passed to page.evaluate are strings on purpose: tsx compiles this file with esbuild's
 * keepNames, whose __name() helper does not exist in the page.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import {
  describeOffering,
  describeUnitPricing,
  formatUnitRate,
  rateUnit,
  type BillingPeriod,
  type Offering,
  type RatePlan,
  type RateUnitInput,
  type UnitPricing,
} from '@tollgate/pricing';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { expectAccessible } from './helpers/console-browser.js';
import { createDemoWorkspace, type DemoEnvironment } from '../src/demo/create-demo-workspace.js';
import type { HeadlessConfig } from '../src/modules/catalog/headless-config.js';
import { createStorefront } from '../src/modules/catalog/create-storefront.js';
import { publishStorefront } from '../src/modules/catalog/publish-storefront.js';
import { pricingPagePath } from '../src/modules/catalog/storefront.js';
import { layoutOfferings, type SwitchPeriod } from '../src/modules/catalog/pricing-page-layout.js';

const CHROMIUM = '/usr/bin/chromium';
const root = fileURLToPath(new URL('../../../', import.meta.url));
const artifacts = path.join(root, 'test-artifacts');
const tour = path.join(root, 'docs', 'tour');
const pricingEntry = path.join(root, 'packages/pricing/src/index.ts');

const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} not found: the headless-Chromium tests of the pricing page are skipped (install Debian's chromium: apt-get install -y chromium; .ci/run does it when run as root)`;
if (skip) console.log(`pricing-page.browser.test.ts: SKIPPED: ${skip}`);

const WIDE = { width: 1280, height: 900 };
/** A phone: 390 px wide. The first screen is taken as the top 740 px (a phone's browser bars eat the rest). */
const PHONE = { width: 390, height: 844 };
const FIRST_SCREEN = 740;

/** The seller's logo on another host, answered by the test (the machine has no network). */
const LOGO_URL = 'https://cdn.shop.example/brand/logo.svg';
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="48" viewBox="0 0 160 48"><rect width="160" height="48" rx="10" fill="#fde047"/><circle cx="24" cy="24" r="12" fill="#1f2937"/><rect x="46" y="18" width="96" height="12" rx="6" fill="#1f2937"/></svg>';

/** The published configuration in the library's types: tier prices back to decimal text. */
function toPricing(config: HeadlessConfig): { offerings: Offering[]; ratePlans: RatePlan[] } {
  const text = (v: number | null) => (v === null ? null : String(v));
  return {
    offerings: config.offerings.map((o) => ({
      ...o,
      billingMode: o.billingMode as Offering['billingMode'],
      billingPeriod: o.billingPeriod as BillingPeriod,
    })),
    ratePlans: config.ratePlans.map((p) => ({
      id: p.id,
      name: p.name,
      currency: p.currency,
      billingPeriod: p.billingPeriod as BillingPeriod,
      metrics: p.metrics.map((u): UnitPricing => ({
        ...u,
        pricingModel: u.pricingModel as UnitPricing['pricingModel'],
        tiers: u.tiers.map((tier) => ({ ...tier, unitPrice: text(tier.unitPrice), flatFee: text(tier.flatFee) })),
      })),
    })),
  };
}

/** A PNG file: the signature, and the width and height from its IHDR chunk. */
function readPng(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  assert.ok(bytes.length > 1000, `${file} is a real image (${bytes.length} bytes)`);
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${file} is a PNG`);
  assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** A full-page screenshot in test-artifacts/, checked to be a real PNG of the viewport's width. */
async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  const file = path.join(artifacts, name);
  rmSync(file, { force: true });
  await page.screenshot({ path: file, fullPage: options.fullPage ?? true });
  assert.ok(statSync(file).size > 0);
  const width = page.viewportSize()?.width ?? 0;
  assert.equal(readPng(file).width, width);
  return file;
}

/** What a buyer reads in one (visible) offering's card. */
async function readCard(page: Page, name: string) {
  const card = page.getByRole('region', { name, exact: true });
  // The same reads, asked at once rather than one round trip after another (the page is still).
  const [price, perMonth, savings, trial, headlines] = await Promise.all([
    card.locator('.price').textContent(),
    card.locator('.per-month').allTextContents(),
    card.locator('.savings').allTextContents(),
    card.locator('.trial').allTextContents(),
    card.locator('.headline').allTextContents(),
  ]);
  return { price, perMonth, savings, trial, headlines };
}

/** The visible cards' names, in page order. */
const visibleNames = (page: Page) => page.getByRole('heading', { level: 2 }).allTextContents();

/** Visible cards grouped by grid row (same top), with their heights: equal within a row. */
async function cardRows(page: Page): Promise<Array<{ top: number; heights: number[] }>> {
  return page.evaluate<Array<{ top: number; heights: number[] }>>(`(() => {
    const rows = new Map();
    for (const el of document.querySelectorAll('.offering')) {
      const r = el.getBoundingClientRect();
      if (r.height === 0) continue;
      const top = Math.round(r.top + window.scrollY);
      rows.set(top, [...(rows.get(top) || []), Math.round(r.height * 10) / 10]);
    }
    return [...rows].map(([top, heights]) => ({ top, heights }));
  })()`);
}

/** The page's WCAG AA contrast for every text-bearing element, against the background it sits on. */
const LOW_CONTRAST = `(() => {
  const rgb = (c) => { const m = c.match(/[\\d.]+/g).map(Number); return { r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1 }; };
  const lum = ({ r, g, b }) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const background = (el) => { for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c.a > 0) return c; } return { r: 255, g: 255, b: 255, a: 1 }; };
  const bad = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.getClientRects().length === 0) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
    if (!own) continue;
    const fg = lum(rgb(getComputedStyle(el).color));
    const bg = lum(background(el));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    if (ratio < 4.5) bad.push(el.tagName + '.' + el.className + ' ' + ratio.toFixed(2));
  }
  return bad;
})()`;

/** Each test is skipped on its own, so the runner's skipped count shows them. */
const opts = { skip, timeout: 40_000 };

describe('hosted pricing page in headless Chromium', { timeout: 180_000 }, () => {
  let t: TestApp;
  let browser: Browser;
  let baseUrl: string;
  let demo: DemoEnvironment;
  let pageUrl: string;
  let themedUrl: string;
  let config: HeadlessConfig;
  let pricing: { offerings: Offering[]; ratePlans: RatePlan[] };
  const contexts: BrowserContext[] = [];

  async function open(options: Parameters<Browser['newContext']>[0] = {}): Promise<{ page: Page; requests: string[]; problems: string[] }> {
    const context = await browser.newContext(options);
    contexts.push(context);
    const page = await context.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith('data:')) requests.push(r.url());
    });
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    return { page, requests, problems };
  }

  /** Each card of a view as the display library words it, from the published configuration. */
  function expectedCards(period: SwitchPeriod) {
    // The page's own layout rule says which cards a view shows, in which order.
    return layoutOfferings(pricing.offerings)
      .slots.filter((slot) => slot.period === null || slot.period === period)
      .map((slot) => {
        const d = describeOffering(slot.offering, pricing.ratePlans);
        return {
          name: d.name,
          price: d.price,
          perMonth: d.perMonth !== null && d.perMonth !== d.price ? [`Equivalent to ${d.perMonth}`] : [],
          savings: slot.savingsPercent === null ? [] : [`Save ${slot.savingsPercent}% against monthly`],
          trial: d.trial === null ? [] : [d.trial],
          headlines: d.plans.flatMap((p) => p.units.map((u) => u.headline)),
        };
      });
  }

  async function expectCards(page: Page, period: SwitchPeriod): Promise<void> {
    const expected = expectedCards(period);
    assert.deepEqual(
      await visibleNames(page),
      expected.map((c) => c.name),
    );
    for (const card of expected) {
      const { name, ...rest } = card;
      assert.deepEqual(await readCard(page, name), rest, `${name} (${period})`);
    }
  }

  before(async () => {
    if (skip) return;
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${port}`;
    const actor = { type: 'OPERATOR' as const, id: 'browser-test' };
    const created = await createDemoWorkspace(t.deps, { actor, source: 'cli', correlationId: 'pricing-page-browser' });
    demo = created.environments.test;
    pageUrl = baseUrl + demo.pricingPagePath;
    // The published configuration as a client reads it: over HTTP, with the storefront key.
    const res = await fetch(`${baseUrl}/api/v1/portal/headless/config`, { headers: { 'x-storefront-key': demo.storefrontKey } });
    assert.equal(res.status, 200);
    config = (await res.json()) as HeadlessConfig;
    pricing = toPricing(config);

    // Another seller's look: a dark page, a yellow too light for text on white, a serif font
    // installed on Debian, and a logo on their own https host.
    const ctx = { workspaceId: created.workspaceId, environment: 'test' as const, actor, correlationId: 'pricing-page-themed', source: 'cli' as const };
    const ids = config.offerings.map((o) => o.id);
    const agents = config.offerings.find((o) => o.name === 'Agents')?.id as string;
    const themed = await createStorefront(t.deps, ctx, {
      name: 'Yellow Fox APIs',
      offeringIds: ids,
      offeringDisplay: [{ offeringId: agents, highlighted: true, callToAction: { label: 'Talk to us', url: 'https://yellowfox.example/contact' } }],
      theme: { accentColor: '#fde047', backgroundColor: '#1f2937', fontFamily: 'DejaVu Serif', logoUrl: LOGO_URL },
    });
    await publishStorefront(t.deps, ctx, themed.id);
    themedUrl = baseUrl + pricingPagePath(themed.id);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    mkdirSync(artifacts, { recursive: true });
  });

  // A test's pages close when it ends: a page left open keeps costing the browser CPU (rendering
  // frames nobody looks at) for the rest of the file.
  afterEach(async () => {
    for (const c of contexts.splice(0)) await c.close();
  });
  after(async () => {
    try {
      for (const c of contexts) await c.close().catch(() => {});
      await browser?.close();
    } finally {
      await t?.close();
    }
  });

  it('1280 px, monthly: every card with the library wording, a button under each price, Pro highlighted, equal heights, axe-clean', opts, async () => {
    const { page, requests, problems } = await open({ viewport: WIDE });
    const response = await page.goto(pageUrl);
    assert.equal(response?.status(), 200);
    assert.equal(response?.headers()['content-type'], 'text/html; charset=utf-8');

    // The monthly view by default: Starter, Pro (monthly), Agents; the annual Pro is not shown.
    assert.equal(await page.getByRole('radio', { name: 'Monthly' }).isChecked(), true);
    assert.deepEqual(await visibleNames(page), ['Starter', 'Pro', 'Agents']);
    await expectCards(page, 'MONTHLY');

    // The literal strings the display rules give for the demo catalog, with each metric's unit.
    const starter = await readCard(page, 'Starter');
    const pro = await readCard(page, 'Pro');
    const agents = await readCard(page, 'Agents');
    assert.equal(starter.price, 'Usage-based');
    assert.equal(pro.price, '$49.00/mo');
    assert.equal(agents.price, '$199.00/mo');
    assert.deepEqual(agents.trial, ['14-day free trial']);
    assert.deepEqual(starter.headlines, ['$0.0020 / call after 1,000 free', 'From $0.00001 / token']);
    assert.deepEqual(pro.headlines, ['$1.50 per 1,000 calls after 100,000 free', 'From $0.000008 / token', 'Free up to 5 seats, then from $40.00/mo']);
    assert.deepEqual(agents.headlines, ['$0.0500 / run after 100 free', '2.9% of transaction value', '$25.00/mo']);
    const proCard = page.getByRole('region', { name: 'Pro', exact: true });
    assert.deepEqual(await proCard.locator('.metric').allTextContents(), ['API calls', 'Tokens', 'Seats']);
    const agentsCard = page.getByRole('region', { name: 'Agents' });
    assert.equal(await agentsCard.locator('.minimum').textContent(), 'Minimum $10.00/mo');
    assert.deepEqual(await agentsCard.getByRole('list', { name: 'Billed by outcome:' }).getByRole('listitem').allTextContents(), [
      'Success: full price',
      'Partial: half price',
      'Error: free',
      'Timeout: free',
    ]);
    // Tables read well: captioned by the metric's display name, the first column in its unit.
    const tokens = page.getByRole('region', { name: 'Starter' }).getByRole('table', { name: 'Tokens: price tiers' });
    assert.deepEqual(await tokens.getByRole('columnheader').allTextContents(), ['Tokens', 'Per token']);
    assert.deepEqual(await tokens.locator('tbody tr').allInnerTexts(), ['First 100,000\t$0.00002', 'Next 900,000\t$0.000015', 'Over 1,000,000\t$0.00001']);
    assert.equal(await tokens.locator('xpath=following-sibling::*[1]').textContent(), 'Each token is billed at the rate of the tier it falls in.');
    const seats = proCard.getByRole('table', { name: 'Seats: price tiers' });
    assert.deepEqual(await seats.getByRole('columnheader').allTextContents(), ['Seats', 'Price']);

    // A real link per card, right under the price (and trial), leaving an iframe for the whole window.
    for (const [name, label] of [
      ['Starter', 'Start for free'],
      ['Pro', 'Choose Pro'],
      ['Agents', 'Start free trial'],
    ] as const) {
      const card = page.getByRole('region', { name, exact: true });
      const link = card.getByRole('link', { name: label });
      assert.equal(await link.count(), 1, name);
      assert.match((await link.getAttribute('href')) ?? '', /^https:\/\/example\.com\/signup\?offering=off_\w+$/);
      assert.equal(await link.getAttribute('target'), '_top');
      assert.equal(await link.getAttribute('rel'), 'noopener');
      const [linkBox, priceBox, cardBox] = await Promise.all([link.boundingBox(), card.locator('.price').boundingBox(), card.boundingBox()]);
      assert.ok(linkBox && priceBox && cardBox);
      assert.ok(linkBox.y > priceBox.y && linkBox.y + linkBox.height < WIDE.height, `${name}: the button is under the price, on the first screen`);
      assert.ok(linkBox.y - cardBox.y < 200, `${name}: near the card's top`);
    }
    assert.equal(await proCard.getByRole('link', { name: 'Choose Pro' }).getAttribute('href'), `https://example.com/signup?offering=${demo.offeringId}`);
    // Pro stands out: a badge in words, and the accent border.
    assert.deepEqual(await page.locator('.badge').filter({ visible: true }).allTextContents(), ['Most popular']);
    assert.equal(await proCard.locator('.badge').isVisible(), true);
    assert.equal(
      await page.evaluate<string>(`getComputedStyle(document.querySelector('.offering.highlighted.for-monthly')).borderTopColor`),
      'rgb(91, 33, 182)',
    );

    // The inline style ran (Chromium accepted its CSP hash): three cards side by side, equal heights.
    assert.equal(await page.evaluate<string>(`getComputedStyle(document.querySelector('.offerings')).display`), 'grid');
    const rows = await cardRows(page);
    assert.equal(rows.length, 1, `one row of three: ${JSON.stringify(rows)}`);
    for (const row of rows) {
      assert.equal(row.heights.length, 3);
      assert.ok(Math.max(...row.heights) - Math.min(...row.heights) < 1, `equal heights in a row: ${JSON.stringify(row)}`);
    }
    // The theme: the seller's font first, their colours, their logo named by the storefront.
    assert.match(await page.evaluate<string>(`getComputedStyle(document.body).fontFamily`), /^Inter, system-ui/);
    assert.equal(await page.evaluate<string>(`getComputedStyle(document.body).backgroundColor`), 'rgb(245, 243, 255)');
    assert.equal(await page.getByRole('img', { name: 'Demo pricing' }).isVisible(), true);
    // On a wide screen the phone's summary is not shown.
    assert.equal(await page.getByRole('navigation', { name: 'Plans' }).isVisible(), false);

    // System fonts only, nothing fetched: the one request is the page itself (the logo is data:).
    assert.deepEqual(requests, [pageUrl]);
    assert.deepEqual(problems, [], 'no console errors or CSP violations');
    assert.deepEqual(await page.evaluate<string[]>(LOW_CONTRAST), []);
    await expectAccessible(page, 'monthly at 1280 px');
    await screenshot(page, 'pricing-page-1280.png');
    // The CSP keeps injected script out: an inline script added to the page never runs.
    await page.addScriptTag({ content: 'window.__injected = true;' }).catch(() => {});
    assert.equal(await page.evaluate<boolean>('window.__injected === true'), false);
  });

  it('1280 px, annual chosen: Pro at its slot with its yearly price per month and its saving, equal heights, axe-clean', opts, async () => {
    const { page, problems } = await open({ viewport: WIDE });
    await page.goto(pageUrl);
    await page.getByText('Annually', { exact: true }).click();
    assert.equal(await page.getByRole('radio', { name: 'Annually' }).isChecked(), true);
    assert.deepEqual(await visibleNames(page), ['Starter', 'Pro', 'Agents']);
    await expectCards(page, 'ANNUAL');
    const pro = await readCard(page, 'Pro');
    assert.equal(pro.price, '$490.00/yr');
    assert.deepEqual(pro.perMonth, ['Equivalent to $40.83/mo']);
    assert.deepEqual(pro.savings, ['Save 16% against monthly']);
    assert.deepEqual(pro.headlines, ['$1.50 per 1,000 calls after 1,200,000 free', 'From $0.000008 / token', 'Free up to 5 seats, then from $480.00/yr']);
    const proCard = page.getByRole('region', { name: 'Pro', exact: true });
    assert.equal(await proCard.getByRole('link', { name: 'Choose Pro yearly' }).count(), 1);
    assert.equal(await proCard.locator('.badge').textContent(), 'Most popular');
    for (const row of await cardRows(page)) assert.ok(Math.max(...row.heights) - Math.min(...row.heights) < 1, JSON.stringify(row));
    // And back.
    await page.getByText('Monthly', { exact: true }).click();
    assert.equal((await readCard(page, 'Pro')).price, '$49.00/mo');
    await page.getByText('Annually', { exact: true }).click();
    assert.deepEqual(problems, []);
    assert.deepEqual(await page.evaluate<string[]>(LOW_CONTRAST), []);
    await expectAccessible(page, 'annual at 1280 px');
    await screenshot(page, 'pricing-page-annual-1280.png');
  });

  it('without JavaScript: no script on the page, the switch works by click and by keyboard with a visible focus ring', opts, async () => {
    const { page } = await open({ viewport: WIDE, javaScriptEnabled: false });
    const response = await page.goto(pageUrl);
    assert.equal(response?.status(), 200);
    assert.equal(await page.locator('script').count(), 0);
    assert.equal(await page.locator('noscript').count(), 0);
    await expectCards(page, 'MONTHLY');
    const switcher = page.getByRole('group', { name: 'Billing period' });
    assert.equal(await switcher.getByRole('radio').count(), 2);

    // By click.
    await switcher.getByText('Annually', { exact: true }).click();
    await expectCards(page, 'ANNUAL');
    await switcher.getByText('Monthly', { exact: true }).click();
    await expectCards(page, 'MONTHLY');

    // By keyboard, from a fresh load: Tab reaches the checked radio first (nothing focusable comes
    // before it), the arrows move.
    await page.goto(pageUrl);
    await page.keyboard.press('Tab');
    assert.equal(await page.locator('#period-monthly:focus').count(), 1, 'the checked radio takes focus');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getByRole('radio', { name: 'Annually' }).isChecked(), true);
    assert.equal(await page.locator('#period-annual:focus-visible').count(), 1);
    await expectCards(page, 'ANNUAL');
    // The ring is drawn on the label the hidden radio stands for.
    const ring = page.locator('#period-annual:focus-visible + label');
    assert.equal(await ring.count(), 1);
    await screenshot(page, 'pricing-page-keyboard-1280.png', { fullPage: false });
    await page.keyboard.press('ArrowLeft');
    assert.equal(await page.getByRole('radio', { name: 'Monthly' }).isChecked(), true);
    await expectCards(page, 'MONTHLY');
    // Tab on: the first card's button is next.
    await page.keyboard.press('Tab');
    assert.equal(await page.locator('a.cta:focus').textContent(), 'Start for free');
  });

  it('the focus ring is visible: 3 px in a colour that reads on the white switch', opts, async () => {
    const { page } = await open({ viewport: WIDE });
    await page.goto(pageUrl);
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowRight');
    const outline = await page.evaluate<{ style: string; width: string; color: string }>(`(() => {
      const s = getComputedStyle(document.querySelector('label[for="period-annual"]'));
      return { style: s.outlineStyle, width: s.outlineWidth, color: s.outlineColor };
    })()`);
    assert.deepEqual(outline, { style: 'solid', width: '3px', color: 'rgb(91, 33, 182)' });
  });

  it('390 px: every plan in a summary on the first screen, linked to its card, by period; one column, no sideways scroll; axe-clean', opts, async () => {
    const { page, problems } = await open({ viewport: PHONE, isMobile: true, hasTouch: true });
    await page.goto(pageUrl);
    assert.equal(await page.evaluate<number>('window.innerWidth'), PHONE.width, 'the viewport meta applies');

    for (const [period, label] of [
      ['MONTHLY', 'Monthly'],
      ['ANNUAL', 'Annually'],
    ] as const) {
      if (period === 'ANNUAL') await page.getByText(label, { exact: true }).click();
      const nav = page.getByRole('navigation', { name: 'Plans' });
      assert.equal(await nav.isVisible(), true);
      const box = await nav.boundingBox();
      assert.ok(box && box.y + box.height <= FIRST_SCREEN, `the summary ends within the first ${FIRST_SCREEN} px: ${JSON.stringify(box)}`);
      const expected = expectedCards(period);
      assert.deepEqual(
        (await nav.getByRole('link').allInnerTexts()).map((text) => text.replace(/\s+/g, ' ')),
        expected.map((c) => `${c.name} ${c.price}`),
        'every offering of the view, named and priced',
      );
      const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
      assert.ok(scrollWidth <= PHONE.width, `scrollWidth ${scrollWidth} <= ${PHONE.width}`);
      // One column, stacked top to bottom, each card within the screen's width.
      const boxes: Array<{ x: number; y: number; width: number; height: number }> = [];
      for (const name of expected.map((c) => c.name)) {
        const b = await page.getByRole('region', { name, exact: true }).boundingBox();
        assert.ok(b && b.x >= 0 && b.x + b.width <= PHONE.width, `${name} fits: ${JSON.stringify(b)}`);
        boxes.push(b);
      }
      assert.ok(
        boxes.every((b, i) => Math.abs(b.x - (boxes[0]?.x ?? 0)) < 1 && (i === 0 || b.y >= (boxes[i - 1]?.y ?? 0) + (boxes[i - 1]?.height ?? 0))),
        'one column',
      );
      const overflowing = await page.evaluate<string[]>(`[...document.querySelectorAll('main *')]
        .filter((el) => el.getBoundingClientRect().right > ${PHONE.width} + 0.5)
        .map((el) => el.tagName + '.' + el.className + ': ' + el.textContent.slice(0, 40))`);
      assert.deepEqual(overflowing, []);
      assert.deepEqual(await page.evaluate<string[]>(LOW_CONTRAST), []);
      await expectAccessible(page, `${period.toLowerCase()} at 390 px`);
      await page.evaluate('window.scrollTo(0, 0)');
      const file = await screenshot(page, period === 'MONTHLY' ? 'pricing-page-390.png' : 'pricing-page-annual-390.png');
      assert.ok(readPng(file).height > PHONE.height, 'a full-page screenshot of a page longer than the screen');
    }
    // A summary line takes the buyer to its card.
    await page
      .getByRole('navigation', { name: 'Plans' })
      .getByRole('link', { name: /^Agents/ })
      .click();
    assert.match(page.url(), /#offering-\d+-card$/);
    assert.ok((await page.evaluate<number>('window.scrollY')) > FIRST_SCREEN, 'scrolled down to it');
    const agents = await page.getByRole('region', { name: 'Agents' }).boundingBox();
    assert.ok(agents && agents.y >= 0 && agents.y < PHONE.height / 2, `Agents' card in view: ${JSON.stringify(agents)}`);
    assert.deepEqual(problems, []);
  });

  it("a seller's theme: dark page, light accent, own font and https logo; colours chosen to read, img-src opened to the logo's origin only", opts, async () => {
    for (const viewport of [WIDE, PHONE]) {
      const { page, requests, problems } = await open({ viewport });
      await page.route(LOGO_URL, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG }));
      const response = await page.goto(themedUrl);
      assert.equal(response?.status(), 200);
      assert.match(response?.headers()['content-security-policy'] ?? '', /; img-src 'self' data: https:\/\/cdn\.shop\.example; /);
      const logo = page.getByRole('img', { name: 'Yellow Fox APIs' });
      await logo.waitFor();
      assert.ok((await page.evaluate<number>(`document.querySelector('img.logo').naturalWidth`)) > 0, 'the CSP let the logo load');
      assert.deepEqual(requests, [themedUrl, LOGO_URL]);
      const styles = await page.evaluate<Record<string, string>>(`(() => {
        const css = (sel, prop) => getComputedStyle(document.querySelector(sel))[prop];
        return {
          font: css('body', 'fontFamily'),
          background: css('body', 'backgroundColor'),
          title: css('h1', 'color'),
          badge: css('.badge', 'color'),
          badgeFill: css('.badge', 'backgroundColor'),
          button: css('.highlighted .cta', 'color'),
          price: css('.price', 'color'),
        };
      })()`);
      assert.deepEqual(styles, {
        font: '"DejaVu Serif", system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
        background: 'rgb(31, 41, 55)',
        // White on the dark page; near-black on the yellow; the default blue for prices on white.
        title: 'rgb(255, 255, 255)',
        badge: 'rgb(17, 24, 39)',
        badgeFill: 'rgb(253, 224, 71)',
        button: 'rgb(17, 24, 39)',
        price: 'rgb(30, 64, 175)',
      });
      assert.equal(await page.getByRole('region', { name: 'Agents' }).getByRole('link', { name: 'Talk to us' }).getAttribute('target'), '_top');
      assert.deepEqual(await page.evaluate<string[]>(LOW_CONTRAST), []);
      await expectAccessible(page, `themed at ${viewport.width} px`);
      await page.getByText('Annually', { exact: true }).click();
      await expectAccessible(page, `themed, annual, at ${viewport.width} px`);
      await page.getByText('Monthly', { exact: true }).click();
      assert.deepEqual(problems, []);
      await screenshot(page, `pricing-page-themed-${viewport.width}.png`);
    }
  });

  it(
    'UPDATE_TOUR=1: the demo page for the docs (docs/tour/pricing.png at 1280 px, pricing-phone.png at 390 px)',
    { ...opts, skip: skip || (process.env.UPDATE_TOUR === '1' ? false : 'set UPDATE_TOUR=1 to write docs/tour/pricing*.png') },
    async () => {
      mkdirSync(tour, { recursive: true });
      const shots: Array<[typeof WIDE, string, boolean]> = [
        [WIDE, 'pricing.png', true],
        [PHONE, 'pricing-phone.png', false],
      ];
      for (const [viewport, name, fullPage] of shots) {
        const { page } = await open({ viewport });
        await page.goto(pageUrl);
        const file = await screenshot(page, `tour-${name}`, { fullPage });
        const target = path.join(tour, name);
        copyFileSync(file, target);
        // Smaller for the repository; the same picture. Without pngquant the file stays as it is.
        const quant = spawnSync('pngquant', ['--force', '--output', target, target], { encoding: 'utf8' });
        if (quant.error) console.log(`pngquant not run (${quant.error.message}): ${target} left uncompressed`);
        assert.equal(readPng(target).width, viewport.width);
      }
    },
  );

  it('the pricing library bundled with esbuild gives in Chromium exactly what it gives in Node', opts, async () => {
    const bundle = await build({ entryPoints: [pricingEntry], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
    assert.deepEqual(bundle.errors, []);
    const code = bundle.outputFiles[0]?.text ?? '';
    assert.ok(code.length > 1000);
    assert.doesNotMatch(code, /from\s*["']node:/, 'no Node built-ins in the browser bundle');

    // A page of its own origin whose CSP lets the test load the module (the real page allows no script).
    const { page } = await open({ viewport: WIDE, bypassCSP: true });
    const moduleUrl = `${baseUrl}/__test__/tollgate-pricing.js`;
    await page.route(moduleUrl, (route) => route.fulfill({ status: 200, contentType: 'text/javascript; charset=utf-8', body: code }));
    await page.goto(pageUrl);
    await page.addScriptTag({ type: 'module', content: `import * as pricing from '${moduleUrl}'; window.__pricing = pricing;` });
    await page.waitForFunction('window.__pricing !== undefined', undefined, { timeout: 10_000 });

    const units = pricing.ratePlans.flatMap((p) => p.metrics.map((unit) => ({ unit, currency: p.currency, period: p.billingPeriod })));
    const rates: Array<[string, string]> = [
      ['0.002', 'USD'],
      ['0.0000005', 'USD'],
      ['0.00000049', 'USD'],
      ['1234567.8912345', 'EUR'],
      ['0.1', 'JPY'],
      ['12.5', 'CHF'],
      ['-0.0000125', 'GBP'],
      ['3', 'KWD'],
    ];
    const unitOf = (name: string) => {
      const u = units.find((x) => x.unit.metricName === name && x.unit.pricingModel !== 'INCLUDED_QUOTA' && x.unit.pricingModel !== 'VOLUME_TIERED');
      assert.ok(u, name);
      return u.unit;
    };
    const group = (quantity: string, executionStatus: string | null = null, tool: string | null = null) => ({
      quantity,
      executionStatus,
      tool,
      endpoint: null,
    });
    const charges: RateUnitInput[] = [
      { pricing: unitOf('api_calls'), currency: 'USD', usage: [group('1500.5')] },
      { pricing: unitOf('tokens'), currency: 'USD', usage: [group('1234567')] },
      { pricing: unitOf('agent_runs'), currency: 'USD', usage: [group('300', 'SUCCESS'), group('50', 'PARTIAL'), group('20', 'ERROR'), group('7', 'TIMEOUT')] },
      { pricing: unitOf('payment_volume'), currency: 'JPY', usage: [group('199999.5')] },
      {
        pricing: { ...unitOf('agent_runs'), minFee: null },
        currency: 'USD',
        usage: [group('40', 'SUCCESS', 'web_search'), group('300', 'SUCCESS')],
        multipliers: { tools: { web_search: '2' }, endpoints: {} },
        override: { includedFree: 0, rate: '0.045' },
      },
    ];
    const input = { units, rates, charges };

    const inNode = JSON.parse(
      JSON.stringify({
        units: units.map((u) => describeUnitPricing(u.unit, u.currency, u.period)),
        rates: rates.map(([r, c]) => formatUnitRate(r, c)),
        charges: charges.map((c) => rateUnit(c)),
      }),
    );
    const inChromium = await page.evaluate(`(() => {
      const p = window.__pricing;
      const input = ${JSON.stringify(input)};
      return JSON.parse(JSON.stringify({
        units: input.units.map((u) => p.describeUnitPricing(u.unit, u.currency, u.period)),
        rates: input.rates.map(([r, c]) => p.formatUnitRate(r, c)),
        charges: input.charges.map((c) => p.rateUnit(c)),
      }));
    })()`);
    assert.deepEqual(inChromium, inNode);
    // Spot checks, so an equal-but-wrong answer on both sides would still fail.
    assert.equal(inNode.rates[0], '$0.0020');
    assert.equal(inNode.rates[1], '$0.000001');
    assert.equal(inNode.rates[4], '¥0.1000');
    assert.equal(inNode.rates[5], 'CHF\u00a012.5000');

    // A widget on the seller's site, using the bundle in the browser with the JSON a storefront
    // key reads (tier prices as JSON numbers), words every card as the hosted page shows it.
    const widget = await page.evaluate<Array<{ name: string; price: string; headlines: string[] }>>(`(async () => {
      const p = window.__pricing;
      const res = await fetch('/api/v1/portal/headless/config', { headers: { 'x-storefront-key': ${JSON.stringify(demo.storefrontKey)} } });
      const config = await res.json();
      return config.offerings.map((o) => {
        const d = p.describeOffering(o, config.ratePlans);
        return { name: d.name, price: d.price, headlines: d.plans.flatMap((plan) => plan.units.map((u) => u.headline)) };
      });
    })()`);
    // Each offering read from the page in the view that shows it (the annual Pro in the annual view).
    const views = new Map<string, Map<string, { price: string | null; headlines: string[] }>>();
    for (const [period, label] of [
      ['MONTHLY', 'Monthly'],
      ['ANNUAL', 'Annually'],
    ] as const) {
      await page.getByText(label, { exact: true }).click();
      const cards = new Map<string, { price: string | null; headlines: string[] }>();
      for (const name of await visibleNames(page)) {
        const card = await readCard(page, name);
        cards.set(name, { price: card.price, headlines: card.headlines });
      }
      views.set(period, cards);
    }
    const slots = layoutOfferings(pricing.offerings).slots;
    const shown = config.offerings.map((o) => {
      const period = slots.find((slot) => slot.offering.id === o.id)?.period ?? 'MONTHLY';
      return { name: o.name, ...views.get(period)?.get(o.name) };
    });
    assert.equal(shown.length, 4);
    assert.deepEqual(widget, shown);
  });
});
