import { Type, type Static } from '@sinclair/typebox';
import { describeOffering } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import { pricingOf } from '../billing/rate-subscription-period.js';
import { loadPricedOffering } from '../catalog/load-priced-offering.js';
import { findProduct } from '../products/product.repository.js';
import { presentSubscription, SubscriptionSchema, type Subscription } from '../subscriptions/subscription.js';

export const HubPlanSchema = Type.Object(
  {
    offeringId: Type.String({ description: 'off_…' }),
    name: Type.String({ description: 'The offering’s name, as your pricing page shows it.' }),
    priceText: Type.String({
      description:
        'The price of the current period, worded as the pricing page words it (`$49.00/mo`, `Usage-based`, `Free`): the prices the period is rated with, even if the offering changed since.',
    }),
  },
  { title: 'HubPlan', description: 'The plan (offering) a subscription is on, by name and price.' },
);
export type HubPlan = Static<typeof HubPlanSchema>;

/** What the hub names a subscription by instead of its ids: additive fields of its subscriptions and quotas. */
export const PlanNameFields = {
  productName: Type.String({ description: 'The product’s name (productId is its id).' }),
  plan: Type.Union([HubPlanSchema, Type.Null()], { description: 'The plan subscribed to; null for a subscription priced by its own unitPrices.' }),
};
export interface PlanNames {
  productName: string;
  plan: HubPlan | null;
}

export const HubSubscriptionSchema = Type.Object(
  { ...SubscriptionSchema.properties, ...PlanNameFields },
  { title: 'HubSubscription', description: 'A subscription as the developer hub shows it: with its product’s and plan’s names and the plan’s price.' },
);

/**
 * Product and plan names of subscriptions, by subscription id: each product read once; offerings
 * and price versions come from their per-node caches. The name is the offering's now (a renamed
 * plan shows its new name); the price is the one the current period is rated with.
 */
export async function namePlans(deps: Deps, tenant: Tenant, subs: readonly Subscription[]): Promise<Map<string, PlanNames>> {
  const products = new Map<string, string>();
  for (const productId of new Set(subs.map((s) => s.productId))) {
    // A subscription names an existing product; the id stands in should one ever be absent.
    products.set(productId, (await findProduct(deps.db, tenant, productId))?.name ?? productId);
  }
  const out = new Map<string, PlanNames>();
  for (const sub of subs) {
    const priced = await pricingOf(deps, tenant, sub);
    let plan: HubPlan | null = null;
    if (sub.offeringId !== null && priced) {
      const current = await loadPricedOffering(deps, tenant, sub.offeringId);
      plan = {
        offeringId: sub.offeringId,
        name: current?.offering.name ?? priced.offering.name,
        priceText: describeOffering(priced.offering, priced.plans).price,
      };
    }
    out.set(sub.id, { productName: products.get(sub.productId)!, plan });
  }
  return out;
}

/** Subscriptions as the hub's list shows them. */
export async function presentHubSubscriptions(deps: Deps, tenant: Tenant, subs: readonly Subscription[]): Promise<Array<Static<typeof HubSubscriptionSchema>>> {
  const names = await namePlans(deps, tenant, subs);
  return subs.map((s) => ({ ...presentSubscription(s), ...names.get(s.id)! }));
}
