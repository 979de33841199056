// npm run build -w @tollgate/console: dist/index.html and dist/assets/console.<hash>.js|css.
// The server serves dist/ when it is there, and builds the same in memory when it is not.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { bundleConsole } from './bundle.mjs';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(path.join(dist, 'assets'), { recursive: true });
const { index, assets } = await bundleConsole();
writeFileSync(path.join(dist, 'index.html'), index);
for (const a of assets) {
  writeFileSync(path.join(dist, 'assets', a.name), a.contents);
  console.log(`${a.name}: ${a.contents.length} bytes, ${gzipSync(a.contents, { level: 9 }).length} gzipped`);
}
