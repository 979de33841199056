import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';
import { prefersHtml } from './root.routes.js';

const PATHS = ['/docs', '/openapi.json', '/console', '/hub', '/health', '/ready'];

describe('GET /', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 2 } });
  });
  after(() => t.close());

  it('200 JSON by default: links to the reference, the document, the console, the hub and the probes, each one served', async () => {
    for (const accept of [undefined, '*/*', 'application/json']) {
      const r = await t.seed.client(null).get('/', accept === undefined ? {} : { accept });
      assert.equal(r.status, 200, `${accept}: ${r.raw.body}`);
      assert.match(String(r.headers['content-type']), /^application\/json/);
      assert.equal(r.headers.vary, 'Accept');
      assert.equal(r.body.name, 'Tollgate');
      assert.deepEqual(
        r.body.links.map((l: { href: string }) => l.href),
        PATHS,
      );
    }
    for (const path of PATHS) {
      const res = await t.app.inject({ method: 'GET', url: path });
      // 503 is the console's answer when its assets are not built; a link must never lead to a 404.
      assert.notEqual(res.statusCode, 404, `${path} is served`);
    }
  });

  it('200 HTML when Accept prefers it (a browser), with a CSP that allows only its own style', async () => {
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const r = await t.seed.client(null).get('/', { accept: browser });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    const html = r.raw.body;
    assert.match(html, /^<!doctype html>/);
    for (const path of PATHS) assert.ok(html.includes(`<a href="${path}">`), `links ${path}`);
    assert.doesNotMatch(html, /<script/);
    const csp = String(r.headers['content-security-policy']);
    assert.match(csp, /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=*'; /);
    const style = /<style>([^<]*)<\/style>/.exec(html)?.[1] ?? '';
    assert.ok(csp.includes(`'sha256-${createHash('sha256').update(style).digest('base64')}'`), 'the hash is of the page’s style');
    assert.match(csp, /frame-ancestors 'none'/);
  });

  it('200 without a key and never 429: load balancers probe / by default', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await t.seed.client(null).get('/')).status, 200);
  });

  it('prefers HTML only when Accept ranks text/html above JSON', () => {
    const cases: Array<[string | undefined, boolean]> = [
      [undefined, false],
      ['*/*', false],
      ['application/json', false],
      ['text/html', true],
      ['text/*', true],
      ['text/html;q=0.5, application/json', false],
      ['application/json;q=0.5, text/html', true],
      ['text/html;q=0, */*', false],
      ['TEXT/HTML', true],
    ];
    for (const [accept, html] of cases) assert.equal(prefersHtml(accept), html, String(accept));
  });
});
