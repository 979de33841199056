import type { Environment } from '../../lib/crypto.js';

/**
 * What a presented secret resolves to, whatever its kind. Authentication caches these by the
 * secret's SHA-256, so everything a request needs to authorize and rate-limit is here.
 */
export const scopes = ['admin', 'ingest', 'entitlements:read', 'keys:verify', 'keys:write', 'events:read'] as const;
export type Scope = (typeof scopes)[number];

export const scopeDescriptions: Record<Scope, string> = {
  admin: 'everything, including the operator API (customers, products, metrics, subscriptions)',
  ingest: 'send usage events',
  'entitlements:read': 'ask whether a customer may use a product',
  'keys:verify': "verify customers' product keys and access tokens (for your gateway)",
  'keys:write': 'create, rotate, roll and revoke keys, client credentials and storefront keys',
  'events:read': 'read and stream the audit event log',
};

interface CredentialBase {
  id: string;
  workspaceId: string;
  environment: Environment;
  /** ACTIVE, ROTATED (grace until expiresAt) or REVOKED. */
  status: string;
  expiresAt: number | null;
  /** The workspace's own limit; null means the configured default. */
  rateLimitPerMinute: number | null;
}

export type Credential =
  | (CredentialBase & { type: 'workspace_key'; scopes: Scope[] })
  | (CredentialBase & { type: 'product_key'; customerId: string; subscriptionId: string; productId: string })
  | (CredentialBase & { type: 'access_token'; customerId: string; subscriptionId: string; productId: string })
  | (CredentialBase & { type: 'storefront_key'; storefrontId: string | null });

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

export type SecretKind = 'secret_key' | 'access_token' | 'storefront_key';

const formats: Array<[SecretKind, RegExp]> = [
  ['secret_key', /^sk_(test|live)_[0-9a-f]{32}$/],
  ['access_token', /^at_(test|live)_[0-9a-f]{64}$/],
  ['storefront_key', /^pk_(test|live)_[0-9a-f]{32}$/],
];

/** Pure: recognise a presented secret by its form, so malformed input never reaches the database. */
export function parseSecret(value: string): { kind: SecretKind; environment: Environment } | null {
  for (const [kind, re] of formats) {
    const m = re.exec(value);
    if (m) return { kind, environment: m[1] as Environment };
  }
  return null;
}
