// The published build: tsc over src with tsconfig.build.json (ESM and .d.ts into dist/, or the
// directory given as the first argument). Runs on `npm pack` (prepack) and in the SDK's tests.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.resolve(dir, process.argv[2] ?? 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(outDir, { recursive: true, force: true });
const r = spawnSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.build.json'), '--outDir', outDir], { stdio: 'inherit' });
process.exit(r.status ?? 1);
