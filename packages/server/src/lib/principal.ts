import type { Environment } from './crypto.js';

/**
 * Who a request authenticated as: what a presented secret resolves to, whatever its kind.
 * Authentication caches these by the secret's SHA-256, so everything a request needs to
 * authorize and rate-limit is here. The web kit (http/types.ts) types `request.credential` and a
 * route's required scope with it; the credential modules produce it.
 */
export const scopes = ['admin', 'ingest', 'entitlements:read', 'keys:verify', 'keys:write', 'events:read'] as const;
export type Scope = (typeof scopes)[number];

export interface CredentialBase {
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
  | (CredentialBase & { type: 'storefront_key'; storefrontId: string | null })
  /** A browser's short-lived session for ONE subscription (the widget routes only); expiresAt is its end. */
  | (CredentialBase & { type: 'widget_session'; subscriptionId: string; customerId: string; allowedOrigins: string[] })
  /**
   * A signed-in console (the cookie's secret). An operator works in both environments: the
   * lookup says `test`, and authentication sets the one each request picks (X-Tollgate-Environment).
   */
  | (CredentialBase & { type: 'operator_session'; operatorId: string; email: string; role: OperatorRole })
  /** A customer's browser session in the developer hub (the hub routes only, by cookie); csrfHash is SHA-256 of its CSRF token. */
  | (CredentialBase & { type: 'hub_session'; customerId: string; csrfHash: string });

/** admin: everything a workspace key with every scope may; viewer: read only (safe methods). */
export const operatorRoles = ['admin', 'viewer'] as const;
export type OperatorRole = (typeof operatorRoles)[number];
