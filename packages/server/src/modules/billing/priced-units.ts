import { unitPricingWith, type UsageGroup } from '@tollgate/pricing';
import type { PricedOffering } from '../catalog/load-priced-offering.js';
import type { Subscription } from '../subscriptions/subscription.js';
import type { AggregateRow } from '../usage/usage.repository.js';
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

/** Aggregate rows of a period, per metric name, by rating dimension. */
export function usageGroupsOf(rows: readonly AggregateRow[]): Map<string, UsageGroup[]> {
  const out = new Map<string, UsageGroup[]>();
  for (const r of rows) {
    const groups = out.get(r.metricName) ?? [];
    groups.push({ quantity: r.quantitySum, ...parseDimensionKey(r.dimension) });
    out.set(r.metricName, groups);
  }
  return out;
}
