import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildOnce } from '../../http/built-assets.js';

/** The widget's self-contained script as served: its bytes, gzipped once, and its content hash. */
export interface WidgetScript {
  code: Buffer;
  gzip: Buffer;
  /** 16 hex digits of its SHA-256: the versioned file name's. */
  hash: string;
  /** Subresource Integrity of the bytes: sha384-…. */
  integrity: string;
}

export function toWidgetScript(code: string | Buffer): WidgetScript {
  const bytes = Buffer.isBuffer(code) ? code : Buffer.from(code, 'utf8');
  return {
    code: bytes,
    gzip: gzipSync(bytes, { level: 9 }),
    hash: createHash('sha256').update(bytes).digest('hex').slice(0, 16),
    integrity: `sha384-${createHash('sha384').update(bytes).digest('base64')}`,
  };
}

/**
 * The script of @tollgate/widget: dist/tollgate-widget.min.js when the package was built (npm pack,
 * a production image), else built now from its source with esbuild (a source checkout: what
 * `npm ci && npm start` runs), once per process. A failure is not kept: the next call tries again.
 */
export const loadWidgetScript: () => Promise<WidgetScript> = buildOnce(readOrBuild);

async function readOrBuild(): Promise<WidgetScript> {
  const pkg = fileURLToPath(import.meta.resolve('@tollgate/widget/package.json'));
  const built = path.join(path.dirname(pkg), 'dist', 'tollgate-widget.min.js');
  if (existsSync(built)) return toWidgetScript(readFileSync(built));
  const { bundleScript } = await import('@tollgate/widget/bundle');
  return toWidgetScript(await bundleScript());
}
