import type { Deps } from '../../deps.js';
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

/**
 * Cached per node for CATALOG_CACHE_TTL_MS and cleared on every catalog change (all nodes, through
 * the bus): entitlement checks rate the current period on every cache miss, and the catalog is
 * two more queries they need not repeat.
 */
export async function loadPricedOffering(deps: Deps, tenant: Tenant, offeringId: string): Promise<PricedOffering | null> {
  const key = `${tenant.workspaceId}:${tenant.environment}:${offeringId}`;
  const cached = deps.catalog.get(key);
  if (cached !== undefined) return cached;
  const generation = deps.catalog.generation;
  const offering = await findOffering(deps.db, tenant, offeringId);
  let priced: PricedOffering | null = null;
  if (offering) {
    const plans = await findRatePlans(deps.db, tenant, offering.ratePlanIds, (id, err) =>
      deps.log.warn({ err, ratePlanId: id, offeringId }, 'rate plan unreadable; not rated'),
    );
    priced = { offering, plans: offering.ratePlanIds.flatMap((id) => (plans.has(id) ? [plans.get(id)!] : [])) };
  }
  deps.catalog.set(key, priced, generation);
  return priced;
}
