import type { Deps } from '../../deps.js';
import { cacheSpec } from '../../lib/caches.js';
import { CATALOG_CHANNEL } from './catalog-changed.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Offering } from './offering.js';
import { findOffering } from './offering.repository.js';
import type { RatePlan } from './rate-plan.js';
import { findRatePlans } from './rate-plan.repository.js';

/** An offering with its readable rate plans, in the offering's order: what rating needs. */
export interface PricedOffering {
  offering: Offering;
  plans: RatePlan[];
}

/** Offerings change rarely and every change broadcasts a clear; the TTL bounds staleness when a broadcast is lost. */
export const CATALOG_CACHE_TTL_MS = 5_000;

export const pricedOfferingCache = cacheSpec<PricedOffering | null>({
  name: 'rated offerings',
  ttlMs: () => CATALOG_CACHE_TTL_MS,
  maxEntries: 10_000,
  channels: [CATALOG_CHANNEL],
});

/**
 * Cached per node for CATALOG_CACHE_TTL_MS and cleared on every catalog change (all nodes, through
 * the bus): entitlement checks rate the current period on every cache miss, and the catalog is
 * two more queries they need not repeat.
 */
export async function loadPricedOffering(deps: Deps, tenant: Tenant, offeringId: string): Promise<PricedOffering | null> {
  const key = `${tenant.workspaceId}:${tenant.environment}:${offeringId}`;
  const cache = deps.caches.of(pricedOfferingCache);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const generation = cache.generation;
  const offering = await findOffering(deps.db, tenant, offeringId);
  let priced: PricedOffering | null = null;
  if (offering) {
    const plans = await findRatePlans(deps.db, tenant, offering.ratePlanIds, (id, err) =>
      deps.log.warn({ err, ratePlanId: id, offeringId }, 'rate plan unreadable; not rated'),
    );
    priced = { offering, plans: offering.ratePlanIds.flatMap((id) => (plans.has(id) ? [plans.get(id)!] : [])) };
  }
  cache.set(key, priced, generation);
  return priced;
}
