import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { errors, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import {
  ApiKeySchema,
  CreateApiKeyBody,
  CreatedApiKeySchema,
  presentApiKey,
  presentRotatedKey,
  replaceSummaries,
  RotatedKeySchema,
} from '../api-keys/api-key.js';
import { listApiKeys } from '../api-keys/api-key.repository.js';
import { replaceApiKey } from '../api-keys/replace-api-key.js';
import { revokeApiKey } from '../api-keys/revoke-api-key.js';
import { createApiKey } from '../api-keys/create-api-key.js';
import { findSubscription } from '../subscriptions/subscription.repository.js';
import { AppError } from '../../lib/errors.js';
import { hubSecurity } from '../hub-sessions/hub-session.routes.js';
import { hubSessionOf } from '../hub-sessions/hub-session-of.js';

const hub = { auth: { kind: 'hub_session' } } as const;
const tags = ['Developer hub'];
const HubCreateKeyBody = Type.Object(
  {
    name: CreateApiKeyBody.properties.name,
    subscriptionId: Type.String({ minLength: 1, maxLength: 100, description: 'One of your active subscriptions: the key is bound to it.' }),
  },
  { additionalProperties: false },
);
const own = "The hub session's customer's product keys only: another key reads as absent (404).";

/** The customer's own product keys, as the API keys module keeps them (the hub session is the caller). */
export async function hubKeyRoutes(app: App, deps: Deps): Promise<void> {
  app.get('/api/v1/hub/keys', {
    config: hub,
    schema: {
      operationId: 'listHubKeys',
      summary: "The customer's product keys, newest first",
      description: `${own} Never a secret: hints, status and binding.`,
      tags,
      security: hubSecurity,
      querystring: Type.Object(
        { ...ListQuery, status: Type.Optional(Type.Union([Type.Literal('ACTIVE'), Type.Literal('ROTATED'), Type.Literal('REVOKED')])) },
        { additionalProperties: false },
      ),
      response: { 200: ListOf(ApiKeySchema), ...errors() },
    },
    handler: async (req) => {
      const page = await listApiKeys(deps.db, req.ctx, { ...req.query, kind: 'PRODUCT', customerId: hubSessionOf(req).customerId });
      const now = deps.clock.now();
      return { object: 'list' as const, data: page.items.map((k) => presentApiKey(k, now)), hasMore: page.hasMore };
    },
  });

  app.post('/api/v1/hub/keys', {
    config: hub,
    schema: {
      operationId: 'createHubKey',
      summary: 'Create a product key for one of the customer’s subscriptions',
      description:
        "The customer creates a key for one of their own active subscriptions (POST /api/v1/api_keys with kind PRODUCT). The key is returned once, in fullToken. Another customer's subscription reads as absent (404); a cancelled one gets 409 SUBSCRIPTION_NOT_ACTIVE. Needs X-CSRF-Token.",
      tags,
      security: hubSecurity,
      body: HubCreateKeyBody,
      response: { 200: CreatedApiKeySchema, ...errors(403, 404, 409, 422) },
    },
    handler: async (req) => {
      const subscription = await findSubscription(deps.db, req.ctx, req.body.subscriptionId);
      // Another customer's subscription is as absent as one that never existed.
      if (!subscription || subscription.customerId !== hubSessionOf(req).customerId) {
        throw new AppError('NOT_FOUND', `You have no subscription with id '${req.body.subscriptionId}'.`, { field: 'body.subscriptionId' });
      }
      const { key, fullToken } = await createApiKey(deps, req.ctx, { kind: 'PRODUCT', ...req.body }, req.credential);
      return { ...presentApiKey(key, deps.clock.now()), fullToken };
    },
  });

  for (const mode of ['rotate', 'roll'] as const) {
    app.post(`/api/v1/hub/keys/:id/${mode}`, {
      config: hub,
      schema: {
        operationId: mode === 'rotate' ? 'rotateHubKey' : 'rollHubKey',
        summary: replaceSummaries[mode],
        description: `No body. Returns the new key once. ${
          mode === 'rotate' ? 'The old key stays valid for exactly 300 seconds, then stops.' : 'The Roll button, for a key that leaked: no grace period.'
        } ${own} Needs X-CSRF-Token.`,
        tags,
        security: hubSecurity,
        params: IdParams,
        response: { 200: RotatedKeySchema, ...errors(403, 404, 409) },
      },
      handler: async (req) => presentRotatedKey(await replaceApiKey(deps, req.ctx, req.params.id, req.credential, mode)),
    });
  }

  app.post('/api/v1/hub/keys/:id/revoke', {
    config: hub,
    schema: {
      operationId: 'revokeHubKey',
      summary: 'Revoke a key at once',
      description: `No body, no grace period; every node stops accepting it immediately. Revoking a revoked key returns it unchanged. ${own} Needs X-CSRF-Token.`,
      tags,
      security: hubSecurity,
      params: IdParams,
      response: { 200: ApiKeySchema, ...errors(403, 404) },
    },
    handler: async (req) => presentApiKey(await revokeApiKey(deps, req.ctx, req.params.id, req.credential), deps.clock.now()),
  });
}
