// The package as users get it: `npm pack` (which builds the SDK and then dist/ with tsc through `prepack`), the
// tarball installed into a scratch project, then imported and its bin run.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packLocked, sdkDir } from '../../sdk/test/helpers/build.js';
import { createTestApp, type TestApp } from '../../server/test/helpers/test-app.js';
import type { TenantHandle } from '../../server/test/helpers/seed.js';
import { createMetric } from '../../server/src/modules/metrics/create-metric.js';
import { accessLogLine, runCommand } from './fixtures.js';

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const scratch = mkdtempSync(path.join(os.tmpdir(), 'tollgate-forwarder-pack-'));
const NOW = Date.UTC(2026, 5, 15, 12);
let t: TestApp;
let ws: TenantHandle;
let url: string;

before(async () => {
  // The server's clock is frozen mid-month; the replayed lines carry times just before it.
  t = await createTestApp();
  t.clock.set(NOW);
  ws = await t.seed.workspace();
  await createMetric(t.deps, ws.test.ctx, { name: 'api_calls' });
  await t.seed.customer(ws.test, { externalId: 'key-packed' });
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  await t.close();
  rmSync(scratch, { recursive: true, force: true });
});

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('npm pack', () => {
  it('the tarball holds the ESM build with type declarations, the deploy template and no TypeScript source; installed with @tollgate/sdk, its bin replays to the real server', async () => {
    const sdk = packLocked(sdkDir, scratch);
    const info = packLocked(pkgDir, scratch);
    const files = info.files.map((f) => f.path).sort();
    for (const f of ['dist/index.js', 'dist/index.d.ts', 'dist/cli.js', 'dist/handler.js', 'deploy/template.yaml', 'package.json'])
      assert.ok(files.includes(f), `${f} in ${files.join(', ')}`);
    assert.deepEqual(
      files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
      [],
    );
    assert.deepEqual(
      files.filter((f) => f.includes('test')),
      [],
    );
    const manifest = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    assert.deepEqual(manifest.dependencies, { '@tollgate/sdk': '^0.1.0' }, 'its only runtime dependency: the retries and the HTTP client are the SDK’s');

    // Installed from the tarball into a scratch project, with nothing of this repository.
    const project = path.join(scratch, 'project');
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
    // Both tarballs at once: the forwarder's @tollgate/sdk is the one packed from this repository.
    npm(['install', '--offline', path.join(scratch, path.basename(sdk.filename)), path.join(scratch, path.basename(info.filename))], project);
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { mapLogEvent, DEFAULT_MAPPING, handler } from '@tollgate/forwarder';
         const m = mapLogEvent({ id: '1', timestamp: 0, message: JSON.stringify({ httpMethod: 'GET', apiKeyId: 'k' }) }, DEFAULT_MAPPING);
         console.log(JSON.stringify(m), typeof handler);`,
      ],
      { cwd: project, encoding: 'utf8' },
    );
    assert.equal(
      out.trim(),
      `${JSON.stringify({ event: { customerId: 'k', metricName: 'api_calls', quantity: 1, occurredAt: '1970-01-01T00:00:00.000Z', metadata: { method: 'GET', path: '/', statusCode: 200, latencyMs: 0, requestId: '' }, eventId: 'cwl:1' } })} function`,
    );
    const bin = path.join(project, 'node_modules/.bin/tollgate-forwarder');
    const help = execFileSync(bin, ['--help'], { encoding: 'utf8' });
    assert.match(help, /^Usage: tollgate-forwarder replay FILE/);

    // The installed bin sends through the installed @tollgate/sdk to the real server.
    const file = path.join(scratch, 'lines.ndjson');
    const epoch = String(NOW - 60_000);
    writeFileSync(
      file,
      [0, 1, 2].map((i) => JSON.stringify(accessLogLine({ apiKeyId: 'key-packed', requestTimeEpoch: epoch, extendedRequestId: `packed-${i}=` }))).join('\n'),
    );
    const summary = await runCommand(bin, ['replay', file, '--json'], { TOLLGATE_URL: url, TOLLGATE_API_KEY: ws.test.secretKey });
    assert.equal(summary.status, 0, summary.stderr);
    assert.deepEqual([JSON.parse(summary.stdout).accepted, JSON.parse(summary.stdout).batches], [3, 1]);
    const usage = await t.seed.client(ws.test.secretKey).get('/api/v1/usage?customerId=key-packed&metricName=api_calls');
    assert.equal(usage.body.data[0]?.sum, '3');
  });
});
