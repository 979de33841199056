import type { Deps } from '../../deps.js';
import type { OperationContext } from '../../lib/operation-context.js';

/** What a cancellation revoked, by id. */
export interface RevokedCredentials {
  keyIds: string[];
  clientCredentialIds: string[];
}

/**
 * The credentials bound to a subscription (product keys, client credentials), which its
 * cancellation revokes in the same transaction. Their modules sit above this one (they bind to
 * subscriptions), so they implement this (modules/authentication/bound-credentials.ts) and app.ts
 * hands it down.
 */
export interface BoundCredentials {
  /** Revokes them in txDeps' transaction; every node drops them from its cache after the commit. */
  revokeForSubscription(txDeps: Deps, ctx: OperationContext, subscriptionId: string, at: number): Promise<RevokedCredentials>;
  /** One audit event per credential revoked, written after the subscription's own, which names them. */
  recordRevocations(txDeps: Deps, ctx: OperationContext, subscriptionId: string, revoked: RevokedCredentials): Promise<void>;
}
