import type { Deps } from '../../deps.js';
import { cacheSpec } from '../../lib/caches.js';
import type { Tenant } from '../../lib/tenant.js';
import { CATALOG_CHANNEL } from '../catalog/catalog-changed.js';
import { SUBSCRIPTIONS_CHANGED } from '../subscriptions/subscription.js';
import { CREDITS_CHANGED } from '../credits/live-credits.js';

/** An answer as its JSON text, the customer it is about and the moment (a sequence number) its decision began. */
export interface CachedAnswer {
  json: string;
  customerId: string;
  decidedFrom: number;
}

/**
 * Entitlement answers by tenant, accessor and product, for ENTITLEMENT_CACHE_TTL_MS at most:
 * cleared by every catalog change (on every node), every change to credits (on every node) and every subscription change (here), and an
 * answer is not used once this node has committed usage for its customer since its decision began.
 */
export const entitlementAnswerCache = cacheSpec<CachedAnswer>({
  name: 'entitlement answers',
  ttlMs: (config) => config.entitlementCacheTtlMs,
  maxEntries: 50_000,
  channels: [CATALOG_CHANNEL, SUBSCRIPTIONS_CHANGED, CREDITS_CHANGED],
});

/**
 * When this node last committed usage for a customer, as a sequence number, kept as long as an
 * answer: once an entry is gone, every answer decided before that commit is gone too. Cleared
 * with the answers (the same channels), when forgetting them all makes the marks moot.
 */
export const usageCommitCache = cacheSpec<number>({
  name: 'usage commits',
  ttlMs: (config) => config.entitlementCacheTtlMs,
  maxEntries: 1_000_000,
  channels: [CATALOG_CHANNEL, SUBSCRIPTIONS_CHANGED],
});

// Orders decisions and commits in this process; only compared, never shown.
let sequence = 0;

/** The point a decision begins from, or a request arrives at. */
export function nextSequence(): number {
  return (sequence += 1);
}

const customerKey = (tenant: Tenant, customerId: string) => `${tenant.workspaceId}\u0000${tenant.environment}\u0000${customerId}`;

/**
 * After this node committed usage (an ingested batch, an upload): answers about these customers
 * decided before now are not used again here. Other nodes still reuse theirs up to the TTL.
 */
export function usageCommitted(deps: Pick<Deps, 'caches'>, tenant: Tenant, customerIds: readonly string[]): void {
  if (customerIds.length === 0) return;
  const commits = deps.caches.of(usageCommitCache);
  const at = nextSequence();
  for (const id of customerIds) commits.set(customerKey(tenant, id), at, commits.generation);
}

/** The sequence number of this node's last usage commit for the customer, 0 if none is remembered. */
export function lastUsageCommit(deps: Pick<Deps, 'caches'>, tenant: Tenant, customerId: string): number {
  return deps.caches.of(usageCommitCache).get(customerKey(tenant, customerId)) ?? 0;
}
