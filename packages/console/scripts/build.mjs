// npm run build -w @tollgate/console: dist/index.html and dist/assets/ (console.<hash>.js|css, the
// entry and its stylesheet, and every chunk.<hash>.js it loads, statically or on a screen's first
// visit), and the developer hub's dist/hub/index.html and dist/hub/assets/ likewise.
// The server serves dist/ when it is there, and builds the same in memory when it is not.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { bundleConsole, bundleHub } from './bundle.mjs';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
rmSync(dist, { recursive: true, force: true });
for (const [out, bundle] of [
  [dist, bundleConsole],
  [path.join(dist, 'hub'), bundleHub],
]) {
  mkdirSync(path.join(out, 'assets'), { recursive: true });
  const { index, assets } = await bundle();
  writeFileSync(path.join(out, 'index.html'), index);
  for (const a of assets) {
    writeFileSync(path.join(out, 'assets', a.name), a.contents);
    console.log(`${a.name}: ${a.contents.length} bytes, ${gzipSync(a.contents, { level: 9 }).length} gzipped`);
  }
}
