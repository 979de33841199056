// The widget's two builds, in memory (esbuild): the ESM module for bundlers (Lit left to the
// page's own copy, @tollgate/pricing bundled in: it is not published on its own) and the
// self-contained script for a <script> tag (everything bundled, minified). build.mjs writes them
// to dist/; the server serves the script (modules/widget-assets), building it at start when
// dist/ holds none (a source checkout).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(dir, 'src/index.ts');

export const SCRIPT_FILE = 'tollgate-widget.min.js';
export const MODULE_FILE = 'tollgate-widget.js';

async function esbuild() {
  return import('esbuild');
}

const common = {
  entryPoints: [entry],
  bundle: true,
  write: false,
  platform: 'browser',
  target: ['es2021', 'chrome100', 'firefox100', 'safari15'],
  // @tollgate/pricing's source: the browser condition is the default one.
  conditions: ['tollgate-source'],
  legalComments: 'none',
  logLevel: 'silent',
};

/** The self-contained script: an IIFE that defines <tollgate-upgrade-cancel>. */
export async function bundleScript() {
  const { build } = await esbuild();
  const out = await build({ ...common, format: 'iife', minify: true });
  return out.outputFiles[0].text;
}

/** The ESM build: imports lit from the page's dependencies. */
export async function bundleModule() {
  const { build } = await esbuild();
  const out = await build({
    ...common,
    format: 'esm',
    minify: false,
    external: ['lit', 'lit/*', '@lit/*', 'lit-html', 'lit-html/*', 'lit-element', 'lit-element/*'],
  });
  return out.outputFiles[0].text;
}
