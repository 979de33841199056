import { unitPricingWith, usesRatingDimensions, type UsageGroup } from '@tollgate/pricing';
import type { PricedOffering } from '../catalog/load-priced-offering.js';
import type { Subscription } from '../subscriptions/subscription.js';
import type { AggregateRow } from '../usage/usage.repository.js';
import type { UsageTotal } from '../usage/usage-totals.repository.js';
import { parseDimensionKey } from '../usage/rating-dimension.js';
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
 * A period's usage per metric name: by rating dimension (aggregate rows) for the metrics in
 * `byDimension`, else one group holding the metric's total, which rates the same
 * (usesRatingDimensions).
 */
export function usageGroupsOf(totals: readonly UsageTotal[], dimensionRows: readonly AggregateRow[], byDimension: ReadonlySet<string>): Map<string, UsageGroup[]> {
  const out = new Map<string, UsageGroup[]>();
  const add = (metricName: string, group: UsageGroup) => out.set(metricName, [...(out.get(metricName) ?? []), group]);
  for (const t of totals) {
    if (!byDimension.has(t.metricName)) add(t.metricName, { quantity: t.quantitySum, executionStatus: null, tool: null, endpoint: null });
  }
  for (const r of dimensionRows) {
    if (byDimension.has(r.metricName)) add(r.metricName, { quantity: r.quantitySum, ...parseDimensionKey(r.dimension) });
  }
  return out;
}
