/**
 * The API reference page (/docs) in a real headless Chromium (Debian's /usr/bin/chromium, driven
 * by playwright-core), served by a real listening server: it renders Tollgate's document, and the
 * browser asks nothing of any other origin (no CDN, no web fonts, no telemetry). Without
 * Chromium the file is skipped, and says so.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { createTestApp, type TestApp } from './helpers/test-app.js';

const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} not found: the headless-Chromium test of /docs is skipped (install Debian's chromium: apt-get install -y chromium; .ci/run does it when run as root)`;
if (skip) console.log(`docs.browser.test.ts: SKIPPED: ${skip}`);
const opts = { skip, timeout: 90_000 };

describe('GET /docs in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;

  before(async () => {
    if (skip) return;
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  });
  after(async () => {
    try {
      await browser?.close();
    } finally {
      await t?.close();
    }
  });

  it('shows the Tollgate reference with its operations, and every request stays on this server', opts, async () => {
    const context = await browser.newContext();
    const elsewhere: string[] = [];
    const refused: string[] = [];
    // Every request the page makes passes here; one to another origin is recorded and never sent.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text());
    });
    await page.goto(`${origin}/docs`);
    assert.equal(new URL(page.url()).pathname, '/docs/');
    assert.equal(await page.title(), 'Tollgate API reference');
    await page.getByRole('heading', { name: 'Tollgate API' }).first().waitFor({ timeout: 60_000 });
    await page.getByText('Liveness: the process is up').first().waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle');
    assert.deepEqual(elsewhere, [], 'no request left the server');
    assert.deepEqual(refused, [], 'nothing was refused by the page’s Content-Security-Policy');
    await context.close();
  });
});
