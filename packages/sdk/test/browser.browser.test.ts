/**
 * The built ESM in Chromium's page context (Debian's /usr/bin/chromium via playwright-core)
 * against the real server: fetch, AbortController and crypto.randomUUID of the page, no Node.
 *
 * The ingestion and entitlement routes send no CORS headers (server keys belong on servers; only
 * the headless configuration and the widget allow other origins), and the test leaves that
 * policy alone: the page is served from the server's own origin instead. Playwright fulfils the
 * page and the SDK's files at http://127.0.0.1:<server port>/__sdk-test/…, so every API request
 * the SDK makes is same-origin and goes to the real server unchanged. Nothing test-only is added
 * to the server.
 *
 * Functions passed to page.evaluate are strings: tsx's keepNames helper does not exist in the page.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startRealServer, type RealServer } from './helpers/real-server.js';
import { buildSdk } from './helpers/build.js';

const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} not found: the SDK's headless-Chromium test is skipped (install Debian's chromium: apt-get install -y chromium; .ci/run does it when run as root)`;
if (skip) console.log(`sdk browser.browser.test.ts: SKIPPED: ${skip}`);

describe('@tollgate/sdk in Chromium’s page context', { timeout: 60_000 }, () => {
  let server: RealServer;
  let browser: Browser;
  let dist: string;

  before(async () => {
    if (skip) return;
    dist = mkdtempSync(path.join(os.tmpdir(), 'tollgate-sdk-browser-'));
    buildSdk(dist);
    server = await startRealServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    if (dist) rmSync(dist, { recursive: true, force: true });
  });

  it('tracks, flushes, checks and guards against the real server with the page’s fetch and crypto', { skip, timeout: 30_000 }, async () => {
    const s = await server.subscribed([{ metricName: 'api_calls', limit: 25, enforcement: 'BLOCK' }]);
    const page = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    const api: string[] = [];
    page.on('request', (r) => {
      if (!r.url().includes('/__sdk-test/')) api.push(`${r.method()} ${new URL(r.url()).pathname}`);
    });
    await page.route('**/__sdk-test/**', async (route) => {
      const name = new URL(route.request().url()).pathname.replace('/__sdk-test/', '');
      if (name === 'index.html') return route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>sdk</title>' });
      const file = path.join(dist, name);
      if (!file.startsWith(dist) || !existsSync(file)) return route.fulfill({ status: 404, body: '' });
      return route.fulfill({ contentType: 'text/javascript', body: readFileSync(file, 'utf8') });
    });
    await page.goto(`${server.baseUrl}/__sdk-test/index.html`);
    const result = await page.evaluate<Record<string, unknown>>(`(async () => {
      const { Tollgate, UsageLimitExceeded } = await import('/__sdk-test/index.js');
      const tg = new Tollgate({ apiKey: ${JSON.stringify(server.key)}, baseUrl: location.origin, now: () => ${server.now()}, entitlementCacheTtlMs: 0 });
      for (let i = 0; i < 25; i++) tg.track({ customerId: ${JSON.stringify(s.customerId)}, metricName: 'api_calls', quantity: 1 });
      const flushed = await tg.flush();
      const check = await tg.check(${JSON.stringify(s.customerId)}, ${JSON.stringify(s.productId)});
      const guard = await tg.guard({ customerId: ${JSON.stringify(s.customerId)}, productId: ${JSON.stringify(s.productId)}, metricName: 'api_calls' })
        .then(() => 'allowed', (e) => e instanceof UsageLimitExceeded ? e.metricName + ' ' + e.used + '/' + e.limit : String(e));
      return { accepted: flushed.accepted, failed: flushed.failed.length, allowed: check.allowed, guard, hasProcess: typeof process !== 'undefined' };
    })()`);
    assert.deepEqual(result, { accepted: 25, failed: 0, allowed: false, guard: 'api_calls 25/25', hasProcess: false });
    assert.deepEqual(api, ['POST /v1/ingest/batch', 'GET /v1/entitlements/check', 'GET /v1/entitlements/check']);
    assert.deepEqual(problems, []);
    assert.equal(await server.storedEvents(s.customerId), 25);
  });
});
