import type { CredentialBase, Scope } from '../../lib/principal.js';

export const scopeDescriptions: Record<Scope, string> = {
  admin: 'everything, including the operator API (customers, products, metrics, subscriptions)',
  ingest: 'send usage events',
  'entitlements:read': 'ask whether a customer may use a product',
  'keys:verify': "verify customers' product keys and access tokens (for your gateway)",
  'keys:write': 'create, rotate, roll and revoke keys, client credentials and storefront keys',
  'events:read': 'read and stream the audit event log',
};

export type CredentialState = 'VALID' | 'REVOKED' | 'EXPIRED';

/** Pure: is this credential usable at `now`? A rotated key works until expiresAt, exclusive. */
export function credentialState(c: Pick<CredentialBase, 'status' | 'expiresAt'>, now: number): CredentialState {
  if (c.status === 'REVOKED') return 'REVOKED';
  if (c.expiresAt !== null && now >= c.expiresAt) return 'EXPIRED';
  return 'VALID';
}

export function hasScope(granted: readonly Scope[], needed: Scope): boolean {
  return granted.includes('admin') || granted.includes(needed);
}
