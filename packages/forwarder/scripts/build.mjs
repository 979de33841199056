// The published build: the SDK's first (the forwarder's declarations import its types from
// packages/sdk/dist), then tsc over src with tsconfig.build.json into dist/. The CLI is made
// executable: npm sets a bin's mode when it installs a package, but in this repository the
// workspace link was made before dist/ existed, so `npx tollgate-forwarder` needs it here.
import { spawnSync } from 'node:child_process';
import { chmodSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const run = (args) => {
  const r = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
run([path.join(dir, '../sdk/scripts/build.mjs')]);
rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
run([createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', path.join(dir, 'tsconfig.build.json')]);
chmodSync(path.join(dir, 'dist/cli.js'), 0o755);
