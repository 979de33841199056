import { Type, type Static } from '@sinclair/typebox';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import { Environment, NullableTimestamp, Timestamp } from '../../http/schemas.js';
import type { Environment as Env } from '../../lib/crypto.js';

/** OAuth 2.0 client credentials for AI_AGENT and MCP_SERVER products; the id is the client ID. */
export interface ClientCredential {
  id: string;
  environment: Env;
  name: string;
  hint: string;
  subscriptionId: string;
  customerId: string;
  productId: string;
  status: 'ACTIVE' | 'REVOKED';
  createdAt: number;
  updatedAt: number;
  revokedAt: number | null;
}

export const ClientCredentialSchema = Type.Object(
  {
    id: Type.String({ description: 'The client ID: cid_…' }),
    object: Type.Literal('client_credential'),
    clientId: Type.String({ description: 'Same as id; the name OAuth clients use.' }),
    environment: Environment,
    name: Type.String(),
    hint: Type.String({ description: 'Last four characters of the secret.' }),
    subscriptionId: Type.String(),
    customerId: Type.String(),
    productId: Type.String(),
    status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('REVOKED')]),
    createdAt: Timestamp,
    revokedAt: NullableTimestamp,
  },
  { title: 'ClientCredential' },
);

export const CreatedClientCredentialSchema = Type.Object(
  {
    ...ClientCredentialSchema.properties,
    clientSecret: Type.Union([Type.String(), Type.Null()], {
      description: '64 hex characters (32 random bytes), shown only in this response. Null in an idempotent replay.',
    }),
  },
  { title: 'CreatedClientCredential' },
);

export const CreateClientCredentialBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    subscriptionId: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'An active subscription to an AI_AGENT or MCP_SERVER product.',
    }),
  },
  { additionalProperties: false },
);
export type CreateClientCredentialInput = Static<typeof CreateClientCredentialBody>;

export function presentClientCredential(c: ClientCredential): Static<typeof ClientCredentialSchema> {
  return {
    id: c.id,
    object: 'client_credential',
    clientId: c.id,
    environment: c.environment,
    name: c.name,
    hint: `…${c.hint}`,
    subscriptionId: c.subscriptionId,
    customerId: c.customerId,
    productId: c.productId,
    status: c.status,
    createdAt: toIso(c.createdAt),
    revokedAt: toIsoOrNull(c.revokedAt),
  };
}
