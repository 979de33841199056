/**
 * The console's size budget, enforced by `npm test` (so by CI): the whole app's script, gzipped,
 * stays under JS_BUDGET, and its stylesheet under CSS_BUDGET. A change that crosses one says by
 * how much; raise a budget only on purpose, in the same commit, saying why.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { ASSET_BASE, bundleConsole, bundleHub, HUB_ASSET_BASE } from '../scripts/bundle.mjs';

// 60,000 until issue 38 item 14: invoice lines worded as the pricing page words their units
// (invoice-lines.ts), the folded lines, the editor's metric and period names, and the stacked
// tables of the Keys screen took it to about 60,650.
// 61,000 until issue 39: an invoice's payments and its Record payment form (about 1,000 bytes)
// and the Payments settings screen connecting Stripe (about 1,200) took it to 62,939. Raised
// rather than split into lazy chunks (ARCHITECTURE.md), which is a change of its own.
// 63,000 until issue 39 item 9: the invoice's payment status, attempts and Retry payment (about 900 bytes) took it to 63,842; splitting is still owed.
// 64,000 until issue 39 item 9: the invoice's Refund form and refunds list (about 880 bytes) took it to 64,729; splitting is still owed.
const JS_BUDGET = 65_000;
const CSS_BUDGET = 10_000;
/**
 * The developer hub (src/hub/, a second entry sharing the console's components): a customer's
 * page, opened from a link, so smaller than the console's. Its stylesheet is the console's plus
 * hub.css. The widget's script it embeds is the widget's own budget (widget-assets).
 */
const HUB_JS_BUDGET = 35_000;
const HUB_CSS_BUDGET = 10_000;

describe('the console builds', () => {
  it(`within its size budget: script ≤ ${JS_BUDGET} bytes gzipped, stylesheet ≤ ${CSS_BUDGET}`, async () => {
    const { assets } = await bundleConsole();
    const size = (ext: string) => {
      const a = assets.find((x) => x.name.endsWith(ext));
      assert.ok(a, `a ${ext} asset`);
      return { name: a.name, bytes: a.contents.length, gzip: gzipSync(a.contents, { level: 9 }).length };
    };
    const js = size('.js');
    const css = size('.css');
    console.log(
      `console bundle: ${js.name} ${js.bytes} bytes (${js.gzip} gzipped, budget ${JS_BUDGET}); ${css.name} ${css.bytes} bytes (${css.gzip} gzipped, budget ${CSS_BUDGET})`,
    );
    assert.ok(js.gzip <= JS_BUDGET, `the script is ${js.gzip} bytes gzipped, over the budget of ${JS_BUDGET} by ${js.gzip - JS_BUDGET}`);
    assert.ok(css.gzip <= CSS_BUDGET, `the stylesheet is ${css.gzip} bytes gzipped, over the budget of ${CSS_BUDGET} by ${css.gzip - CSS_BUDGET}`);
    assert.equal(assets.length, 2, 'one script and one stylesheet: no chunk is fetched later');
  });

  it('index.html names the hashed assets, with no inline script or style (the CSP forbids both)', async () => {
    const { index, assets } = await bundleConsole();
    for (const a of assets) {
      assert.match(a.name, /^console\.[0-9a-f]{16}\.(js|css)$/);
      assert.ok(index.includes(`${ASSET_BASE}${a.name}`), `index.html names ${a.name}`);
    }
    assert.doesNotMatch(index, /<script>|<style|\sstyle=|\son\w+=/);
    assert.match(index, /<html lang="en">/);
    assert.match(index, /name="viewport"/);
  });

  it('the script names no host: every request goes to the server that served it', async () => {
    const { assets } = await bundleConsole();
    const js = assets.find((a) => a.name.endsWith('.js'))!.contents.toString('utf8');
    const hosts = [...js.matchAll(/\b(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/gi)].map((m) => m[0]);
    assert.deepEqual(
      hosts.filter((h) => !/w3\.org/.test(h)),
      [],
    );
  });
});

describe('the developer hub builds', () => {
  it(`within its size budget: script ≤ ${HUB_JS_BUDGET} bytes gzipped, stylesheet ≤ ${HUB_CSS_BUDGET}`, async () => {
    const { assets } = await bundleHub();
    const gz = (ext: string) => {
      const a = assets.find((x) => x.name.endsWith(ext));
      assert.ok(a, `a ${ext} asset`);
      return gzipSync(a.contents, { level: 9 }).length;
    };
    const [js, css] = [gz('.js'), gz('.css')];
    console.log(`hub bundle: script ${js} bytes gzipped (budget ${HUB_JS_BUDGET}); stylesheet ${css} (budget ${HUB_CSS_BUDGET})`);
    assert.ok(js <= HUB_JS_BUDGET, `the hub's script is ${js} bytes gzipped, over the budget of ${HUB_JS_BUDGET} by ${js - HUB_JS_BUDGET}`);
    assert.ok(css <= HUB_CSS_BUDGET, `the hub's stylesheet is ${css} bytes gzipped, over the budget of ${HUB_CSS_BUDGET} by ${css - HUB_CSS_BUDGET}`);
    assert.equal(assets.length, 2, 'one script and one stylesheet');
  });

  it('its index.html names hub.<hash> assets under /hub/assets/, with no inline script or style', async () => {
    const { index, assets } = await bundleHub();
    assert.equal(HUB_ASSET_BASE, '/hub/assets/');
    for (const a of assets) {
      assert.match(a.name, /^hub\.[0-9a-f]{16}\.(js|css)$/);
      assert.ok(index.includes(`${HUB_ASSET_BASE}${a.name}`), `index.html names ${a.name}`);
    }
    assert.doesNotMatch(index, /<script>|<style|\sstyle=|\son\w+=/);
    assert.match(index, /<title>Developer hub<\/title>/);
  });
});
