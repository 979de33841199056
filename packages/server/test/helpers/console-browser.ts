/**
 * The operator console in headless Chromium (Debian's /usr/bin/chromium, driven by
 * playwright-core) against a real listening server, for console.browser.test.ts and the screens'
 * tests that follow: start it, open a page that records every request and every script error or
 * CSP refusal, and check a screen at 1280 and at 390 px (axe-core's WCAG 2.1 A and AA rules, no
 * sideways scrolling, a screenshot in test-artifacts/console/).
 *
 * Functions passed to page.evaluate are strings on purpose: tsx compiles with esbuild's
 * keepNames, whose __name() helper does not exist in the page.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createTestApp, type TestApp, type TestAppOptions } from './test-app.js';

export const CHROMIUM = '/usr/bin/chromium';
const root = fileURLToPath(new URL('../../../../', import.meta.url));
export const CONSOLE_ARTIFACTS = path.join(root, 'test-artifacts', 'console');
/** The developer hub's screenshots (hub.browser.test.ts), checked the same way. */
export const HUB_ARTIFACTS = path.join(root, 'test-artifacts', 'hub');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The reason the console's browser tests are skipped, or false. */
export const consoleBrowserSkip: string | false = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} not found: the headless-Chromium tests of the console are skipped (install Debian's chromium: apt-get install -y chromium; .ci/run does it when run as root)`;

export const WIDE = { width: 1280, height: 900 };
export const NARROW = { width: 390, height: 844 };

export interface ConsolePage {
  page: Page;
  /** Every URL the page asked for, in order. */
  requests: string[];
  /** Script errors and CSP refusals. */
  problems: string[];
}

export interface ConsoleBrowser {
  t: TestApp;
  /** http://127.0.0.1:<port> */
  origin: string;
  open(pathAndQuery: string, viewport?: { width: number; height: number }): Promise<ConsolePage>;
  /**
   * Closes every page open() opened but `keep` (a file's pages signed in once in its `before`):
   * a test's pages, closed when it ends (afterEach). A page left open keeps costing the browser
   * CPU for the rest of the file, rendering frames nobody looks at.
   */
  closePages(...keep: ConsolePage[]): Promise<void>;
  close(): Promise<void>;
}

export async function startConsoleBrowser(options: TestAppOptions = {}): Promise<ConsoleBrowser> {
  const t = await createTestApp(options);
  let browser: Browser | null = null;
  try {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    mkdirSync(CONSOLE_ARTIFACTS, { recursive: true });
    const contexts = new Map<Page, BrowserContext>();
    const b = browser;
    return {
      t,
      origin,
      async open(pathAndQuery, viewport = WIDE) {
        const context = await b.newContext({ viewport });
        const page = await context.newPage();
        contexts.set(page, context);
        const requests: string[] = [];
        const problems: string[] = [];
        page.on('request', (r) => requests.push(r.url()));
        page.on('pageerror', (e) => problems.push(String(e)));
        page.on('console', (m) => {
          if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
        });
        await page.goto(origin + pathAndQuery);
        return { page, requests, problems };
      },
      async closePages(...keep) {
        // A page `before` did not get to open (it failed) is undefined: nothing to keep.
        const kept = new Set((keep as Array<ConsolePage | undefined>).map((p) => p?.page));
        for (const [page, context] of contexts) {
          if (kept.has(page)) continue;
          contexts.delete(page);
          await context.close();
        }
      },
      async close() {
        try {
          for (const c of contexts.values()) await c.close().catch(() => {});
          await b.close();
        } finally {
          await t.close();
        }
      },
    };
  } catch (err) {
    await browser?.close().catch(() => {});
    await t.close();
    throw err;
  }
}

/**
 * axe-core in the page: no violation of the WCAG 2.1 A and AA rules. Evaluated through the
 * DevTools protocol, which the page's CSP does not govern (a script tag would be refused, rightly).
 */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  if (!(await page.evaluate<boolean>('typeof window.axe !== "undefined"'))) await page.evaluate(axeSource);
  const violations = await page.evaluate<Array<{ id: string; help: string; nodes: Array<{ target: unknown }> }>>(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  );
  assert.deepEqual(violations, [], `${where}: ${JSON.stringify(violations)}`);
}

/** Every request the page made went to the server that served it. */
/**
 * WCAG's contrast ratio of the first element matching `selector`: its text colour against the
 * first opaque background at or above it (white if none). Axe checks text at rest; this checks a
 * control in a state axe may not see (a confirmation's button, say).
 */
export async function contrastOf(page: Page, selector: string): Promise<number> {
  // Text, not a function: this package is typed without the DOM's names.
  return page.evaluate<number>(`((sel) => {
    const el = document.querySelector(sel);
    if (!el) throw new Error('no element matches ' + sel);
    const rgb = (c) => { const m = c.match(/[\\d.]+/g).map(Number); return { r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1 }; };
    const channel = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    const lum = (c) => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
    let background = { r: 255, g: 255, b: 255, a: 1 };
    for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c.a > 0) { background = c; break; } }
    const fg = lum(rgb(getComputedStyle(el).color));
    const bg = lum(background);
    return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
  })(${JSON.stringify(selector)})`);
}

export function expectOnlyServer(p: ConsolePage, origin: string): void {
  const elsewhere = p.requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'));
  assert.deepEqual(elsewhere, [], 'no request to any other host');
}

/**
 * One screen, checked the same way at 1280 and 390 px: axe-clean, nothing wider than the window,
 * a full-page screenshot `<name>-1280.png` and `<name>-390.png` in `artifacts` (the console's by
 * default; the hub passes HUB_ARTIFACTS); then no request elsewhere and no script error or CSP
 * refusal. `ready` waits for what the screen must show.
 */
export async function checkScreen(
  p: ConsolePage,
  origin: string,
  name: string,
  ready: (page: Page) => Promise<unknown>,
  artifacts: string = CONSOLE_ARTIFACTS,
): Promise<void> {
  mkdirSync(artifacts, { recursive: true });
  for (const viewport of [WIDE, NARROW]) {
    await p.page.setViewportSize(viewport);
    await ready(p.page);
    await expectAccessible(p.page, `${name} at ${viewport.width} px`);
    const scrollWidth = await p.page.evaluate<number>('document.documentElement.scrollWidth');
    assert.ok(scrollWidth <= viewport.width, `${name} at ${viewport.width} px: the page is ${scrollWidth} px wide`);
    const file = path.join(artifacts, `${name}-${viewport.width}.png`);
    await p.page.screenshot({ path: file, fullPage: true });
    assert.ok(readFileSync(file).length > 1000, `${file} is a real image`);
  }
  expectOnlyServer(p, origin);
  assert.deepEqual(p.problems, [], `${name}: no script error or CSP refusal`);
}
