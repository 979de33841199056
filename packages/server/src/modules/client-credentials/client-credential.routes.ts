import { Type, type Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import { idempotent } from '../idempotency/idempotent.js';
import { ClientCredentialSchema, CreateClientCredentialBody, CreatedClientCredentialSchema, presentClientCredential } from './client-credential.js';
import { findClientCredential, listClientCredentials } from './client-credential.repository.js';
import { createClientCredential } from './create-client-credential.js';
import { revokeClientCredential } from './revoke-client-credential.js';

const keysWrite = { auth: { kind: 'workspace', scope: 'keys:write' } } as const;
const tags = ['Client credentials'];

export async function clientCredentialRoutes(app: App, deps: Deps): Promise<void> {
  app.post('/api/v1/client-credentials', {
    config: keysWrite,
    schema: {
      operationId: 'createClientCredential',
      summary: 'Issue client credentials to a customer of an AI agent or MCP server',
      description:
        'Returns the client ID and, once, the secret (only its SHA-256 hash is stored). The customer exchanges them at POST /oauth/token for short-lived access tokens.',
      tags,
      security: bearerSecurity,
      headers: IdempotencyHeaders,
      body: CreateClientCredentialBody,
      response: { 200: CreatedClientCredentialSchema, ...errors(403, 404, 409, 422) },
    },
    handler: (req, reply) =>
      idempotent<Static<typeof CreatedClientCredentialSchema>>(
        deps,
        req,
        reply,
        async (tx) => {
          const { credential, clientSecret } = await createClientCredential(tx, req.ctx, req.body);
          return { ...presentClientCredential(credential), clientSecret };
        },
        (body) => ({ ...body, clientSecret: null }),
      ),
  });

  app.get('/api/v1/client-credentials', {
    config: keysWrite,
    schema: {
      operationId: 'listClientCredentials',
      summary: 'List client credentials (never their secrets), newest first',
      description: "Client credentials of the key's environment, newest first, with cursor pagination: client ids and status, never a secret.",
      tags,
      security: bearerSecurity,
      querystring: Type.Object({ ...ListQuery, subscriptionId: Type.Optional(Type.String({ maxLength: 100 })) }, { additionalProperties: false }),
      response: { 200: ListOf(ClientCredentialSchema), ...errors(403) },
    },
    handler: async (req) => {
      const page = await listClientCredentials(deps.db, req.ctx, req.query);
      return { object: 'list' as const, data: page.items.map(presentClientCredential), hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/client-credentials/:id', {
    config: keysWrite,
    schema: {
      operationId: 'retrieveClientCredential',
      summary: 'Retrieve client credentials',
      description: 'One client credential by its id, never its secret.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: ClientCredentialSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const c = await findClientCredential(deps.db, req.ctx, req.params.id);
      if (!c) throw notFound('client credential', req.params.id);
      return presentClientCredential(c);
    },
  });

  app.delete('/api/v1/client-credentials/:id', {
    config: keysWrite,
    schema: {
      operationId: 'revokeClientCredential',
      summary: 'Revoke client credentials and every access token issued to them',
      description: 'The client can no longer get access tokens, and every token already issued to it stops working at once.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: ClientCredentialSchema, ...errors(403, 404) },
    },
    handler: async (req) => presentClientCredential(await revokeClientCredential(deps, req.ctx, req.params.id)),
  });
}
