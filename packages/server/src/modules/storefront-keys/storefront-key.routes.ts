import { Type, type Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import { idempotent } from '../idempotency/idempotent.js';
import { CreatedStorefrontKeySchema, CreateStorefrontKeyBody, presentStorefrontKey, StorefrontKeySchema } from './storefront-key.js';
import { listStorefrontKeys } from './storefront-key.repository.js';
import { createStorefrontKey } from './create-storefront-key.js';
import { revokeStorefrontKey } from './revoke-storefront-key.js';

const keysWrite = { auth: { kind: 'workspace', scope: 'keys:write' } } as const;
const tags = ['Storefront keys'];

export async function storefrontKeyRoutes(app: App, deps: Deps): Promise<void> {
  app.post('/api/v1/storefront-keys', {
    config: keysWrite,
    schema: {
      operationId: 'createStorefrontKey',
      summary: 'Create a storefront key for X-Storefront-Key',
      description: 'Shown once; only its SHA-256 hash is stored. It reads the published pricing configuration and nothing else.',
      tags,
      security: bearerSecurity,
      headers: IdempotencyHeaders,
      body: CreateStorefrontKeyBody,
      response: { 200: CreatedStorefrontKeySchema, ...errors(403, 422) },
    },
    handler: (req, reply) =>
      idempotent<Static<typeof CreatedStorefrontKeySchema>>(
        deps,
        req,
        reply,
        async (tx) => {
          const { key, fullToken } = await createStorefrontKey(tx, req.ctx, req.body);
          return { ...presentStorefrontKey(key), fullToken };
        },
        (body) => ({ ...body, fullToken: null }),
      ),
  });

  app.get('/api/v1/storefront-keys', {
    config: keysWrite,
    schema: {
      operationId: 'listStorefrontKeys',
      summary: 'List storefront keys (never their secrets), newest first',
      description: "Storefront keys of the key's environment, newest first, with cursor pagination: prefixes and status, never a secret.",
      tags,
      security: bearerSecurity,
      querystring: Type.Object(ListQuery, { additionalProperties: false }),
      response: { 200: ListOf(StorefrontKeySchema), ...errors(403) },
    },
    handler: async (req) => {
      const page = await listStorefrontKeys(deps.db, req.ctx, req.query);
      return { object: 'list' as const, data: page.items.map(presentStorefrontKey), hasMore: page.hasMore };
    },
  });

  app.delete('/api/v1/storefront-keys/:id', {
    config: keysWrite,
    schema: {
      operationId: 'revokeStorefrontKey',
      summary: 'Revoke a storefront key at once',
      description: 'No grace period: the headless pricing configuration stops answering to this key immediately.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: StorefrontKeySchema, ...errors(403, 404) },
    },
    handler: async (req) => presentStorefrontKey(await revokeStorefrontKey(deps, req.ctx, req.params.id)),
  });
}
