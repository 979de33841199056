// The package as users get it: `npm pack` (which builds dist/ with tsc through `prepare`), the
// tarball installed into a scratch project, then imported and its bin run.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = fileURLToPath(new URL('..', import.meta.url));
const scratch = mkdtempSync(path.join(os.tmpdir(), 'tollgate-forwarder-pack-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('npm pack', () => {
  it('the tarball holds the ESM build with type declarations, the deploy template and no TypeScript source', () => {
    const [info] = JSON.parse(npm(['pack', '--json', '--pack-destination', scratch], pkgDir)) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = info!.files.map((f) => f.path).sort();
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

    // Installed from the tarball into a scratch project, with nothing of this repository.
    const project = path.join(scratch, 'project');
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
    npm(['install', '--offline', path.join(scratch, info!.filename)], project);
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
    const help = execFileSync(path.join(project, 'node_modules/.bin/tollgate-forwarder'), ['--help'], { encoding: 'utf8' });
    assert.match(help, /^Usage: tollgate-forwarder replay FILE/);
  });
});
