import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { builtOr503 } from '../../http/built-assets.js';
import { loadConsoleSite, type ConsoleFile, type ConsoleSite } from './console-site.js';

export const CONSOLE_BASE = '/console';

/**
 * The console's own files only, and its API on this origin: no inline script or style, no other
 * host, no framing. img-src allows data: for the page's empty favicon.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** index.html is checked on every load, so a new build shows at once; the assets carry their hash in their names. */
const INDEX_CACHE = 'no-cache';
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/** The site, or a 503 with Retry-After naming the fix when it cannot be read or built (the next request tries again). */
export function siteOr503(load: () => Promise<ConsoleSite> = loadConsoleSite): Promise<ConsoleSite> {
  return builtOr503(load, 'The console', 'run npm run build -w @tollgate/console, or install the dev dependencies (esbuild)');
}

function send(req: FastifyRequest, reply: FastifyReply, f: ConsoleFile, cacheControl: string) {
  reply.headers({
    'content-type': f.contentType,
    'cache-control': cacheControl,
    vary: 'Accept-Encoding',
    'content-security-policy': CONSOLE_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  if (/\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) return reply.header('content-encoding', 'gzip').send(f.gzip);
  return reply.send(f.body);
}

/** A path's last segment has a file extension: a file was asked for, not a screen. */
const looksLikeFile = (rest: string) => /\.[A-Za-z0-9]+$/.test(rest.split('/').pop() ?? '');

/**
 * The operator console (packages/console), a single-page app: its hashed assets under
 * /console/assets/, and index.html for every other /console path without a file extension (the
 * app's router decides the screen). Pages, not API: hidden from the OpenAPI document.
 */
export async function consoleRoutes(app: App, _deps: Deps): Promise<void> {
  const config = { auth: { kind: 'none' } } as const;
  const schema = { hide: true };

  const page = async (req: FastifyRequest, reply: FastifyReply, rest: string) => {
    if (rest.startsWith('assets/')) {
      const site = await siteOr503();
      const name = rest.slice('assets/'.length);
      const asset = site.assets.get(name);
      if (!asset) throw new AppError('NOT_FOUND', `No console asset ${name}: this server serves ${[...site.assets.keys()].join(' and ')}. Reload the console.`);
      return send(req, reply, asset, ASSET_CACHE);
    }
    if (looksLikeFile(rest)) throw new AppError('NOT_FOUND', `No file ${CONSOLE_BASE}/${rest}: the console's files are under ${CONSOLE_BASE}/assets/.`);
    return send(req, reply, (await siteOr503()).index, INDEX_CACHE);
  };

  app.get(CONSOLE_BASE, { config, schema }, (req, reply) => page(req, reply, ''));
  app.get(`${CONSOLE_BASE}/*`, { config, schema }, (req, reply) => page(req, reply, (req.params as { '*'?: string })['*'] ?? ''));
}
