import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { AppError } from '../../lib/errors.js';
import { CONSOLE_CSP, HUB_CSP, siteOr503 } from './console.routes.js';
import { readBuiltSite } from './console-site.js';

/**
 * The operator console as a browser loads it: index.html at /console and at any deep link (the
 * app's router picks the screen), its hashed scripts (the entry and every chunk) and stylesheet cached for a year, everything
 * under a strict Content-Security-Policy.
 */
let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

/** The asset paths index.html names: the entry script, the chunks it imports (modulepreload), the stylesheet. */
async function assetPaths(): Promise<{ js: string; css: string; preload: string[] }> {
  const html = (await get('/console')).body;
  const js = /<script type="module" src="(\/console\/assets\/console\.[A-Z2-7]{8}\.js)"/.exec(html)?.[1];
  const css = /href="(\/console\/assets\/console\.[A-Z2-7]{8}\.css)"/.exec(html)?.[1];
  const preload = [...html.matchAll(/<link rel="modulepreload" href="(\/console\/assets\/chunk\.[A-Z2-7]{8}\.js)">/g)].map((m) => m[1]!);
  assert.ok(js && css, html);
  return { js, css, preload };
}

/** The chunks a script imports, statically or by import() (esbuild names them ./chunk.<hash>.js). */
const importsOf = (js: string) => [...js.matchAll(/(?:\bfrom|\bimport\s*\(?)\s*"\.\/(chunk\.[A-Z2-7]{8}\.js)"/g)].map((m) => m[1]!);

const SECURITY = (headers: Record<string, unknown>) => {
  assert.equal(headers['content-security-policy'], CONSOLE_CSP);
  assert.equal(headers['x-content-type-options'], 'nosniff');
  assert.equal(headers['referrer-policy'], 'no-referrer');
};

describe('GET /console', () => {
  it('200 index.html, not cached without a check, under the strict CSP', async () => {
    const res = await get('/console');
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'no-cache');
    SECURITY(res.headers);
    assert.match(res.body, /<div id="app"><\/div>/);
    assert.equal(
      CONSOLE_CSP,
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
  });

  it('200 the same page at a deep link, a trailing slash and a query (the SPA fallback)', async () => {
    const index = (await get('/console')).body;
    for (const url of ['/console/', '/console/customers', '/console/customers/cus_123', '/console/sign-in?workspace=ws_1', '/console/not/a/screen']) {
      const res = await get(url);
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.body, index, url);
      SECURITY(res.headers);
    }
  });

  it('200 gzipped for a client that takes it', async () => {
    const plain = await get('/console');
    const zipped = await get('/console/customers', { 'accept-encoding': 'gzip, br' });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(zipped.rawPayload).toString('utf8'), plain.body);
  });
});

describe('GET /console/assets/…', () => {
  it('200 the hashed script and stylesheet, cached for a year (immutable), gzipped when taken', async () => {
    const { js, css } = await assetPaths();
    const script = await get(js);
    assert.equal(script.statusCode, 200);
    assert.equal(script.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(script.headers['cache-control'], 'public, max-age=31536000, immutable');
    SECURITY(script.headers);
    const style = await get(css);
    assert.equal(style.statusCode, 200);
    assert.equal(style.headers['content-type'], 'text/css; charset=utf-8');
    assert.equal(style.headers['cache-control'], 'public, max-age=31536000, immutable');
    const zipped = await get(js, { 'accept-encoding': 'gzip' });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(zipped.rawPayload), script.rawPayload);
  });

  it('200 every chunk, static or lazy, that the entry reaches: same caching and CSP as the entry', async () => {
    const { js, preload } = await assetPaths();
    assert.ok(preload.length > 0, 'the entry imports chunks, preloaded by index.html');
    const seen = new Set<string>();
    const queue = [path.basename(js)];
    while (queue.length > 0) {
      const name = queue.shift()!;
      if (seen.has(name)) continue;
      seen.add(name);
      const res = await get(`/console/assets/${name}`);
      assert.equal(res.statusCode, 200, name);
      assert.equal(res.headers['content-type'], 'text/javascript; charset=utf-8', name);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable', name);
      SECURITY(res.headers);
      queue.push(...importsOf(res.body));
    }
    for (const p of preload) assert.ok(seen.has(path.basename(p)), `${p} is imported by the entry`);
    assert.ok(seen.size > preload.length + 5, `the lazy screens' chunks are served too (${seen.size} scripts)`);
  });

  it('404 for an asset this build does not have, naming the ones it has', async () => {
    const { js } = await assetPaths();
    const res = await get('/console/assets/console.ABCDEFGH.js');
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().errors[0].code, 'NOT_FOUND');
    assert.ok(res.body.includes(path.basename(js)), res.body);
  });

  it('404 for a path with a file extension outside the assets, not the page', async () => {
    for (const url of ['/console/favicon.ico', '/console/customers/report.csv']) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.json().errors[0].code, 'NOT_FOUND');
    }
  });

  it('the pages are not part of the API document', async () => {
    const doc = (await get('/openapi.json')).json();
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => p.startsWith('/console')),
      [],
    );
  });
});

