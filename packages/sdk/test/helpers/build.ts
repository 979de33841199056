import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const sdkDir = fileURLToPath(new URL('../../', import.meta.url));

/** The published build (scripts/build.mjs) into outDir: each test builds its own, so test files running at once never share one. */
export function buildSdk(outDir: string): void {
  const r = spawnSync(process.execPath, ['scripts/build.mjs', outDir], { cwd: sdkDir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`SDK build failed:\n${r.stdout}${r.stderr}`);
}

export interface PackInfo {
  filename: string;
  files: Array<{ path: string }>;
}

/**
 * `npm pack` of a package whose prepack rebuilds packages/sdk/dist (the SDK, the forwarder),
 * one at a time across test files (flock on a file beside the SDK; the kernel frees it if a
 * process dies), so that two test processes never rebuild dist under each other. With
 * `copyDistTo`, dist as this pack built it is copied there before the lock is let go.
 */
export function packLocked(dir: string, dest: string, copyDistTo?: string): PackInfo {
  const lock = path.join(sdkDir, '.pack.lock');
  const args = [lock, process.execPath, '-e', PACK_AND_COPY, dir, dest, copyDistTo ?? '', path.join(sdkDir, 'dist')];
  const r = spawnSync('flock', args, { encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (r.status !== 0) throw new Error(`npm pack in ${dir} failed:\n${r.stdout}${r.stderr}`);
  return (JSON.parse(r.stdout) as PackInfo[])[0]!;
}

const PACK_AND_COPY = `
const { execFileSync } = require('node:child_process');
const { cpSync } = require('node:fs');
const [dir, dest, copyTo, dist] = process.argv.slice(1);
const out = execFileSync('npm', ['pack', '--json', '--loglevel=error', '--pack-destination', dest], { cwd: dir, encoding: 'utf8' });
if (copyTo) cpSync(dist, copyTo, { recursive: true });
process.stdout.write(out);
`;
