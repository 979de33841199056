/**
 * The hosted pricing page in a real headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core), served by a real listening server: what a buyer sees, with and without
 * JavaScript, on a desktop and on a phone; basic accessibility; and the @tollgate/pricing library
 * bundled for the browser giving, in Chromium, exactly what it gives in Node.
 *
 * Screenshots land in test-artifacts/ at the repository root (git-ignored). Without Chromium the
 * whole file is skipped, and says so.
 *
 * Functions passed to page.evaluate are strings on purpose: tsx compiles this file with esbuild's
 * keepNames, whose __name() helper does not exist in the page.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
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
import { createDemoWorkspace, type DemoEnvironment } from '../src/demo/create-demo-workspace.js';
import type { HeadlessConfig } from '../src/modules/catalog/headless-config.js';

const CHROMIUM = '/usr/bin/chromium';
const root = fileURLToPath(new URL('../../../', import.meta.url));
const artifacts = path.join(root, 'test-artifacts');
const pricingEntry = path.join(root, 'packages/pricing/src/index.ts');

const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} not found: the headless-Chromium tests of the pricing page are skipped (install Debian's chromium: apt-get install -y chromium; .ci/run does it when run as root)`;
if (skip) console.log(`pricing-page.browser.test.ts: SKIPPED: ${skip}`);

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 740 };

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

/** What a buyer reads in one offering's card. */
async function readCard(page: Page, name: string) {
  const card = page.getByRole('region', { name, exact: true });
  return {
    price: await card.locator('.price').textContent(),
    perMonth: await card.locator('.per-month').allTextContents(),
    trial: await card.locator('.trial').allTextContents(),
    headlines: await card.locator('.headline').allTextContents(),
  };
}

/** Each test is skipped on its own, so the runner's skipped count shows them. */
const opts = { skip, timeout: 25_000 };

