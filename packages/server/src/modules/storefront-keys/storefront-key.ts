import { Type, type Static } from '@sinclair/typebox';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import { Environment, NullableTimestamp, Timestamp } from '../../http/schemas.js';
import type { Environment as Env } from '../../lib/crypto.js';

/** Keys for X-Storefront-Key: they read the published pricing configuration and nothing else. */
export interface StorefrontKey {
  id: string;
  environment: Env;
  name: string;
  storefrontId: string | null;
  hint: string;
  status: 'ACTIVE' | 'REVOKED';
  createdAt: number;
  updatedAt: number;
  revokedAt: number | null;
}

export const StorefrontKeySchema = Type.Object(
  {
    id: Type.String({ description: 'sfk_…' }),
    object: Type.Literal('storefront_key'),
    environment: Environment,
    name: Type.String(),
    storefrontId: Type.Union([Type.String(), Type.Null()], { description: 'sf_…: the storefront whose published configuration the key reads.' }),
    hint: Type.String({ description: 'pk_test_…9f2c' }),
    status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('REVOKED')]),
    createdAt: Timestamp,
    revokedAt: NullableTimestamp,
  },
  { title: 'StorefrontKey' },
);

export const CreatedStorefrontKeySchema = Type.Object(
  {
    ...StorefrontKeySchema.properties,
    fullToken: Type.Union([Type.String(), Type.Null()], {
      description: 'pk_test_… or pk_live_…, shown only in this response. Null in an idempotent replay.',
    }),
  },
  { title: 'CreatedStorefrontKey' },
);

export const CreateStorefrontKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    storefrontId: Type.String({ minLength: 1, maxLength: 100, description: 'sf_…: the storefront the key reads (one key per website is typical).' }),
  },
  { additionalProperties: false },
);
export type CreateStorefrontKeyInput = Static<typeof CreateStorefrontKeyBody>;

export function presentStorefrontKey(k: StorefrontKey): Static<typeof StorefrontKeySchema> {
  return {
    id: k.id,
    object: 'storefront_key',
    environment: k.environment,
    name: k.name,
    storefrontId: k.storefrontId,
    hint: `pk_${k.environment}_…${k.hint}`,
    status: k.status,
    createdAt: toIso(k.createdAt),
    revokedAt: toIsoOrNull(k.revokedAt),
  };
}
