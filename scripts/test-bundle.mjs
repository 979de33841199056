// The test files as bundles, for scripts/test.mjs: one esbuild build of every test file of every
// package (code splitting: what files share lands in shared chunks, built once), which each file's
// process then loads as a few files of plain JavaScript. Through tsx, every one of the ~500 modules
// a server test imports goes through Node 20's module hooks, which run on a thread of their own and
// answer each module by message: ~2 s of CPU per process before the first test, against ~0.5 s
// for the bundle (CONTRIBUTING.md, "Keeping the suite fast"). The other packages' files are
// bundled the same way: the SDK's and the forwarder's tests start the server in their own process
// (6.3 s of CPU through tsx for sdk/test/retries.test.ts, 2.4 s bundled), and a pure file's tsx
// start alone (0.6 s) is twice its bundle's whole run. Each file still runs in its own process,
// exactly as before.
//
// What stays as it was:
// - npm packages are not bundled: they load from node_modules at run time, as before. The bundles
//   are written under packages/server/node_modules/.cache/, so a bare import finds the same package
//   it finds from packages/server/src (packages/server/node_modules first, then the root's). The
//   other packages have no node_modules of their own (npm hoists their dependencies to the root),
//   and none imports what packages/server/node_modules holds (pino and its helpers), so their
//   imports find the same packages as from their own folders too.
//   Two npm packages are bundled, as the server's own build bundles them for dist/
//   (packages/server/scripts/build.mjs, BUNDLED): kysely and TypeBox, pure ES modules that read no
//   file of their own, of hundreds of files each. Node's ES module loader resolves, reads and
//   compiles those one at a time, ~465 files in every server test process: 0.2 to 0.45 s of its
//   CPU, for a small file a quarter of its whole run.
// - @tollgate/* packages are bundled from their TypeScript source (the tollgate-source condition),
//   as the runner's --conditions=tollgate-source made tsx load them.
// - import.meta.url is each source file's own URL (a define bound to a variable per module), so
//   paths computed from it (fixtures, the repository root, worker entries, createRequire) are those
//   of the .ts file; function and class names are kept (keepNames); stack traces name the .ts
//   lines (source maps, and --enable-source-maps on the file's process).
// - TypeScript is compiled by esbuild, as tsx does (tsx is esbuild underneath), with each file's
//   nearest tsconfig.json.
//
// TEST_LOADER=tsx (or --tsx) runs every file through tsx instead, as before: for a test whose
// behaviour you suspect the bundle of changing.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Where this run's bundles go: under packages/server/node_modules, one folder per runner process. */
export function bundleRoot(root) {
  return path.join(root, 'packages/server/node_modules/.cache/tollgate-test-bundles');
}

/** Files the bundle is made for: every package's test files (see above for why their imports resolve as before). */
export function bundles(file) {
  return file.startsWith('packages/') && file.endsWith('.test.ts');
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Removes the folders of runners that are gone (a runner removes its own when it ends, unless killed). */
function sweep(dir) {
  const ageMs = (p) => {
    try {
      return Date.now() - statSync(p).mtimeMs;
    } catch {
      return 0;
    }
  };
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    const pid = Number(name.split('-')[0]);
    const p = path.join(dir, name);
    if (!Number.isInteger(pid) || !alive(pid) || ageMs(p) > 24 * 3_600_000) rmSync(p, { recursive: true, force: true });
  }
}

/** The npm packages bundled in, as packages/server/scripts/build.mjs bundles them for dist/ (BUNDLED there). */
const BUNDLED_PACKAGES = /^(kysely|@sinclair\/typebox)(\/|$)/;

const LOADERS = { '.ts': 'ts', '.mts': 'ts', '.cts': 'ts', '.tsx': 'tsx', '.js': 'js', '.mjs': 'js', '.cjs': 'js', '.jsx': 'jsx' };
const META_URL = '__tollgateImportMetaUrl';

/**
 * Builds `files` (paths relative to `root`, all under packages/) and returns a Map from each
 * file to its bundle's absolute path, and `remove()` to delete this run's folder.
 */
export async function buildTestBundles(root, files) {
  const esbuild = await import('esbuild');
  const base = bundleRoot(root);
  mkdirSync(base, { recursive: true });
  sweep(base);
  const outdir = path.join(base, `${process.pid}-${Date.now().toString(36)}`);
  const remove = () => rmSync(outdir, { recursive: true, force: true });
  const packages = path.join(root, 'packages');
  const inRepo = (p) => p.startsWith(root + path.sep) && !p.split(path.sep).includes('node_modules');

  const plugin = {
    name: 'tollgate-test-bundles',
    setup(build) {
      // npm packages stay imports, resolved by Node at run time; the workspace's own are bundled,
      // and so are kysely and TypeBox (above).
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('@tollgate/') || path.isAbsolute(args.path) || BUNDLED_PACKAGES.test(args.path)) return undefined;
        return { path: args.path, external: true };
      });
      // Each source file gets its own URL as import.meta.url: `define` turns import.meta.url into
      // a variable, declared here at the start of the file's first line (lines stay where they are;
      // esbuild renames each module's copy apart).
      build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => {
        if (!inRepo(args.path)) return undefined;
        let text = readFileSync(args.path, 'utf8');
        const head = `var ${META_URL} = ${JSON.stringify(pathToFileURL(args.path).href)};`;
        const shebang = text.startsWith('#!') ? text.indexOf('\n') + 1 : 0;
        text = shebang > 0 ? `${text.slice(0, shebang)}${head}${text.slice(shebang)}` : `${head}${text}`;
        return { contents: text, loader: LOADERS[path.extname(args.path)] ?? 'default', resolveDir: path.dirname(args.path) };
      });
    },
  };

  const t0 = Date.now();
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: files.map((f) => path.join(root, f)),
    outdir,
    outbase: packages,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    conditions: ['tollgate-source'],
    define: { 'import.meta.url': META_URL },
    keepNames: true,
    sourcemap: 'linked',
    // Sources in the map as paths only: the .ts files are where they were.
    sourcesContent: false,
    // A chunk's name says nothing; a file's bundle is found by its path.
    chunkNames: 'chunks/[name]-[hash]',
    logLevel: 'silent',
    plugins: [plugin],
  });
  for (const w of result.warnings) console.log(`test bundles: ${w.text}${w.location ? ` (${w.location.file}:${w.location.line})` : ''}`);
  const out = new Map();
  for (const f of files) {
    const rel = path.relative(packages, path.join(root, f)).replace(/\.[cm]?tsx?$/, '.mjs');
    const bundle = path.join(outdir, rel);
    if (!existsSync(bundle)) throw new Error(`test bundles: no bundle for ${f} at ${bundle}`);
    out.set(f, bundle);
  }
  return { bundles: out, ms: Date.now() - t0, remove };
}
