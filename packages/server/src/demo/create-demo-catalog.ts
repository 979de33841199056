import type { Deps } from '../deps.js';
import type { OperationContext } from '../lib/operation-context.js';
import { createOffering } from '../modules/catalog/create-offering.js';
import { createRatePlan } from '../modules/catalog/create-rate-plan.js';
import { createStorefront } from '../modules/catalog/create-storefront.js';
import type { Offering } from '../modules/catalog/offering.js';
import { publishStorefront } from '../modules/catalog/publish-storefront.js';
import type { Storefront } from '../modules/catalog/storefront.js';

/** The billable units the demo catalog prices, with their labels. */
export const DEMO_CATALOG_METRICS = {
  api_calls: { displayName: 'API calls', unit: 'call' },
  tokens: { displayName: 'Tokens', unit: 'token' },
  seats: { displayName: 'Seats', unit: 'seat' },
  agent_runs: { displayName: 'Agent runs', unit: 'run' },
  payment_volume: { displayName: 'Payment volume', unit: 'USD' },
  priority_support: { displayName: 'Priority support', unit: 'month' },
} as const;

/**
 * Three offerings on one product that together use all eight pricing models, in a published
 * storefront. Pro is what the demo customer subscribes to; its upcoming invoice is worked out by
 * hand in modules/billing/billing.routes.test.ts.
 */
export async function createDemoCatalog(
  deps: Deps,
  ctx: OperationContext,
  productId: string,
): Promise<{ storefront: Storefront; offerings: Record<'starter' | 'pro' | 'agents', Offering> }> {
  const starterPlan = await createRatePlan(deps, ctx, {
    name: 'Starter usage',
    currency: 'USD',
    billingPeriod: 'MONTHLY',
    metrics: [
      { metricName: 'api_calls', pricingModel: 'PER_UNIT', rate: '0.002', includedFree: 1000 },
      {
        metricName: 'tokens',
        pricingModel: 'GRADUATED',
        tiers: [
          { tierStart: 0, tierEnd: 100000, unitPrice: '0.00002' },
          { tierStart: 100000, tierEnd: 1000000, unitPrice: '0.000015' },
          { tierStart: 1000000, tierEnd: null, unitPrice: '0.00001' },
        ],
      },
    ],
  });
  const proPlan = await createRatePlan(deps, ctx, {
    name: 'Pro usage',
    currency: 'USD',
    billingPeriod: 'MONTHLY',
    metrics: [
      { metricName: 'api_calls', pricingModel: 'INCLUDED_QUOTA', rate: '1.50', includedFree: 100000, blockSize: 1000 },
      {
        metricName: 'tokens',
        pricingModel: 'VOLUME_TIERED',
        tiers: [
          { tierStart: 0, tierEnd: 1000000, unitPrice: '0.000012' },
          { tierStart: 1000000, tierEnd: 10000000, unitPrice: '0.00001' },
          { tierStart: 10000000, tierEnd: null, unitPrice: '0.000008' },
        ],
      },
      {
        metricName: 'seats',
        pricingModel: 'STAIRCASE',
        tiers: [
          { tierStart: 0, tierEnd: 5, flatFee: '0' },
          { tierStart: 5, tierEnd: 20, flatFee: '40' },
          { tierStart: 20, tierEnd: null, flatFee: '100' },
        ],
      },
    ],
  });
  const agentsPlan = await createRatePlan(deps, ctx, {
    name: 'Agent usage',
    currency: 'USD',
    billingPeriod: 'MONTHLY',
    metrics: [
      {
        metricName: 'agent_runs',
        pricingModel: 'OUTCOME_BASED',
        rate: '0.05',
        includedFree: 100,
        minFee: '10',
        outcomeWeights: { SUCCESS: 1, PARTIAL: 0.5, ERROR: 0, TIMEOUT: 0 },
        toolMultipliers: { web_search: '2' },
      },
      { metricName: 'payment_volume', pricingModel: 'PERCENTAGE', rate: '2.9' },
      { metricName: 'priority_support', pricingModel: 'FLAT_RATE', rate: '25' },
    ],
  });
  const starter = await createOffering(deps, ctx, {
    productId,
    name: 'Starter',
    currency: 'USD',
    billingPeriod: 'MONTHLY',
    entryPrice: null,
    ratePlanIds: [starterPlan.id],
  });
  const pro = await createOffering(deps, ctx, {
    productId,
    name: 'Pro',
    currency: 'USD',
    billingPeriod: 'MONTHLY',
    entryPrice: '49',
    ratePlanIds: [proPlan.id],
  });
  const agents = await createOffering(deps, ctx, {
    productId,
    name: 'Agents',
    currency: 'USD',
    billingPeriod: 'MONTHLY',
    entryPrice: '199',
    trialDays: 14,
    ratePlanIds: [agentsPlan.id],
  });
  const draft = await createStorefront(deps, ctx, { name: 'Demo pricing', offeringIds: [starter.id, pro.id, agents.id] });
  const storefront = await publishStorefront(deps, ctx, draft.id);
  return { storefront, offerings: { starter, pro, agents } };
}
