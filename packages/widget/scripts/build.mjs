// npm run build -w @tollgate/widget: dist/tollgate-widget.js (ESM) and dist/tollgate-widget.min.js
// (the self-contained script). Runs on `npm pack` (prepack).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { bundleModule, bundleScript, MODULE_FILE, SCRIPT_FILE } from './bundle.mjs';

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
const script = await bundleScript();
writeFileSync(path.join(dist, SCRIPT_FILE), script);
writeFileSync(path.join(dist, MODULE_FILE), await bundleModule());
console.log(`${SCRIPT_FILE}: ${script.length} bytes, ${gzipSync(script, { level: 9 }).length} gzipped`);
