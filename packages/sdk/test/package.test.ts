/**
 * @tollgate/sdk as a user gets it: `npm pack` (which builds it), the tarball installed offline
 * into a scratch project, and used from there against the real server, from JavaScript and from
 * a TypeScript file type-checked against the shipped declarations.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { startRealServer, type RealServer } from './helpers/real-server.js';
import { packLocked, sdkDir } from './helpers/build.js';

let server: RealServer;
let tmp: string;
let tarball: string;
let files: string[];
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });

before(async () => {
  server = await startRealServer();
  tmp = mkdtempSync(path.join(os.tmpdir(), 'tollgate-sdk-pack-'));
  const packed = packLocked(sdkDir, tmp, path.join(tmp, 'dist'));
  tarball = path.join(tmp, path.basename(packed.filename));
  files = packed.files.map((f) => f.path).sort();
});
after(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await server.close();
});

describe('npm pack', () => {
  it('ships dist (ESM and .d.ts) and no TypeScript source', () => {
    assert.ok(files.includes('dist/index.js') && files.includes('dist/index.d.ts'), files.join(', '));
    assert.ok(files.includes('package.json') && files.includes('README.md'));
    const source = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
    assert.deepEqual(source, []);
    assert.deepEqual(
      files.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md'].includes(f)),
      [],
    );
  });

  it('has no runtime dependencies, and nothing it ships imports a node: module', () => {
    const pkg = JSON.parse(readFileSync(path.join(sdkDir, 'package.json'), 'utf8'));
    assert.equal(pkg.dependencies, undefined);
    assert.equal(pkg.peerDependencies, undefined);
    const dist = path.join(tmp, 'dist'); // as the pack built it
    const js = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
    assert.ok(js.length > 5);
    for (const f of js) {
      const text = readFileSync(path.join(dist, f), 'utf8');
      assert.doesNotMatch(text, /from ['"]node:|import\(['"]node:|require\(/, f);
      for (const spec of text.matchAll(/from '([^']+)'/g)) assert.match(spec[1]!, /^\.\//, `${f} imports only its own files`);
    }
  });
});

describe('installed from the tarball into a scratch project', () => {
  let project: string;
  before(() => {
    project = path.join(tmp, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
    npm(['install', '--offline', '--no-audit', '--no-fund', tarball], project);
  });

  it('imports @tollgate/sdk and tracks, flushes and checks against the real server', async () => {
    const s = await server.subscribed([{ metricName: 'api_calls', limit: 100, enforcement: 'BLOCK' }]);
    writeFileSync(
      path.join(project, 'use.mjs'),
      `import { Tollgate, TollgateError } from '@tollgate/sdk';
      const [apiKey, baseUrl, customerId, productId, at] = process.argv.slice(2);
      const tg = new Tollgate({ apiKey, baseUrl, now: () => Date.parse(at), entitlementCacheTtlMs: 0 });
      for (let i = 0; i < 30; i++) tg.track({ customerId, metricName: 'api_calls', quantity: 1 });
      const flushed = await tg.close();
      const check = await tg.check(customerId, productId);
      const missing = await tg.customers.get('cus_nope').catch((e) => e instanceof TollgateError && e.status);
      console.log(JSON.stringify({ accepted: flushed.accepted, quotaRemaining: check.quotaRemaining, missing }));`,
    );
    const child = spawn(process.execPath, ['use.mjs', server.key, server.baseUrl, s.customerId, s.productId, new Date(server.now()).toISOString()], {
      cwd: project,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const [status] = (await once(child, 'exit')) as [number];
    assert.equal(status, 0, err);
    assert.deepEqual(JSON.parse(out), { accepted: 30, quotaRemaining: 70, missing: 404 });
  });

  it('its declarations type-check a TypeScript user (NodeNext resolution through the exports map)', () => {
    writeFileSync(
      path.join(project, 'use.ts'),
      `import { Tollgate, UsageLimitExceeded, type EntitlementCheck } from '@tollgate/sdk';
      const tg = new Tollgate({ apiKey: 'sk_test_x', baseUrl: 'http://127.0.0.1:8080' });
      tg.track({ customerId: 'acme', metricName: 'api_calls', quantity: 1 });
      export async function f(): Promise<number> {
        const c: EntitlementCheck = await tg.check('acme', 'prod_1');
        const customer = await tg.customers.create({ name: 'x' });
        try { await tg.guard({ customerId: customer.id, productId: 'p' }); } catch (e) { if (e instanceof UsageLimitExceeded) return e.used; }
        return c.quotaRemaining;
      }
      // @ts-expect-error a misspelt field is a type error
      tg.track({ customerId: 'acme', metricNme: 'api_calls', quantity: 1 });`,
    );
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, lib: ['ES2022', 'DOM'], types: [] },
        files: ['use.ts'],
      }),
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  });
});
