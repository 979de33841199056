import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const sdkDir = fileURLToPath(new URL('../../', import.meta.url));

/** The published build (scripts/build.mjs) into outDir: each test builds its own, so test files running at once never share one. */
export function buildSdk(outDir: string): void {
  const r = spawnSync(process.execPath, ['scripts/build.mjs', outDir], { cwd: sdkDir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`SDK build failed:\n${r.stdout}${r.stderr}`);
}
