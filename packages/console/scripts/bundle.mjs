// The console's build, in memory (esbuild): one script and one stylesheet, each named by its
// content hash, and index.html naming both. build.mjs writes them to dist/; the server serves
// them (packages/server/src/modules/console-assets), building them at the first request when
// dist/ holds none (a source checkout: `npm ci && npm start`).
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where the server serves the assets; index.html names them under it. */
export const ASSET_BASE = '/console/assets/';

const contentTypes = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

const hashOf = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

/** The page: no inline script or style (the CSP allows neither), no request for a favicon. */
export function renderIndex(script, stylesheet) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tollgate console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSET_BASE}${stylesheet}">
<script type="module" src="${ASSET_BASE}${script}"></script>
</head>
<body>
<noscript><p>The Tollgate console needs JavaScript.</p></noscript>
<div id="app"></div>
</body>
</html>
`;
}

/** The console: {index, assets: [{name, contentType, contents}]}, minified. */
export async function bundleConsole() {
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [path.join(dir, 'src/main.tsx')],
    bundle: true,
    write: false,
    outdir: path.join(dir, 'out'),
    entryNames: 'console',
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
    return { name: `console.${hashOf(f.contents)}${ext}`, contentType: contentTypes[ext], contents: Buffer.from(f.contents) };
  });
  const script = assets.find((a) => a.name.endsWith('.js'));
  const stylesheet = assets.find((a) => a.name.endsWith('.css'));
  if (!script || !stylesheet) throw new Error(`the console build gave ${assets.map((a) => a.name).join(', ')}: a script and a stylesheet were expected`);
  return { index: renderIndex(script.name, stylesheet.name), assets };
}
