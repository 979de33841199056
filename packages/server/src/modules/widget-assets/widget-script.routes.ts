import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { errors, publicSecurity } from '../../http/schemas.js';
import { builtOr503 } from '../../http/built-assets.js';
import { etagMatches } from '../catalog/headless-config.js';
import { loadWidgetScript, type WidgetScript } from './widget-script.js';

/** Where the widget's script is served (docs/subscriptions-and-billing.md, "The upgrade/cancel widget"). */
export const WIDGET_SCRIPT_BASE = '/widget/v1';
export const WIDGET_SCRIPT_PATH = `${WIDGET_SCRIPT_BASE}/tollgate-widget.js`;
export const versionedScriptPath = (hash: string) => `${WIDGET_SCRIPT_BASE}/tollgate-widget.${hash}.js`;

/** The unversioned name follows releases within minutes; the versioned one never changes. */
const LATEST_CACHE = 'public, max-age=300';
const VERSIONED_CACHE = 'public, max-age=31536000, immutable';

const Script = (description: string) => ({
  description,
  content: { 'text/javascript': { schema: Type.String({ description: 'The script.' }) } },
});

/** The script, or a 503 with Retry-After naming the fix when it cannot be read or built (the next request tries again). */
export function scriptOr503(load: () => Promise<WidgetScript> = loadWidgetScript): Promise<WidgetScript> {
  return builtOr503(load, 'The widget script', 'run npm run build -w @tollgate/widget, or install the dev dependencies (esbuild)');
}

/** The bytes, gzipped when the client takes gzip, with the caching headers and an ETag (304 when it matches). */
function send(req: FastifyRequest, reply: FastifyReply, s: WidgetScript, cacheControl: string) {
  const etag = `"${s.hash}"`;
  reply.headers({
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': cacheControl,
    etag,
    vary: 'Accept-Encoding',
    // Any page may load it, with Subresource Integrity (crossorigin="anonymous") too.
    'access-control-allow-origin': '*',
    'cross-origin-resource-policy': 'cross-origin',
    'x-content-type-options': 'nosniff',
  });
  if (etagMatches(req.headers['if-none-match'], etag)) return reply.code(304).send();
  if (/\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) return reply.header('content-encoding', 'gzip').send(s.gzip);
  return reply.send(s.code);
}

/**
 * The embeddable widget's script (@tollgate/widget's self-contained build), public: the versioned
 * name with its content hash, cached for a year, and the latest under a fixed name, cached for
 * five minutes; the manifest names the versioned one and its Subresource Integrity.
 */
export async function widgetScriptRoutes(app: App, _deps: Deps): Promise<void> {
  const tags = ['Widget'];
  const config = { auth: { kind: 'none' } } as const;
  const headers = Type.Object({
    'if-none-match': Type.Optional(Type.String({ maxLength: 1000, description: 'The ETag of the script you hold.' })),
    'accept-encoding': Type.Optional(Type.String({ maxLength: 1000 })),
  });

  app.get(WIDGET_SCRIPT_PATH, {
    config,
    schema: {
      operationId: 'retrieveWidgetScript',
      summary: 'The widget script (latest)',
      description:
        'Defines <tollgate-upgrade-cancel>. Cached publicly for 5 minutes; pin a version with the name from /widget/v1/manifest.json instead, which is cached for a year. Gzipped for clients that take it.',
      tags,
      security: publicSecurity,
      headers,
      response: { 200: Script('The script.'), 304: Type.Null({ description: 'Not modified.' }), ...errors(503) },
    },
    handler: async (req, reply) => send(req, reply, await scriptOr503(), LATEST_CACHE),
  });

  app.get(`${WIDGET_SCRIPT_BASE}/tollgate-widget.:hash.js`, {
    config,
    schema: {
      operationId: 'retrieveWidgetScriptVersion',
      summary: 'The widget script (one version, by its content hash)',
      description: 'Immutable: cached publicly for a year. A hash other than the current one is a 404 (this server serves one version).',
      tags,
      security: publicSecurity,
      headers,
      params: Type.Object({ hash: Type.String({ pattern: '^[0-9a-f]{16}$', maxLength: 16, description: '16 hex digits of the SHA-256.' }) }),
      response: { 200: Script('The script.'), 304: Type.Null({ description: 'Not modified.' }), ...errors(404, 503) },
    },
    handler: async (req, reply) => {
      const s = await scriptOr503();
      if (req.params.hash !== s.hash)
        throw new AppError('NOT_FOUND', `No widget script ${req.params.hash} here: the current one is ${versionedScriptPath(s.hash)}.`);
      return send(req, reply, s, VERSIONED_CACHE);
    },
  });

  app.get(`${WIDGET_SCRIPT_BASE}/manifest.json`, {
    config,
    schema: {
      operationId: 'retrieveWidgetManifest',
      summary: 'The current widget script: its versioned path and integrity',
      description: "The path of this build's script, with its content hash in the name, its Subresource Integrity hash and its size: pin both in your page.",
      tags,
      security: publicSecurity,
      response: {
        200: Type.Object({
          object: Type.Literal('widget_script'),
          path: Type.String({ description: '/widget/v1/tollgate-widget.<hash>.js' }),
          integrity: Type.String({ description: 'For the script tag’s integrity attribute (with crossorigin="anonymous").' }),
          bytes: Type.Integer(),
          gzipBytes: Type.Integer(),
        }),
        ...errors(503),
      },
    },
    handler: async (_req, reply) => {
      const s = await scriptOr503();
      reply.headers({ 'cache-control': LATEST_CACHE, 'access-control-allow-origin': '*' });
      return { object: 'widget_script' as const, path: versionedScriptPath(s.hash), integrity: s.integrity, bytes: s.code.length, gzipBytes: s.gzip.length };
    },
  });
}