describe('hosted pricing page in headless Chromium', { timeout: 55_000 }, () => {
  let t: TestApp;
  let browser: Browser;
  let baseUrl: string;
  let demo: DemoEnvironment;
  let pageUrl: string;
  let config: HeadlessConfig;
  let pricing: { offerings: Offering[]; ratePlans: RatePlan[] };
  const contexts: BrowserContext[] = [];

  async function open(options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
    const context = await browser.newContext(options);
    contexts.push(context);
    return context.newPage();
  }

  /** Each card as the display library words it, from the published configuration. */
  function expectedCards() {
    // In the storefront's order, as the page keeps it.
    return pricing.offerings.map((o) => {
      const d = describeOffering(o, pricing.ratePlans);
      return {
        name: d.name,
        price: d.price,
        perMonth: d.perMonth !== null && d.perMonth !== d.price ? [`Equivalent to ${d.perMonth}`] : [],
        trial: d.trial === null ? [] : [d.trial],
        headlines: d.plans.flatMap((p) => p.units.map((u) => u.headline)),
      };
    });
  }

  before(async () => {
    if (skip) return;
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${port}`;
    const created = await createDemoWorkspace(t.deps, {
      actor: { type: 'OPERATOR', id: 'browser-test' },
      source: 'cli',
      correlationId: 'pricing-page-browser',
    });
    demo = created.environments.test;
    pageUrl = baseUrl + demo.pricingPagePath;
    // The published configuration as a client reads it: over HTTP, with the storefront key.
    const res = await fetch(`${baseUrl}/api/v1/portal/headless/config`, { headers: { 'x-storefront-key': demo.storefrontKey } });
    assert.equal(res.status, 200);
    config = (await res.json()) as HeadlessConfig;
    pricing = toPricing(config);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    mkdirSync(artifacts, { recursive: true });
  });

  after(async () => {
    try {
      for (const c of contexts) await c.close().catch(() => {});
      await browser?.close();
    } finally {
      await t?.close();
    }
  });

  it('desktop: every offering with the library wording, the style allowed by its CSP hash, nothing else loaded', opts, async () => {
    const page = await open({ viewport: DESKTOP });
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    const response = await page.goto(pageUrl);
    assert.equal(response?.status(), 200);
    assert.equal(response?.headers()['content-type'], 'text/html; charset=utf-8');

    // Offerings in the storefront's order, each a heading; the same wording the library gives.
    assert.deepEqual(await page.getByRole('heading', { level: 2 }).allTextContents(), ['Starter', 'Pro', 'Agents']);
    const expected = expectedCards();
    assert.deepEqual(
      expected.map((c) => c.name),
      ['Starter', 'Pro', 'Agents'],
    );
    for (const card of expected) {
      assert.deepEqual(
        await readCard(page, card.name),
        { price: card.price, perMonth: card.perMonth, trial: card.trial, headlines: card.headlines },
        card.name,
      );
    }

    // And the literal strings the display rules give for the demo catalog.
    const pro = await readCard(page, 'Pro');
    const agents = await readCard(page, 'Agents');
    const starter = await readCard(page, 'Starter');
    assert.equal(pro.price, '$49.00/mo');
    assert.equal(starter.price, 'Usage-based');
    assert.equal(agents.price, '$199.00/mo');
    assert.deepEqual(agents.trial, ['14-day free trial']);
    assert.deepEqual(starter.headlines, ['$0.0020 / unit after 1,000 free', 'From $0.00001 / unit']);
    assert.deepEqual(pro.headlines, ['$1.50 per 1,000 units after 100,000 free', 'From $0.000008 / unit', 'Free up to 5 units, then from $40.00/mo']);
    assert.deepEqual(agents.headlines, ['$0.0500 / unit after 100 free', '2.9% of transaction value', '$25.00/mo']);
    const agentsCard = page.getByRole('region', { name: 'Agents' });
    assert.equal(await agentsCard.locator('.minimum').textContent(), 'Minimum $10.00/mo');
    assert.deepEqual(await agentsCard.getByRole('list', { name: 'Billed by outcome:' }).getByRole('listitem').allTextContents(), [
      'Success: full price',
      'Partial: half price',
      'Error: free',
      'Timeout: free',
    ]);
    const tokens = page.getByRole('region', { name: 'Starter' }).getByRole('table', { name: 'Tokens: price tiers' });
    assert.deepEqual(await tokens.getByRole('columnheader').allTextContents(), ['Units', 'Per unit']);
    assert.deepEqual(await tokens.locator('tbody tr').allInnerTexts(), ['First 100,000\t$0.00002', 'Next 900,000\t$0.000015', 'Over 1,000,000\t$0.00001']);
    // Under the table, how it bills: graduated, so each unit at the rate of its own tier.
    const howItBills = await tokens.locator('xpath=following-sibling::*[1]').textContent();
    assert.equal(howItBills, 'Each unit is billed at the rate of the tier it falls in.');

    // The inline style ran (Chromium accepted its CSP hash): a grid of three cards side by side.
    assert.equal(await page.evaluate<string>(`getComputedStyle(document.querySelector('.offerings')).display`), 'grid');
    const boxes = await Promise.all(['Pro', 'Agents', 'Starter'].map((n) => page.getByRole('region', { name: n }).boundingBox()));
    assert.ok(
      boxes.every((b) => b !== null && Math.abs(b.y - (boxes[0]?.y ?? 0)) < 1),
      `cards in one row: ${JSON.stringify(boxes)}`,
    );
    // System fonts only, nothing fetched: the one request is the page itself.
    assert.deepEqual(requests, [pageUrl]);
    assert.deepEqual(problems, [], 'no console errors or CSP violations');
    // The CSP keeps injected script out: an inline script added to the page never runs.
    await page.addScriptTag({ content: 'window.__injected = true;' }).catch(() => {});
    assert.equal(await page.evaluate<boolean>('window.__injected === true'), false);

    const file = path.join(artifacts, 'pricing-page-desktop.png');
    rmSync(file, { force: true });
    await page.screenshot({ path: file, fullPage: true });
    assert.ok(statSync(file).size > 0);
    assert.equal(readPng(file).width, DESKTOP.width);
  });

  it('reads the same without JavaScript: no script on the page, all content there', opts, async () => {
    const page = await open({ viewport: DESKTOP, javaScriptEnabled: false });
    const response = await page.goto(pageUrl);
    assert.equal(response?.status(), 200);
    assert.equal(await page.locator('script').count(), 0);
    assert.equal(await page.locator('noscript').count(), 0);
    for (const card of expectedCards()) {
      assert.deepEqual(
        await readCard(page, card.name),
        { price: card.price, perMonth: card.perMonth, trial: card.trial, headlines: card.headlines },
        card.name,
      );
    }
    assert.equal(await page.locator('table').count(), 3);
  });

  it('fits a phone: 375 px wide, no horizontal scroll, the cards stacked in one column', opts, async () => {
    const page = await open({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    await page.goto(pageUrl);
    assert.equal(await page.evaluate<number>('window.innerWidth'), PHONE.width, 'the viewport meta applies');
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok(scrollWidth <= PHONE.width, `scrollWidth ${scrollWidth} <= ${PHONE.width}`);
    const boxes: Array<{ x: number; y: number; width: number; height: number }> = [];
    for (const name of ['Starter', 'Pro', 'Agents']) {
      const box = await page.getByRole('region', { name }).boundingBox();
      assert.ok(box);
      assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `${name} fits: ${JSON.stringify(box)}`);
      boxes.push(box);
    }
    assert.ok(
      boxes.every((b) => Math.abs(b.x - (boxes[0]?.x ?? 0)) < 1),
      'one column',
    );
    assert.ok(
      boxes.every((b, i) => i === 0 || b.y >= (boxes[i - 1]?.y ?? 0) + (boxes[i - 1]?.height ?? 0)),
      'stacked top to bottom',
    );
    // No element sticks out of the viewport either (a wide table would be clipped, not scroll).
    const overflowing = await page.evaluate<string[]>(`[...document.querySelectorAll('main *')]
      .filter((el) => el.getBoundingClientRect().right > ${PHONE.width} + 0.5)
      .map((el) => el.tagName + '.' + el.className + ': ' + el.textContent.slice(0, 40))`);
    assert.deepEqual(overflowing, []);

    const file = path.join(artifacts, 'pricing-page-phone.png');
    rmSync(file, { force: true });
    await page.screenshot({ path: file, fullPage: true });
    assert.ok(statSync(file).size > 0);
    const png = readPng(file);
    assert.equal(png.width, PHONE.width * 2);
    assert.ok(png.height > PHONE.height * 2, 'a full-page screenshot of a page longer than the screen');
  });

  it('basic accessibility: lang, one h1, labelled regions, captioned tables with column headers, contrast, focus style', opts, async () => {
    const page = await open({ viewport: DESKTOP });
    await page.goto(pageUrl);
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    assert.equal(await page.locator('h1').count(), 1);
    assert.equal(await page.locator('h1').textContent(), 'Demo pricing');
    assert.equal(await page.locator('main').count(), 1);
    assert.equal(await page.title(), 'Demo pricing');
    assert.equal(await page.getByRole('region').count(), 3);
    const tables = await page.locator('table').count();
    assert.equal(tables, 3);
    assert.equal(await page.locator('table > caption').count(), tables, 'every table has a caption');
    assert.equal(await page.locator('th').count(), await page.locator('th[scope="col"]').count());
    assert.equal(await page.getByRole('table', { name: 'Seats: price tiers' }).count(), 1);

    // WCAG AA: every text-bearing element at least 4.5:1 against the background it sits on.
    const lowContrast = await page.evaluate<string[]>(`(() => {
      const rgb = (c) => { const m = c.match(/[\\d.]+/g).map(Number); return { r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1 }; };
      const lum = ({ r, g, b }) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
      const background = (el) => { for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c.a > 0) return c; } return { r: 255, g: 255, b: 255, a: 1 }; };
      const bad = [];
      for (const el of document.querySelectorAll('body *')) {
        const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
        if (!own) continue;
        const fg = lum(rgb(getComputedStyle(el).color));
        const bg = lum(background(el));
        const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
        if (ratio < 4.5) bad.push(el.tagName + '.' + el.className + ' ' + ratio.toFixed(2));
      }
      return bad;
    })()`);
    assert.deepEqual(lowContrast, []);
    const focusRule = await page.evaluate<boolean>(
      `[...document.styleSheets[0].cssRules].some((r) => r.selectorText === ':focus-visible' && /outline: 3px solid/.test(r.cssText))`,
    );
    assert.equal(focusRule, true, 'a visible focus style');
  });

  it('the pricing library bundled with esbuild gives in Chromium exactly what it gives in Node', opts, async () => {
    const bundle = await build({ entryPoints: [pricingEntry], bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent' });
    assert.deepEqual(bundle.errors, []);
    const code = bundle.outputFiles[0]?.text ?? '';
    assert.ok(code.length > 1000);
    assert.doesNotMatch(code, /from\s*["']node:/, 'no Node built-ins in the browser bundle');

    // A page of its own origin whose CSP lets the test load the module (the real page allows no script).
    const page = await open({ viewport: DESKTOP, bypassCSP: true });
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
    const shown: Array<{ name: string; price: string | null; headlines: string[] }> = [];
    for (const name of await page.getByRole('heading', { level: 2 }).allTextContents()) {
      const card = await readCard(page, name);
      shown.push({ name, price: card.price, headlines: card.headlines });
    }
    assert.deepEqual(widget, shown);
  });
});
