// npm run openapi:lint: renders the OpenAPI document the server serves (in process, no port) to a
// temporary file and lints it with Redocly's recommended rules (redocly.yaml). Offline: telemetry
// and the update check are off, and the document has no external $ref.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderOpenApiDocument } from '../packages/server/src/openapi-document.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(path.join(tmpdir(), 'tollgate-openapi-'));
const file = path.join(dir, 'openapi.json');
let status;
try {
  writeFileSync(file, JSON.stringify(await renderOpenApiDocument(), null, 2));
  const redocly = path.join(root, 'node_modules/.bin/redocly');
  const run = spawnSync(redocly, ['lint', file, '--config', path.join(root, 'redocly.yaml'), '--format', 'stylish'], {
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  status = run.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(status);
