import { Type, type Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import { notFound } from '../../lib/errors.js';
import { idempotent } from '../idempotency/idempotent.js';
import type { HostResolver } from './resolve-destination.js';
import { rotateEndpointSecret } from './rotate-endpoint-secret.js';
import { checkNewEndpoint, createWebhookEndpoint, deleteWebhookEndpoint, updateWebhookEndpoint } from './save-webhook-endpoint.js';
import {
  CreatedWebhookEndpointSchema,
  CreateWebhookEndpointBody,
  EndpointSecretSchema,
  presentWebhookEndpoint,
  previousSecretExpiresAt,
  RotateSecretBody,
  UpdateWebhookEndpointBody,
  WebhookEndpointSchema,
} from './webhook-endpoint.js';
import { findWebhookEndpoint, listWebhookEndpoints } from './webhook-endpoint.repository.js';
import { toIsoOrNull } from '../../lib/clock.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = { tags: ['Outbound webhooks'], security: bearerSecurity };

/** Operator API: outbound webhook endpoints. Admin scope. The resolver is the SSRF guard's DNS (tests inject one). */
export async function webhookEndpointRoutes(app: App, deps: Deps, resolver: HostResolver): Promise<void> {
  app.post('/api/v1/webhook-endpoints', {
    config: admin,
    schema: {
      ...tags,
      operationId: 'createWebhookEndpoint',
      summary: 'Create a webhook endpoint',
      description:
        'Subscribes a URL to event types. Every delivery is signed as Standard Webhooks says (webhook-id, webhook-timestamp, webhook-signature) with the signing secret returned here, once: store it. Outside the development profile the URL must be https and must not reach loopback, private, link-local or metadata addresses (422 URL_NOT_ALLOWED).',
      headers: IdempotencyHeaders,
      body: CreateWebhookEndpointBody,
      response: { 200: CreatedWebhookEndpointSchema, ...errors(403, 422) },
    },
    handler: async (req, reply) => {
      // DNS before the transaction: no write waits for a resolver.
      const checked = await checkNewEndpoint(deps, req.body, resolver);
      return idempotent<Static<typeof CreatedWebhookEndpointSchema>>(
        deps,
        req,
        reply,
        async (tx) => {
          const { endpoint, secret } = await createWebhookEndpoint(tx, req.ctx, checked);
          return { ...presentWebhookEndpoint(endpoint, deps.clock.now()), secret };
        },
        // The secret is shown once: a replay of the key answers without it.
        (body) => ({ ...body, secret: null }),
      );
    },
  });
  app.get('/api/v1/webhook-endpoints', {
    config: admin,
    schema: {
      ...tags,
      operationId: 'listWebhookEndpoints',
      summary: 'List webhook endpoints, newest first',
      description: '`status=disabled` lists the endpoints that receive nothing, with disabledReason (manual, failing, gone): the notice of a failing endpoint.',
      querystring: Type.Object(
        { ...ListQuery, status: Type.Optional(Type.Union([Type.Literal('enabled'), Type.Literal('disabled')])) },
        { additionalProperties: false },
      ),
      response: { 200: ListOf(WebhookEndpointSchema), ...errors(403) },
    },
    handler: async (req) => {
      const { status, ...page } = req.query;
      const result = await listWebhookEndpoints(deps.db, req.ctx, { status }, page);
      const now = deps.clock.now();
      return { object: 'list' as const, data: result.items.map((e) => presentWebhookEndpoint(e, now)), hasMore: result.hasMore };
    },
  });
  app.get('/api/v1/webhook-endpoints/:id', {
    config: admin,
    schema: {
      ...tags,
      operationId: 'retrieveWebhookEndpoint',
      summary: 'Retrieve a webhook endpoint',
      description: 'One webhook endpoint by its id with its URL, event types and state; never its signing secret.',
      params: IdParams,
      response: { 200: WebhookEndpointSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const e = await findWebhookEndpoint(deps.db, req.ctx, req.params.id);
      if (!e) throw notFound('webhook endpoint', req.params.id);
      return presentWebhookEndpoint(e, deps.clock.now());
    },
  });
  app.patch('/api/v1/webhook-endpoints/:id', {
    config: admin,
    schema: {
      ...tags,
      operationId: 'updateWebhookEndpoint',
      summary: 'Update a webhook endpoint',
      description:
        'Any field but the secret (rotate it with rotate-secret). enabled: false stops deliveries and fails the pending ones; enabled: true clears failingSince and disabledReason (replay what failed meanwhile).',
      params: IdParams,
      body: UpdateWebhookEndpointBody,
      response: { 200: WebhookEndpointSchema, ...errors(403, 404, 422) },
    },
    handler: async (req) => presentWebhookEndpoint(await updateWebhookEndpoint(deps, req.ctx, req.params.id, req.body, resolver), deps.clock.now()),
  });
  app.delete('/api/v1/webhook-endpoints/:id', {
    config: admin,
    schema: {
      ...tags,
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint',
      description: 'Nothing more is sent to it; its pending deliveries fail. Its messages and attempts stay in the log until retention removes them.',
      params: IdParams,
      response: { 200: Type.Object({ id: Type.String(), object: Type.Literal('webhook_endpoint'), deleted: Type.Literal(true) }), ...errors(403, 404) },
    },
    handler: async (req) => {
      await deleteWebhookEndpoint(deps, req.ctx, req.params.id);
      return { id: req.params.id, object: 'webhook_endpoint' as const, deleted: true as const };
    },
  });
  app.post('/api/v1/webhook-endpoints/:id/rotate-secret', {
    config: admin,
    schema: {
      ...tags,
      operationId: 'rotateWebhookEndpointSecret',
      summary: "Rotate a webhook endpoint's signing secret",
      description:
        'Returns the new secret, once. Until previousSecretExpiresAt every delivery carries two signatures in webhook-signature (the new one first), so receivers verifying with either secret accept it; after it, only the new one. An older previous secret is dropped.',
      params: IdParams,
      body: RotateSecretBody,
      response: { 200: EndpointSecretSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const { endpoint, secret } = await rotateEndpointSecret(deps, req.ctx, req.params.id, req.body);
      return {
        object: 'webhook_endpoint_secret' as const,
        endpointId: endpoint.id,
        secret,
        previousSecretExpiresAt: toIsoOrNull(previousSecretExpiresAt(endpoint, deps.clock.now())),
      };
    },
  });
}
