import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { errors } from '../../http/schemas.js';
import { corsHeaders, preflight, type CorsPolicy } from '../../http/cors.js';
import { etagMatches, HeadlessConfigSchema, toHeadlessConfig } from './headless-config.js';
import { readStorefrontView } from './read-storefront-view.js';
import { findStorefront } from './storefront.repository.js';

const CACHE_CONTROL = 'private, max-age=60';

const cors: CorsPolicy = {
  allowOrigin: '*',
  methods: 'GET, OPTIONS',
  headers: 'X-Storefront-Key, If-None-Match, Authorization, Accept',
  expose: 'ETag, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, Retry-After',
  maxAgeSeconds: 600,
};

/**
 * preview=true's second credential check, given by the app (modules/authentication): it looks up
 * workspace keys, a module above this one.
 */
export type RequireOperatorAccess = (deps: Deps, request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * GET /api/v1/portal/headless/config, exactly per the spec. Browsers on the seller's site call
 * it with the storefront key, so it answers CORS: any origin, the key and If-None-Match allowed
 * in, ETag and the rate-limit headers readable.
 */
export async function headlessConfigRoutes(app: App, deps: Deps, requireOperatorAccess: RequireOperatorAccess): Promise<void> {
  app.options('/api/v1/portal/headless/config', { schema: { hide: true }, handler: preflight(cors) });

  app.get('/api/v1/portal/headless/config', {
    config: { auth: { kind: 'storefront' } },
    schema: {
      operationId: 'retrieveHeadlessConfig',
      summary: 'Read the headless pricing configuration',
      description:
        'Offerings and rate plans of the storefront the key belongs to, as published, to render a pricing table. No customer session. Cached privately for 60 s; send the etag back in If-None-Match for a 304. The etag changes when the storefront is published or when an offering or rate plan in it changes, and only then. preview=true returns the unpublished draft and also needs `Authorization: Bearer` with a workspace key holding the admin scope. Rate-limited per storefront key.',
      tags: ['Headless pricing'],
      security: [{ storefrontKey: [] }],
      querystring: Type.Object(
        { preview: Type.Optional(Type.Boolean({ description: 'true: the draft (operator access needed).' })) },
        { additionalProperties: false },
      ),
      headers: Type.Object({
        'x-storefront-key': Type.Optional(Type.String({ maxLength: 100, description: 'pk_test_… or pk_live_…' })),
        'if-none-match': Type.Optional(Type.String({ maxLength: 1000, description: 'The etag of a configuration you hold.' })),
      }),
      response: {
        200: HeadlessConfigSchema,
        304: Type.Null({ description: 'Not modified: the etag still matches.' }),
        ...errors(403, 404),
      },
    },
    handler: async (req, reply) => {
      reply.headers(corsHeaders(cors, req));
      const credential = req.credential;
      const storefrontId = credential?.type === 'storefront_key' ? credential.storefrontId : null;
      if (!storefrontId)
        throw new AppError('NOT_FOUND', 'This storefront key belongs to no storefront; create a key for a storefront with POST /api/v1/storefront-keys.');
      const preview = req.query.preview === true;
      if (preview) await requireOperatorAccess(deps, req, reply);
      const storefront = await findStorefront(deps.db, req.ctx, storefrontId);
      if (!storefront) throw new AppError('NOT_FOUND', `Storefront ${storefrontId} no longer exists.`);
      if (!preview && storefront.publishedOfferingIds === null) {
        throw new AppError(
          'NOT_FOUND',
          `Storefront ${storefrontId} has not been published yet: publish it with POST /api/v1/storefronts/${storefrontId}/publish, or read the draft with preview=true.`,
        );
      }
      const { view, revision, display } = await readStorefrontView(deps, req.ctx, storefront, preview ? 'draft' : 'published');
      const config = toHeadlessConfig(storefront.id, revision, view, display);
      // Shared caches must key on the storefront key (spec); private keeps them out altogether.
      reply.headers({ etag: config.etag, 'cache-control': CACHE_CONTROL, vary: 'X-Storefront-Key' });
      // No payload at all (the schema's null would be serialized as the text 'null').
      if (etagMatches(req.headers['if-none-match'], config.etag)) return reply.code(304).send(undefined as unknown as null);
      return config;
    },
  });
}
