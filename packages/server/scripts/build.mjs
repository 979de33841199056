// The server as compiled JavaScript: esbuild bundles src/cli/index.ts (with @tollgate/pricing and
// @tollgate/sdk from their TypeScript source) into dist/, one file per entry plus shared chunks, so
// that a start loads a few files of plain JavaScript instead of compiling ~400 TypeScript files
// through tsx (7 s to the first answer before, well under a second after: CONTRIBUTING.md).
// - Lazy imports stay lazy (`splitting`): `tollgate --version` does not load the server.
// - npm packages stay external: node_modules is resolved at run time as before.
// - Source maps: bin/tollgate.js turns them on, so stack traces name the .ts lines.
// - dist/build-stamp.json records the sources it was built from; bin/tollgate.js rebuilds when
//   they changed (a developer's edit), and `npm ci` builds it first (the root `prepare` script).
// Every file lands in dist/ itself, one level below packages/server as src/'s top files are, so
// `new URL('../package.json', import.meta.url)` means the same in both (src/version.ts).
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const server = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const packages = path.dirname(server);
export const distDir = path.join(server, 'dist');
const STAMP = 'build-stamp.json';

/** What the bundle is made of: these folders' files (tests aside), this script and the package files. */
const SOURCES = [path.join(server, 'src'), path.join(packages, 'pricing/src'), path.join(packages, 'sdk/src')];
const EXTRA = [
  fileURLToPath(import.meta.url),
  path.join(server, 'package.json'),
  path.join(packages, 'pricing/package.json'),
  path.join(packages, 'sdk/package.json'),
];

/** The entries: the CLI (which lazily loads the server) and the usage writer's two worker threads. */
const ENTRIES = {
  tollgate: 'src/cli/index.ts',
  'sqlite-usage-writer.worker': 'src/modules/ingest-writer/sqlite-usage-writer.worker.ts',
  'sqlite-batch-checker.worker': 'src/modules/ingest-writer/sqlite-batch-checker.worker.ts',
};

/** The bare imports compiled into the bundle; every other package is loaded from node_modules. */
const BUNDLED = /^(@tollgate\/(pricing|sdk)|kysely|@sinclair\/typebox)(\/|$)/;

function listSources(dir, out) {
  let names;
  try {
    names = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const d of names) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) listSources(p, out);
    else if (!d.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/**
 * A digest of every source's path, size and modification time: cheap (a stat per file, a few ms),
 * and any edit, new file or removed file changes it. null when the sources are not here (a
 * container image carries dist/ alone).
 */
export function sourceStamp() {
  if (!existsSync(SOURCES[0])) return null;
  const h = createHash('sha256');
  for (const f of [...SOURCES.flatMap((d) => listSources(d, [])).sort(), ...EXTRA]) {
    try {
      const s = statSync(f);
      h.update(`${path.relative(packages, f)}\0${s.size}\0${s.mtimeMs}\n`);
    } catch {
      h.update(`${path.relative(packages, f)}\0missing\n`);
    }
  }
  return h.digest('hex');
}

/** True when dist/ holds a build of the sources as they are now (or dist/ is all there is). */
export function isCurrent() {
  if (!existsSync(path.join(distDir, 'tollgate.js'))) return false;
  const now = sourceStamp();
  if (now === null) return true;
  try {
    return JSON.parse(readFileSync(path.join(distDir, STAMP), 'utf8')).sources === now;
  } catch {
    return false;
  }
}

/**
 * Builds dist/ from the sources. It builds into a folder of its own and then swaps it in, so a
 * process starting meanwhile (the suite starts many) finds the old build or the new, never half.
 */
export async function build({ quiet = false } = {}) {
  const { build: esbuild } = await import('esbuild');
  const stamp = sourceStamp();
  const t0 = performance.now();
  const tmp = `${distDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  await esbuild({
    absWorkingDir: server,
    entryPoints: ENTRIES,
    outdir: tmp,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    chunkNames: 'chunk-[hash]',
    conditions: ['tollgate-source'],
    logLevel: quiet ? 'silent' : 'warning',
    plugins: [
      {
        // npm packages load from node_modules at run time, but for two pure-ESM libraries of
        // hundreds of files each (kysely 786, TypeBox 600): loading those one by one through the ESM
        // loader took a second of every start. This repository's TypeScript packages are compiled
        // in; the console's and the widget's bundlers are plain .mjs, run as they are.
        name: 'external-packages',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) => (BUNDLED.test(args.path) ? undefined : { path: args.path, external: true }));
        },
      },
    ],
  });
  writeFileSync(path.join(tmp, STAMP), `${JSON.stringify({ sources: stamp }, null, 1)}\n`);
  writeFileSync(path.join(tmp, 'package.json'), '{"type":"module"}\n');
  const old = `${distDir}.old-${process.pid}`;
  if (existsSync(distDir)) renameSync(distDir, old);
  renameSync(tmp, distDir);
  rmSync(old, { recursive: true, force: true });
  const ms = Math.round(performance.now() - t0);
  if (!quiet) process.stderr.write(`Built packages/server/dist in ${ms} ms\n`);
  return ms;
}

/**
 * dist/ current, building it when the sources changed. False when it is stale and cannot be built
 * here (no esbuild: a production install without devDependencies): the caller runs the sources.
 */
export async function ensureBuilt({ quiet = true } = {}) {
  if (isCurrent()) return true;
  try {
    await import('esbuild');
  } catch {
    return false;
  }
  await build({ quiet });
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // `npm ci` runs this (the root `prepare`) also where only the package files are there yet (the
  // container image's install layer): nothing to build then.
  if (sourceStamp() === null) console.log('packages/server/src is not here: nothing to build');
  else await build({ quiet: process.argv.includes('--quiet') });
}
