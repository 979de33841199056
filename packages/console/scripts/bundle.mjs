// The console's builds, in memory (esbuild): the operator console (/console) and the developer
// hub (/hub), two entries of this package sharing its components. Each is built with esbuild's
// code splitting: an entry script (what the first screen needs), the chunks it imports statically
// (code it shares with the lazy screens), a chunk per lazily loaded screen (a dynamic import() in
// src/lazy-screens.ts, fetched on the screen's first visit), one stylesheet, and an index.html
// naming the entry, its static chunks (modulepreload, so they are fetched at once rather than
// after the entry is parsed) and the stylesheet. Every file is named by esbuild's content hash
// (`<name>.<hash>.js`, the hash covering the chunks a file imports) and kept under esbuild's own
// name, since the entry and chunks import each other by relative path (./chunk.<hash>.js): all of
// them are served from one directory, /console/assets/ (/hub/assets/). build.mjs writes them to
// dist/ (the hub to dist/hub/); the server serves them (packages/server/src/modules/console-assets),
// building them at the first request when dist/ holds none (a source checkout: `npm ci && npm start`).
import { Buffer } from 'node:buffer';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where the server serves the console's assets; index.html names them under it. */
export const ASSET_BASE = '/console/assets/';
/** Where it serves the hub's. */
export const HUB_ASSET_BASE = '/hub/assets/';

const contentTypes = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

const CONSOLE = { entry: 'src/main.tsx', name: 'console', base: ASSET_BASE, title: 'Tollgate console', what: 'The Tollgate console' };
const HUB = { entry: 'src/hub/main.tsx', name: 'hub', base: HUB_ASSET_BASE, title: 'Developer hub', what: 'The developer hub' };

/**
 * The page: no inline script or style (the CSP allows neither), no request for a favicon. `preload`
 * names the chunks the entry imports statically, fetched alongside it.
 */
export function renderIndex(script, stylesheet, app = CONSOLE, preload = []) {
  const preloads = preload.map((name) => `<link rel="modulepreload" href="${app.base}${name}">\n`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${app.title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${app.base}${stylesheet}">
<script type="module" src="${app.base}${script}"></script>
${preloads}</head>
<body>
<noscript><p>${app.what} needs JavaScript.</p></noscript>
<div id="app"></div>
</body>
</html>
`;
}

async function bundleApp(app) {
  const { build } = await import('esbuild');
  const outdir = path.join(dir, 'out');
  const out = await build({
    // The metafile's paths are relative to this, whatever the process's working directory.
    absWorkingDir: dir,
    entryPoints: { [app.name]: path.join(dir, app.entry) },
    bundle: true,
    write: false,
    outdir,
    splitting: true,
    format: 'esm',
    // <entry or lazy screen's module>.<hash>.js, chunk.<hash>.js for shared code: esbuild's
    // content hashes, one flat directory (the files import each other by relative path).
    entryNames: '[name].[hash]',
    chunkNames: 'chunk.[hash]',
    platform: 'browser',
    target: ['es2021', 'chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'silent',
  });
  const nameOf = (p) => path.relative(outdir, path.resolve(dir, p));
  for (const f of out.outputFiles) {
    const name = path.relative(outdir, f.path);
    if (name.includes(path.sep)) throw new Error(`the ${app.name} build wrote ${name}: every file must be in one directory`);
  }
  const assets = out.outputFiles.map((f) => {
    const ext = path.extname(f.path);
    return { name: path.relative(outdir, f.path), contentType: contentTypes[ext], contents: Buffer.from(f.contents) };
  });
  const outputs = Object.entries(out.metafile.outputs).map(([p, o]) => ({ name: nameOf(p), ...o }));
  const entryPath = path.join(dir, app.entry);
  const entry = outputs.find((o) => o.entryPoint && path.resolve(dir, o.entryPoint) === entryPath && o.name.endsWith('.js'));
  const stylesheet = entry?.cssBundle ? nameOf(entry.cssBundle) : undefined;
  if (!entry || !stylesheet)
    throw new Error(`the ${app.name} build gave ${assets.map((a) => a.name).join(', ')}: an entry script and a stylesheet were expected`);
  // What the first screen loads: the entry and, transitively, the chunks it imports statically.
  const initial = [];
  const visit = (name) => {
    if (initial.includes(name)) return;
    initial.push(name);
    const o = outputs.find((x) => x.name === name);
    for (const i of o?.imports ?? []) if (i.kind === 'import-statement' && !i.external) visit(nameOf(i.path));
  };
  visit(entry.name);
  return {
    index: renderIndex(entry.name, stylesheet, app, initial.slice(1)),
    assets,
    entry: entry.name,
    stylesheet,
    initialScripts: initial,
  };
}

/** The console: {index, assets: [{name, contentType, contents}], entry, stylesheet, initialScripts}, minified. */
export const bundleConsole = () => bundleApp(CONSOLE);

/** The developer hub, the same way: hub.<hash>.js and .css (and its chunks) under /hub/assets/. */
export const bundleHub = () => bundleApp(HUB);
