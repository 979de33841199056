import { changeKind, comparePerMonth } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Offering } from '../catalog/offering.js';
import { findOffering, findOfferings } from '../catalog/offering.repository.js';
import { publishedOfferingIds } from '../catalog/storefront.repository.js';
import type { Subscription } from '../subscriptions/subscription.js';
import type { DowngradeCandidate } from './retention-offer.js';

/**
 * Pure: of the offerings a subscriber could move to, the cheapest that is a DOWNGRADE from
 * `current` (entry prices compared per month, @tollgate/pricing changeKind): same product, not
 * the current offering, not ONE_TIME. Ties go to the oldest offering (smallest id), so the answer
 * never depends on the order given. null when none is cheaper.
 */
export function cheapestDowngradeOf(current: Offering, offerings: readonly Offering[]): DowngradeCandidate | null {
  const perMonth = (o: Offering) => ({ amount: o.entryPrice ?? '0', interval: o.billingPeriod });
  let best: Offering | null = null;
  for (const o of offerings) {
    if (o.id === current.id || o.productId !== current.productId || o.billingPeriod === 'ONE_TIME') continue;
    if (changeKind(current, o) !== 'DOWNGRADE') continue;
    const order = best === null ? -1 : (comparePerMonth(perMonth(o), perMonth(best)) ?? 1);
    if (order < 0 || (order === 0 && o.id < best!.id)) best = o;
  }
  return best && { offeringId: best.id, name: best.name, entryPrice: best.entryPrice, currency: best.currency, billingPeriod: best.billingPeriod };
}

/**
 * The downgrade a retention offer prompts for: the cheapest published offering of the
 * subscription's product that is a DOWNGRADE from its offering as it is now. null for a
 * subscription without an offering (priced by unitPrices) or when none is cheaper.
 */
export async function cheapestDowngrade(deps: Deps, tenant: Tenant, sub: Pick<Subscription, 'offeringId'>): Promise<DowngradeCandidate | null> {
  if (sub.offeringId === null) return null;
  const current = await findOffering(deps.db, tenant, sub.offeringId);
  if (!current) return null;
  // The offerings some storefront publishes: what plan changes' candidates come from too.
  return cheapestDowngradeOf(current, await findOfferings(deps.db, tenant, [...(await publishedOfferingIds(deps.db, tenant))]));
}
