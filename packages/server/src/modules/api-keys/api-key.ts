import { Type, type Static } from '@sinclair/typebox';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import { Environment, NullableTimestamp, Timestamp } from '../../http/schemas.js';
import type { Environment as Env } from '../../lib/crypto.js';
import { scopes, type Scope } from '../../lib/principal.js';

export type ApiKeyKind = 'WORKSPACE' | 'PRODUCT';
/** Stored statuses. EXPIRED is only shown: a ROTATED key past its grace period. */
export type ApiKeyStatus = 'ACTIVE' | 'ROTATED' | 'REVOKED';

export interface ApiKey {
  id: string;
  environment: Env;
  kind: ApiKeyKind;
  name: string;
  hint: string;
  scopes: Scope[];
  subscriptionId: string | null;
  customerId: string | null;
  productId: string | null;
  status: ApiKeyStatus;
  expiresAt: number | null;
  replacedById: string | null;
  createdAt: number;
  updatedAt: number;
  revokedAt: number | null;
}

const ScopeSchema = Type.Union(scopes.map((s) => Type.Literal(s)));

export const ApiKeySchema = Type.Object(
  {
    id: Type.String({ description: 'key_…' }),
    object: Type.Literal('api_key'),
    environment: Environment,
    kind: Type.Union([Type.Literal('WORKSPACE'), Type.Literal('PRODUCT')], {
      description: 'WORKSPACE: your server-side key. PRODUCT: a key you issue to one of your customers, bound to their subscription.',
    }),
    name: Type.String(),
    hint: Type.String({ description: 'The prefix and last four characters, to tell keys apart: sk_test_…9f2c.' }),
    scopes: Type.Array(ScopeSchema, { description: 'Workspace keys only; empty for product keys.' }),
    subscriptionId: Type.Union([Type.String(), Type.Null()]),
    customerId: Type.Union([Type.String(), Type.Null()]),
    productId: Type.Union([Type.String(), Type.Null()]),
    status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('ROTATED'), Type.Literal('EXPIRED'), Type.Literal('REVOKED')], {
      description: 'ROTATED: replaced, still valid until expiresAt; EXPIRED: its grace period is over.',
    }),
    expiresAt: NullableTimestamp,
    replacedById: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    revokedAt: NullableTimestamp,
  },
  { title: 'ApiKey' },
);

export const CreatedApiKeySchema = Type.Object(
  {
    ...ApiKeySchema.properties,
    fullToken: Type.Union([Type.String(), Type.Null()], {
      description: 'The key itself, shown only in this response. Null in an idempotent replay: secrets are never stored.',
    }),
  },
  { title: 'CreatedApiKey' },
);

export const CreateApiKeyBody = Type.Object(
  {
    kind: Type.Union([Type.Literal('WORKSPACE'), Type.Literal('PRODUCT')]),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scopes: Type.Optional(
      Type.Array(ScopeSchema, {
        minItems: 1,
        maxItems: scopes.length,
        uniqueItems: true,
        description: 'Required for WORKSPACE keys; not allowed for PRODUCT keys. Each scope at most once.',
      }),
    ),
    subscriptionId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Required for PRODUCT keys: the subscription the key is bound to.' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateApiKeyInput = Static<typeof CreateApiKeyBody>;

/** The spec's rotated key response, plus where the old key stands. */
export const RotatedKeySchema = Type.Object(
  {
    id: Type.String({ description: 'Id of the new key.' }),
    fullToken: Type.Union([Type.String(), Type.Null()], { description: 'The new key, returned once only.' }),
    status: Type.Literal('ACTIVE'),
    previousKeyId: Type.String(),
    previousKeyExpiresAt: Type.Union([Timestamp, Type.Null()], {
      description: 'Rotate: the old key works until then (300 s). Roll: null, the old key is already revoked.',
    }),
  },
  { title: 'RotatedKey' },
);

/** What rotate and roll answer: the new key (its secret once) and where the old one stands. */
export function presentRotatedKey(r: { key: ApiKey; fullToken: string; previous: ApiKey }): Static<typeof RotatedKeySchema> {
  return { id: r.key.id, fullToken: r.fullToken, status: 'ACTIVE', previousKeyId: r.previous.id, previousKeyExpiresAt: toIsoOrNull(r.previous.expiresAt) };
}

export const replaceSummaries = {
  rotate: 'Rotate a key: the old one keeps working for 300 seconds',
  roll: 'Roll a key: the old one is revoked at once',
} as const;

export function displayStatus(k: Pick<ApiKey, 'status' | 'expiresAt'>, now: number): Static<typeof ApiKeySchema>['status'] {
  if (k.status === 'ROTATED' && k.expiresAt !== null && now >= k.expiresAt) return 'EXPIRED';
  return k.status;
}

export function presentApiKey(k: ApiKey, now: number): Static<typeof ApiKeySchema> {
  return {
    id: k.id,
    object: 'api_key',
    environment: k.environment,
    kind: k.kind,
    name: k.name,
    hint: `sk_${k.environment}_…${k.hint}`,
    scopes: k.scopes,
    subscriptionId: k.subscriptionId,
    customerId: k.customerId,
    productId: k.productId,
    status: displayStatus(k, now),
    expiresAt: toIsoOrNull(k.expiresAt),
    replacedById: k.replacedById,
    createdAt: toIso(k.createdAt),
    revokedAt: toIsoOrNull(k.revokedAt),
  };
}
