import { Type, type Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { toIsoOrNull } from '../../lib/clock.js';
import type { Tenant } from '../../lib/tenant.js';
import { credentialState } from '../credentials/credential.js';
import type { Credential } from '../../lib/principal.js';
import { findCredentialBySecret } from './find-credential.js';
import { noteGraceUse } from './grace-use.js';

export const VerifyKeyBody = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The customer's product key (sk_…) or OAuth access token (at_…), as your gateway received it.",
    }),
  },
  { additionalProperties: false },
);

export const VerifyKeyResult = Type.Object({
  valid: Type.Boolean(),
  code: Type.Union([Type.Literal('VALID'), Type.Literal('NOT_FOUND'), Type.Literal('REVOKED'), Type.Literal('EXPIRED')], {
    description:
      'NOT_FOUND also covers keys of another workspace or environment and workspace keys. EXPIRED: a rotated key past its 300 s grace, or an access token past its lifetime.',
  }),
  keyId: Type.Union([Type.String(), Type.Null()], { description: 'key_… for product keys, the client id for access tokens.' }),
  customerId: Type.Union([Type.String(), Type.Null()]),
  subscriptionId: Type.Union([Type.String(), Type.Null()]),
  productId: Type.Union([Type.String(), Type.Null()]),
  environment: Type.Union([Type.Literal('test'), Type.Literal('live'), Type.Null()]),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the credential stops working: the end of a rotated key’s grace period or a token’s lifetime.',
  }),
});
export type VerifyKeyResult = Static<typeof VerifyKeyResult>;

const notFound: VerifyKeyResult = {
  valid: false,
  code: 'NOT_FOUND',
  keyId: null,
  customerId: null,
  subscriptionId: null,
  productId: null,
  environment: null,
  expiresAt: null,
};

/** Pure: the answer for a resolved credential, as seen by the asking tenant at `now`. */
export function verificationOf(c: Credential | null, tenant: Tenant, now: number): VerifyKeyResult {
  if (!c || (c.type !== 'product_key' && c.type !== 'access_token')) return notFound;
  if (c.workspaceId !== tenant.workspaceId || c.environment !== tenant.environment) return notFound;
  const state = credentialState(c, now);
  return {
    valid: state === 'VALID',
    code: state,
    keyId: c.id,
    customerId: c.customerId,
    subscriptionId: c.subscriptionId,
    productId: c.productId,
    environment: c.environment,
    expiresAt: toIsoOrNull(c.expiresAt),
  };
}

/**
 * The gateway's question "is this customer's key good?", answered from the credential cache. A
 * rotated product key answering valid is in its grace: its first use is an event (api_key.grace_used).
 */
export async function verifyKey(deps: Deps, tenant: Tenant & { correlationId?: string }, presented: string): Promise<VerifyKeyResult> {
  const c = await findCredentialBySecret(deps, presented);
  const result = verificationOf(c, tenant, deps.clock.now());
  if (result.valid && c?.type === 'product_key' && c.status === 'ROTATED') await noteGraceUse(deps, c, tenant.correlationId ?? deps.ids.next('request'));
  return result;
}
