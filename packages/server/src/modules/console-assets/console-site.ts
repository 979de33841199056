import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildOnce } from '../../http/built-assets.js';

/** One file of the console as served: its bytes, gzipped once. */
export interface ConsoleFile {
  contentType: string;
  body: Buffer;
  gzip: Buffer;
}

/** The console's (or the hub's) page and its assets by file name (console.<hash>.js|css, chunk.<hash>.js, hub.<hash>.css…). */
export interface ConsoleSite {
  index: ConsoleFile;
  assets: ReadonlyMap<string, ConsoleFile>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

const file = (name: string, bytes: Buffer | string): ConsoleFile => {
  const body = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes, 'utf8');
  return { contentType: TYPES[path.extname(name)] ?? 'application/octet-stream', body, gzip: gzipSync(body, { level: 9 }) };
};

export function toConsoleSite(index: string | Buffer, assets: ReadonlyArray<{ name: string; contents: Buffer }>): ConsoleSite {
  return { index: file('index.html', index), assets: new Map(assets.map((a) => [a.name, file(a.name, a.contents)])) };
}

/**
 * @tollgate/console as served: dist/ when the package was built (a production image), else built
 * now from its source with esbuild (a source checkout: `npm ci && npm start`), once per process.
 * A failure is not kept: the next call tries again.
 */
export const loadConsoleSite: () => Promise<ConsoleSite> = buildOnce(() => readOrBuild('console'));

/** The developer hub, the second entry of @tollgate/console, the same way (dist/hub/ when built). */
export const loadHubSite: () => Promise<ConsoleSite> = buildOnce(() => readOrBuild('hub'));

/** The built site in `dist`, or null when it holds none. */
export function readBuiltSite(dist: string): ConsoleSite | null {
  const index = path.join(dist, 'index.html');
  if (!existsSync(index)) return null;
  // Every file of dist/assets/: the entry, each chunk (lazy or not) and the stylesheet.
  const dir = path.join(dist, 'assets');
  const names = existsSync(dir) ? readdirSync(dir) : [];
  return toConsoleSite(
    readFileSync(index),
    names.map((name) => ({ name, contents: readFileSync(path.join(dir, name)) })),
  );
}

async function readOrBuild(app: 'console' | 'hub'): Promise<ConsoleSite> {
  const pkg = fileURLToPath(import.meta.resolve('@tollgate/console/package.json'));
  const dist = path.join(path.dirname(pkg), 'dist');
  const built = readBuiltSite(app === 'hub' ? path.join(dist, 'hub') : dist);
  if (built) return built;
  const { bundleConsole, bundleHub } = await import('@tollgate/console/bundle');
  const { index, assets } = await (app === 'hub' ? bundleHub() : bundleConsole());
  return toConsoleSite(index, assets);
}