describe('GET /hub (the developer hub, the second entry of the console package)', () => {
  it('200 its own index.html at /hub and any deep link, under the CSP that adds https images (the seller logo)', async () => {
    const index = await get('/hub');
    assert.equal(index.statusCode, 200, index.body);
    assert.equal(index.headers['cache-control'], 'no-cache');
    assert.equal(index.headers['content-security-policy'], HUB_CSP);
    assert.equal(HUB_CSP, CONSOLE_CSP.replace("img-src 'self' data:", "img-src 'self' data: https:"));
    assert.match(index.body, /<title>Developer hub<\/title>/);
    assert.notEqual(index.body, (await get('/console')).body);
    for (const url of ['/hub/', '/hub/usage', '/hub/billing?x=1']) assert.equal((await get(url)).body, index.body, url);
    const js = /src="(\/hub\/assets\/hub\.[A-Z2-7]{8}\.js)"/.exec(index.body)?.[1];
    assert.ok(js, index.body);
    const script = await get(js);
    assert.equal(script.statusCode, 200);
    assert.equal(script.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(script.headers['content-security-policy'], HUB_CSP);
  });

  it("404 for the console's assets under /hub, a missing asset and a file outside the assets; not in the API document", async () => {
    const { js } = await assetPaths();
    for (const url of [js.replace('/console/', '/hub/'), '/hub/assets/hub.ABCDEFGH.js', '/hub/favicon.ico']) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.json().errors[0].code, 'NOT_FOUND');
    }
    const doc = (await get('/openapi.json')).json();
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => p === '/hub' || p.startsWith('/hub/')),
      [],
    );
  });
});

describe('loading the site', () => {
  it('reads a built dist/ when there is one', () => {
    const dist = mkdtempSync(path.join(tmpdir(), 'tollgate-console-dist-'));
    try {
      assert.equal(readBuiltSite(dist), null, 'no index.html: not built');
      mkdirSync(path.join(dist, 'assets'));
      writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>x</title>');
      writeFileSync(path.join(dist, 'assets', 'console.AAAAAAAA.js'), 'import("./chunk.BBBBBBBB.js")');
      writeFileSync(path.join(dist, 'assets', 'chunk.BBBBBBBB.js'), 'console.log(1)');
      const site = readBuiltSite(dist);
      assert.ok(site);
      assert.equal(site.index.contentType, 'text/html; charset=utf-8');
      assert.deepEqual([...site.assets.keys()].sort(), ['chunk.BBBBBBBB.js', 'console.AAAAAAAA.js']);
      assert.equal(site.assets.get('chunk.BBBBBBBB.js')?.contentType, 'text/javascript; charset=utf-8');
    } finally {
      rmSync(dist, { recursive: true, force: true });
    }
  });

  it('a console that cannot be built is a 503 with Retry-After that names the fix, never a 500', async () => {
    await assert.rejects(
      siteOr503(() => Promise.reject(new Error("Cannot find package 'esbuild'"))),
      (err: unknown) =>
        err instanceof AppError &&
        err.code === 'SERVICE_UNAVAILABLE' &&
        /npm run build -w @tollgate\/console/.test(err.message) &&
        err.headers['retry-after'] === '30',
    );
  });
});
