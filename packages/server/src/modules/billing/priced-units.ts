import { Decimal, unitPricingWith, usesRatingDimensions, type UsageGroup } from '@tollgate/pricing';
import type { PricedOffering } from '../catalog/load-priced-offering.js';
import type { Subscription } from '../subscriptions/subscription.js';
import type { PeriodUsage } from '../usage/period-usage.js';
import { NO_DIMENSION, parseDimensionKey } from '../usage/rating-dimension.js';
import type { PricedUnit } from './rate-period.js';

/** Every unit of an offering's plans, each with the offering's override for it. */
export function unitsOfOffering(priced: PricedOffering): PricedUnit[] {
  return priced.plans.flatMap((plan) =>
    plan.metrics.map((pricing) => {
      const o = priced.offering.overrides.find((x) => x.ratePlanId === plan.id && x.metricName === pricing.metricName);
      return {
        ratePlanId: plan.id,
        pricing,
        override: o ? { ...(o.includedFree !== undefined ? { includedFree: o.includedFree } : {}), ...(o.rate !== undefined ? { rate: o.rate } : {}) } : null,
      };
    }),
  );
}

/** A subscription without an offering: its unitPrices are PER_UNIT rates. */
export function unitsOfUnitPrices(s: Pick<Subscription, 'unitPrices'>): PricedUnit[] {
  return Object.entries(s.unitPrices).map(([metricName, rate]) => {
    const pricing = unitPricingWith({ metricName, pricingModel: 'PER_UNIT', rate });
    return { ratePlanId: null, pricing, override: null };
  });
}

/** The metrics of the units whose rating depends on the split by execution status, tool or endpoint. */
export function metricsRatedByDimension(units: readonly PricedUnit[]): Set<string> {
  return new Set(units.filter((u) => usesRatingDimensions(u.pricing, u.pricing.multipliers)).map((u) => u.pricing.metricName));
}

/**
 * A period's usage per metric name. A metric in `byDimension` gets a group per dimension share,
 * plus one without a dimension for the rest of its total (events without one); any other metric
 * gets one group holding its total, which rates the same (usesRatingDimensions).
 */
export function usageGroupsOf(usage: PeriodUsage, byDimension: ReadonlySet<string>): Map<string, UsageGroup[]> {
  const out = new Map<string, UsageGroup[]>();
  for (const [metricName, m] of usage) {
    if (!byDimension.has(metricName)) {
      out.set(metricName, [{ quantity: m.quantity, ...parseDimensionKey(NO_DIMENSION) }]);
      continue;
    }
    const groups: UsageGroup[] = [];
    let rest = new Decimal(m.quantity);
    for (const [dimension, share] of m.dimensions) {
      groups.push({ quantity: share.quantity, ...parseDimensionKey(dimension) });
      rest = rest.minus(share.quantity);
    }
    if (!rest.isZero()) groups.push({ quantity: rest.toFixed(), ...parseDimensionKey(NO_DIMENSION) });
    out.set(metricName, groups);
  }
  return out;
}
