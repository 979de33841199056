// The console's builds, in memory (esbuild): the operator console (/console) and the developer
// hub (/hub), two entries of this package sharing its components. Each is one script and one
// stylesheet, named by their content hash, and an index.html naming both. build.mjs writes them to
// dist/ (the hub to dist/hub/); the server serves them (packages/server/src/modules/console-assets),
// building them at the first request when dist/ holds none (a source checkout: `npm ci && npm start`).
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where the server serves the console's assets; index.html names them under it. */
export const ASSET_BASE = '/console/assets/';
/** Where it serves the hub's. */
export const HUB_ASSET_BASE = '/hub/assets/';

const contentTypes = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

const hashOf = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

const CONSOLE = { entry: 'src/main.tsx', name: 'console', base: ASSET_BASE, title: 'Tollgate console', what: 'The Tollgate console' };
const HUB = { entry: 'src/hub/main.tsx', name: 'hub', base: HUB_ASSET_BASE, title: 'Developer hub', what: 'The developer hub' };

/** The page: no inline script or style (the CSP allows neither), no request for a favicon. */
export function renderIndex(script, stylesheet, app = CONSOLE) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${app.title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${app.base}${stylesheet}">
<script type="module" src="${app.base}${script}"></script>
</head>
<body>
<noscript><p>${app.what} needs JavaScript.</p></noscript>
<div id="app"></div>
</body>
</html>
`;
}

async function bundleApp(app) {
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [path.join(dir, app.entry)],
    bundle: true,
    write: false,
    outdir: path.join(dir, 'out'),
    entryNames: app.name,
    format: 'esm',
    platform: 'browser',
    target: ['es2021', 'chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const assets = out.outputFiles.map((f) => {
    const ext = path.extname(f.path);
    return { name: `${app.name}.${hashOf(f.contents)}${ext}`, contentType: contentTypes[ext], contents: Buffer.from(f.contents) };
  });
  const script = assets.find((a) => a.name.endsWith('.js'));
  const stylesheet = assets.find((a) => a.name.endsWith('.css'));
  if (!script || !stylesheet) throw new Error(`the ${app.name} build gave ${assets.map((a) => a.name).join(', ')}: a script and a stylesheet were expected`);
  return { index: renderIndex(script.name, stylesheet.name, app), assets };
}

/** The console: {index, assets: [{name, contentType, contents}]}, minified. */
export const bundleConsole = () => bundleApp(CONSOLE);

/** The developer hub, the same way: hub.<hash>.js and .css under /hub/assets/. */
export const bundleHub = () => bundleApp(HUB);
