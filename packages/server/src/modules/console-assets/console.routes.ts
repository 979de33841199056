import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { builtOr503 } from '../../http/built-assets.js';
import { loadConsoleSite, loadHubSite, type ConsoleFile, type ConsoleSite } from './console-site.js';

export const CONSOLE_BASE = '/console';
export const HUB_BASE = '/hub';

const BASE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
];

/**
 * The console's own files only, and its API on this origin: no inline script or style, no other
 * host, no framing. img-src allows data: for the page's empty favicon.
 */
export const CONSOLE_CSP = BASE_CSP.join('; ');

/**
 * The developer hub: the same, but images from any https host too, for the seller's logo
 * (`theme.logoUrl`, https only, chosen by the seller's backend). The widget's script it embeds is
 * this server's (/widget/v1/…), so 'self'.
 */
export const HUB_CSP = BASE_CSP.map((d) => (d.startsWith('img-src') ? `${d} https:` : d)).join('; ');

/**
 * index.html is checked on every load, so a new build shows at once; the assets (the entry, every
 * chunk, the stylesheet) carry their content hash in their names.
 */
const INDEX_CACHE = 'no-cache';
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/** The site, or a 503 with Retry-After naming the fix when it cannot be read or built (the next request tries again). */
export function siteOr503(load: () => Promise<ConsoleSite> = loadConsoleSite, what = 'The console'): Promise<ConsoleSite> {
  return builtOr503(load, what, 'run npm run build -w @tollgate/console, or install the dev dependencies (esbuild)');
}

/** One single-page app of @tollgate/console as served. */
interface SpaSite {
  base: string;
  csp: string;
  what: string;
  load: () => Promise<ConsoleSite>;
}

const CONSOLE_SITE: SpaSite = { base: CONSOLE_BASE, csp: CONSOLE_CSP, what: 'The console', load: () => loadConsoleSite() };
const HUB_SITE: SpaSite = { base: HUB_BASE, csp: HUB_CSP, what: 'The developer hub', load: () => loadHubSite() };

function send(req: FastifyRequest, reply: FastifyReply, f: ConsoleFile, cacheControl: string, csp: string) {
  reply.headers({
    'content-type': f.contentType,
    'cache-control': cacheControl,
    vary: 'Accept-Encoding',
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  if (/\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) return reply.header('content-encoding', 'gzip').send(f.gzip);
  return reply.send(f.body);
}

/** A path's last segment has a file extension: a file was asked for, not a screen. */
const looksLikeFile = (rest: string) => /\.[A-Za-z0-9]+$/.test(rest.split('/').pop() ?? '');

/**
 * A single-page app: its hashed assets under <base>/assets/ (the entry script, the chunks it
 * imports by relative name, statically or on a screen's first visit, and the stylesheet: one flat
 * directory, so ./chunk.<hash>.js resolves here), and index.html for every other
 * <base> path without a file extension (the app's router decides the screen). Pages, not API:
 * hidden from the OpenAPI document.
 */
function spaRoutes(app: App, site: SpaSite): void {
  const config = { auth: { kind: 'none' } } as const;
  const schema = { hide: true };
  const name = site.what.replace(/^The /, '');

  const page = async (req: FastifyRequest, reply: FastifyReply, rest: string) => {
    if (rest.startsWith('assets/')) {
      const built = await siteOr503(site.load, site.what);
      const file = rest.slice('assets/'.length);
      const asset = built.assets.get(file);
      if (!asset) throw new AppError('NOT_FOUND', `No ${name} asset ${file}: this server serves ${[...built.assets.keys()].join(', ')}. Reload the page.`);
      return send(req, reply, asset, ASSET_CACHE, site.csp);
    }
    if (looksLikeFile(rest)) throw new AppError('NOT_FOUND', `No file ${site.base}/${rest}: the ${name}'s files are under ${site.base}/assets/.`);
    return send(req, reply, (await siteOr503(site.load, site.what)).index, INDEX_CACHE, site.csp);
  };

  app.get(site.base, { config, schema }, (req, reply) => page(req, reply, ''));
  app.get(`${site.base}/*`, { config, schema }, (req, reply) => page(req, reply, (req.params as { '*'?: string })['*'] ?? ''));
}

/** The operator console (packages/console) at /console. */
export async function consoleRoutes(app: App, _deps: Deps): Promise<void> {
  spaRoutes(app, CONSOLE_SITE);
}

/**
 * The developer hub (packages/console's second entry, src/hub/) at /hub: the page a hub link
 * (`/hub#hbl_…`) opens. It takes no credential: the API calls it makes carry the hub cookie.
 */
export async function hubPageRoutes(app: App, _deps: Deps): Promise<void> {
  spaRoutes(app, HUB_SITE);
}
