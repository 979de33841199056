import { Type, type Static } from '@sinclair/typebox';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import type { Environment as Env } from '../../lib/crypto.js';
import { Environment, Metadata, NullableTimestamp, Timestamp } from '../../http/schemas.js';
import type { DisabledReason } from './endpoint-health.js';
import { MAX_URL_LENGTH } from './endpoint-url.js';

/** An outbound webhook endpoint (`we_`): where a tenant's subscribed events are delivered. */
export interface WebhookEndpoint {
  id: string;
  workspaceId: string;
  environment: Env;
  url: string;
  description: string;
  metadata: Record<string, string>;
  eventTypes: string[];
  status: 'enabled' | 'disabled';
  disabledReason: DisabledReason | null;
  disabledAt: number | null;
  failingSince: number | null;
  maxConcurrency: number;
  /** The signing secret sealed with AES-256-GCM (lib/secret-box.ts), bound to secretAssociatedData(id). */
  secret: SealedSecret & { hint: string };
  /** The secret before the last rotation, signed with until its grace ends. */
  previousSecret: (SealedSecret & { expiresAt: number }) | null;
  createdAt: number;
  updatedAt: number;
}

export interface SealedSecret {
  ciphertext: string;
  keyId: string;
}

/** What a sealed secret is bound to: a ciphertext moved to another endpoint fails to open. */
export const secretAssociatedData = (endpointId: string) => `webhook_endpoint:${endpointId}`;

export const MAX_EVENT_TYPES = 50;
export const MAX_CONCURRENCY = 256;
export const MAX_GRACE_SECONDS = 604_800;
export const DEFAULT_GRACE_SECONDS = 86_400;

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description:
    'Where deliveries are POSTed: https (http only where OUTBOUND_WEBHOOK_ALLOW_HTTP allows it), no user name, password or fragment. Outside the development profile it may not reach loopback, private, link-local or metadata addresses, now or after a DNS change.',
});
const EventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: MAX_EVENT_TYPES,
  description:
    'Event types delivered: exact names (GET /api/v1/webhook-event-types), a category followed by .* (subscription.*, invoice.*, credit_note.*, usage.*, api_key.*), or ["*"] for every type.',
});
const Description = Type.String({ maxLength: 500, description: 'Your label for the endpoint.' });
const MaxConcurrency = Type.Integer({
  minimum: 1,
  maximum: MAX_CONCURRENCY,
  description: 'Requests in flight to this endpoint at once (default OUTBOUND_WEBHOOK_ENDPOINT_CONCURRENCY, 16).',
});
const SecretInput = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'Bring your own signing secret: whsec_ and the base64 of 24 to 64 bytes. Omit it to have one generated (32 bytes).',
});

export const CreateWebhookEndpointBody = Type.Object(
  {
    url: Url,
    eventTypes: EventTypes,
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean({ description: 'Default true. A disabled endpoint gets nothing; its deliveries are recorded as failed.' })),
    maxConcurrency: Type.Optional(MaxConcurrency),
    metadata: Type.Optional(Metadata),
    secret: Type.Optional(SecretInput),
  },
  { additionalProperties: false },
);
export type CreateWebhookEndpointInput = Static<typeof CreateWebhookEndpointBody>;

export const UpdateWebhookEndpointBody = Type.Object(
  {
    url: Type.Optional(Url),
    eventTypes: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    enabled: Type.Optional(
      Type.Boolean({
        description: 'false disables the endpoint (reason manual) and fails its pending deliveries; true enables it again and clears failingSince.',
      }),
    ),
    maxConcurrency: Type.Optional(MaxConcurrency),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWebhookEndpointInput = Static<typeof UpdateWebhookEndpointBody>;

export const RotateSecretBody = Type.Object(
  {
    gracePeriodSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_GRACE_SECONDS,
        description: 'How long deliveries carry a signature with the old secret too (default 86400, at most 7 days; 0 ends it at once).',
      }),
    ),
    secret: Type.Optional(SecretInput),
  },
  { additionalProperties: false },
);
export type RotateSecretInput = Static<typeof RotateSecretBody>;

const endpointFields = {
  id: Type.String({ description: 'we_…' }),
  object: Type.Literal('webhook_endpoint'),
  environment: Environment,
  url: Type.String(),
  description: Type.String(),
  eventTypes: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')]),
  disabledReason: Type.Union([Type.Literal('manual'), Type.Literal('failing'), Type.Literal('gone'), Type.Null()], {
    description: 'manual: by an operator; failing: no successful delivery for OUTBOUND_WEBHOOK_DISABLE_AFTER_HOURS; gone: the endpoint answered 410.',
  }),
  disabledAt: NullableTimestamp,
  failingSince: Type.Union([Timestamp, Type.Null()], { description: 'The first failed attempt with no success since; null while healthy.' }),
  maxConcurrency: Type.Integer(),
  secretHint: Type.String({ description: 'whsec_… and the last four characters. The secret itself is shown once, when created or rotated.' }),
  previousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], {
    description: 'While a rotation grace lasts: when deliveries stop carrying the old secret’s signature.',
  }),
  metadata: Metadata,
  createdAt: Timestamp,
  updatedAt: Timestamp,
};
export const WebhookEndpointSchema = Type.Object(endpointFields, { title: 'WebhookEndpoint' });
export type WebhookEndpointView = Static<typeof WebhookEndpointSchema>;

export const CreatedWebhookEndpointSchema = Type.Object(
  {
    ...endpointFields,
    secret: Type.Union([Type.String(), Type.Null()], {
      description: 'The signing secret (whsec_…), shown this once: store it now. null in a replay of an Idempotency-Key.',
    }),
  },
  { title: 'CreatedWebhookEndpoint' },
);

export const EndpointSecretSchema = Type.Object(
  {
    object: Type.Literal('webhook_endpoint_secret'),
    endpointId: Type.String(),
    secret: Type.String({ description: 'The new signing secret (whsec_…), shown this once.' }),
    previousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], { description: 'Until then deliveries carry a signature with the old secret too.' }),
  },
  { title: 'EndpointSecret' },
);

/** The previous secret's end of grace, or null once it is over. */
export function previousSecretExpiresAt(e: WebhookEndpoint, now: number): number | null {
  return e.previousSecret !== null && e.previousSecret.expiresAt > now ? e.previousSecret.expiresAt : null;
}

export function presentWebhookEndpoint(e: WebhookEndpoint, now: number): WebhookEndpointView {
  const graceEnd = previousSecretExpiresAt(e, now);
  return {
    id: e.id,
    object: 'webhook_endpoint',
    environment: e.environment,
    url: e.url,
    description: e.description,
    eventTypes: e.eventTypes,
    status: e.status,
    disabledReason: e.disabledReason,
    disabledAt: toIsoOrNull(e.disabledAt),
    failingSince: toIsoOrNull(e.failingSince),
    maxConcurrency: e.maxConcurrency,
    secretHint: e.secret.hint,
    previousSecretExpiresAt: toIsoOrNull(graceEnd),
    metadata: e.metadata,
    createdAt: toIso(e.createdAt),
    updatedAt: toIso(e.updatedAt),
  };
}
