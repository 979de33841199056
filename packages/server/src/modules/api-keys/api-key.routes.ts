import { Type, type Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import { idempotent } from '../idempotency/idempotent.js';
import { ApiKeySchema, CreateApiKeyBody, CreatedApiKeySchema, presentApiKey, presentRotatedKey, replaceSummaries, RotatedKeySchema } from './api-key.js';
import { listApiKeys } from './api-key.repository.js';
import { createApiKey } from './create-api-key.js';
import { findKeyForCaller, replaceApiKey } from './replace-api-key.js';
import { revokeApiKey } from './revoke-api-key.js';
import { customerIdFilter } from '../customers/customer-refs.js';

const keysWrite = { auth: { kind: 'workspace', scope: 'keys:write' } } as const;
const selfOrKeysWrite = { auth: { kind: 'workspace_or_product', scope: 'keys:write' } } as const;
const tags = ['API keys'];
const selfNote = 'Authorized by a workspace key with the keys:write scope, or by the product key itself.';

export async function apiKeyRoutes(app: App, deps: Deps): Promise<void> {
  app.post('/api/v1/api-keys', {
    config: keysWrite,
    schema: {
      operationId: 'createApiKey',
      summary: 'Create a workspace key or a product key',
      description:
        'The key is returned once, in fullToken, and only its SHA-256 hash is stored. The environment is that of the calling key. A PRODUCT key needs an active subscription to a STANDARD_API or AGENTIC_API product.',
      tags,
      security: bearerSecurity,
      headers: IdempotencyHeaders,
      body: CreateApiKeyBody,
      response: { 200: CreatedApiKeySchema, ...errors(403, 404, 409, 422) },
    },
    handler: (req, reply) =>
      idempotent<Static<typeof CreatedApiKeySchema>>(
        deps,
        req,
        reply,
        async (tx) => {
          const { key, fullToken } = await createApiKey(tx, req.ctx, req.body, req.credential);
          return { ...presentApiKey(key, deps.clock.now()), fullToken };
        },
        (body) => ({ ...body, fullToken: null }),
      ),
  });

  app.get('/api/v1/api-keys', {
    config: keysWrite,
    schema: {
      operationId: 'listApiKeys',
      summary: 'List API keys (never their secrets), newest first',
      description:
        "Keys of the key's environment, newest first, with cursor pagination: prefixes, scopes and status, never a secret. Filter by kind, status, subscription or customer (its cus_ id or your externalId).",
      tags,
      security: bearerSecurity,
      querystring: Type.Object(
        {
          ...ListQuery,
          kind: Type.Optional(Type.Union([Type.Literal('WORKSPACE'), Type.Literal('PRODUCT')])),
          status: Type.Optional(Type.Union([Type.Literal('ACTIVE'), Type.Literal('ROTATED'), Type.Literal('REVOKED')])),
          subscriptionId: Type.Optional(Type.String({ maxLength: 100 })),
          customerId: Type.Optional(
            Type.String({
              maxLength: 255,
              description: "One customer's product keys (the console's customer page): its cus_ id or the externalId you gave it (an id match wins).",
            }),
          ),
        },
        { additionalProperties: false },
      ),
      response: { 200: ListOf(ApiKeySchema), ...errors(403) },
    },
    handler: async (req) => {
      const page = await listApiKeys(deps.db, req.ctx, { ...req.query, customerId: await customerIdFilter(deps.db, req.ctx, req.query.customerId) });
      const now = deps.clock.now();
      return { object: 'list' as const, data: page.items.map((k) => presentApiKey(k, now)), hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/api-keys/:id', {
    config: selfOrKeysWrite,
    schema: {
      operationId: 'retrieveApiKey',
      summary: 'Retrieve an API key (never its secret)',
      description: selfNote,
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: ApiKeySchema, ...errors(403, 404) },
    },
    handler: async (req) => presentApiKey(await findKeyForCaller(deps, req.ctx, req.params.id, req.credential), deps.clock.now()),
  });

  for (const mode of ['rotate', 'roll'] as const) {
    app.post(`/api/v1/api-keys/:id/${mode}`, {
      config: selfOrKeysWrite,
      schema: {
        operationId: mode === 'rotate' ? 'rotateApiKey' : 'rollApiKey',
        summary: replaceSummaries[mode],
        description: `No body. Returns the new key once. ${
          mode === 'rotate' ? 'The old key stays valid for exactly 300 seconds, then stops.' : 'The developer hub’s Roll button: for a key that leaked.'
        } ${selfNote}`,
        tags,
        security: bearerSecurity,
        params: IdParams,
        headers: IdempotencyHeaders,
        response: { 200: RotatedKeySchema, ...errors(403, 404, 409, 422) },
      },
      handler: (req, reply) =>
        idempotent<Static<typeof RotatedKeySchema>>(
          deps,
          req,
          reply,
          async (tx) => presentRotatedKey(await replaceApiKey(tx, req.ctx, req.params.id, req.credential, mode)),
          (body) => ({ ...body, fullToken: null }),
        ),
    });
  }

  app.delete('/api/v1/api-keys/:id', {
    config: selfOrKeysWrite,
    schema: {
      operationId: 'revokeApiKey',
      summary: 'Revoke a key at once',
      description: `No grace period; every node stops accepting it immediately. Revoking a revoked key returns it unchanged. A workspace key may revoke only keys whose scopes it holds (403 INSUFFICIENT_SCOPE otherwise). ${selfNote}`,
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: ApiKeySchema, ...errors(403, 404) },
    },
    handler: async (req) => presentApiKey(await revokeApiKey(deps, req.ctx, req.params.id, req.credential), deps.clock.now()),
  });
}
