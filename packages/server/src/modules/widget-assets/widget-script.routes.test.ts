import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { AppError } from '../../lib/errors.js';
import { scriptOr503 } from './widget-script.routes.js';

/**
 * The widget's script as a seller's page loads it: public, the latest under a fixed name (cached
 * for minutes), one version under its content hash (cached for a year, immutable), gzipped when
 * taken, with an ETag, and a manifest naming the versioned file and its integrity.
 */
let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(async () => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('GET /widget/v1/…', () => {
  it('the manifest names the versioned script, whose bytes its integrity and hash describe', async () => {
    const manifest = await get('/widget/v1/manifest.json');
    assert.equal(manifest.statusCode, 200, manifest.body);
    const m = manifest.json<{ object: string; path: string; integrity: string; bytes: number; gzipBytes: number }>();
    assert.equal(m.object, 'widget_script');
    assert.match(m.path, /^\/widget\/v1\/tollgate-widget\.[0-9a-f]{16}\.js$/);
    const versioned = await get(m.path);
    assert.equal(versioned.statusCode, 200);
    assert.equal(versioned.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(versioned.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(versioned.headers['access-control-allow-origin'], '*');
    const bytes = versioned.rawPayload;
    assert.equal(bytes.length, m.bytes);
    assert.equal(m.integrity, `sha384-${createHash('sha384').update(bytes).digest('base64')}`);
    assert.ok(m.path.includes(createHash('sha256').update(bytes).digest('hex').slice(0, 16)), 'the name carries the content hash');
    assert.match(bytes.toString('utf8'), /tollgate-upgrade-cancel/, 'it defines the element');
  });

  it('the latest script is the same bytes, cached for five minutes, gzipped for a client that takes it, 304 on its ETag', async () => {
    const plain = await get('/widget/v1/tollgate-widget.js');
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.headers['cache-control'], 'public, max-age=300');
    assert.equal(plain.headers['content-encoding'], undefined);
    const zipped = await get('/widget/v1/tollgate-widget.js', { 'accept-encoding': 'gzip, br' });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(zipped.rawPayload), plain.rawPayload);
    assert.ok(zipped.rawPayload.length <= 30_000, `the gzipped script is ${zipped.rawPayload.length} bytes: at most 30 kB, Lit included`);
    const etag = String(plain.headers.etag);
    const again = await get('/widget/v1/tollgate-widget.js', { 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.rawPayload.length, 0);
  });

  it('another version is a 404 that names the current one; a malformed name is a 400', async () => {
    const other = await get('/widget/v1/tollgate-widget.0123456789abcdef.js');
    assert.equal(other.statusCode, 404);
    assert.match(other.body, /the current one is \/widget\/v1\/tollgate-widget\.[0-9a-f]{16}\.js/);
    const bad = await get('/widget/v1/tollgate-widget.NOT-HEX.js');
    assert.ok([400, 404].includes(bad.statusCode), `status ${bad.statusCode}`);
  });

  it('a script that cannot be built is a 503 with Retry-After that names the fix, never a 500', async () => {
    await assert.rejects(
      scriptOr503(() => Promise.reject(new Error("Cannot find package 'esbuild'"))),
      (err: unknown) =>
        err instanceof AppError &&
        err.code === 'SERVICE_UNAVAILABLE' &&
        /npm run build -w @tollgate\/widget/.test(err.message) &&
        err.headers['retry-after'] === '30',
    );
  });
});
