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

/** A small logo as a data: URL, so the demo page fetches nothing (an https logo would work too). */
const DEMO_LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48"><rect width="48" height="48" rx="12" fill="#5b21b6"/><path d="M13 14h22v6h-8v16h-6V20h-8z" fill="#fff"/></svg>';
export const DEMO_LOGO_URL = `data:image/svg+xml;base64,${Buffer.from(DEMO_LOGO_SVG, 'utf8').toString('base64')}`;

/** The seller's look on the hosted page: violet on a pale violet page. */
export const DEMO_THEME = { accentColor: '#5b21b6', backgroundColor: '#f5f3ff', fontFamily: 'Inter', logoUrl: DEMO_LOGO_URL };

/** Where the demo's buttons go: a sign-up page of the seller's own (only a link, never fetched). */
export const demoSignupUrl = (offeringId: string) => `https://example.com/signup?offering=${offeringId}`;

export type DemoOfferingKey = 'starter' | 'pro' | 'proAnnual' | 'agents';

/**
 * Pro's usage, monthly or yearly: the yearly plan has twelve months' free calls and twelve
 * months' seat fees (its per-period amounts), the same per-unit prices.
 */
function proUsage(billingPeriod: 'MONTHLY' | 'ANNUAL') {
  const annual = billingPeriod === 'ANNUAL';
  return {
    name: annual ? 'Pro usage (annual)' : 'Pro usage',
    currency: 'USD',
    billingPeriod,
    metrics: [
      { metricName: 'api_calls', pricingModel: 'INCLUDED_QUOTA' as const, rate: '1.50', includedFree: annual ? 1200000 : 100000, blockSize: 1000 },
      {
        metricName: 'tokens',
        pricingModel: 'VOLUME_TIERED' as const,
        tiers: [
          { tierStart: 0, tierEnd: 1000000, unitPrice: '0.000012' },
          { tierStart: 1000000, tierEnd: 10000000, unitPrice: '0.00001' },
          { tierStart: 10000000, tierEnd: null, unitPrice: '0.000008' },
        ],
      },
      {
        metricName: 'seats',
        pricingModel: 'STAIRCASE' as const,
        tiers: [
          { tierStart: 0, tierEnd: 5, flatFee: '0' },
          { tierStart: 5, tierEnd: 20, flatFee: annual ? '480' : '40' },
          { tierStart: 20, tierEnd: null, flatFee: annual ? '1200' : '100' },
        ],
      },
    ],
  };
}

/**
 * Four offerings on one product that together use all eight pricing models, in a published
 * storefront that shows off the hosted page: Pro both monthly and annually (so the page has a
 * period switch), highlighted, a button on every card, and a theme. Pro (monthly) is what the demo
 * customer subscribes to; its upcoming invoice is worked out by hand in
 * modules/billing/billing.routes.test.ts.
 */
export async function createDemoCatalog(
  deps: Deps,
  ctx: OperationContext,
  productId: string,
): Promise<{ storefront: Storefront; offerings: Record<DemoOfferingKey, Offering> }> {
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
  const proPlan = await createRatePlan(deps, ctx, proUsage('MONTHLY'));
  const proAnnualPlan = await createRatePlan(deps, ctx, proUsage('ANNUAL'));
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
  // Created after the monthly Pro, so a list in creation order still finds that one first.
  const proAnnual = await createOffering(deps, ctx, {
    productId,
    name: 'Pro',
    currency: 'USD',
    billingPeriod: 'ANNUAL',
    entryPrice: '490',
    ratePlanIds: [proAnnualPlan.id],
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
  const cta = (offering: Offering, label: string, highlighted = false) => ({
    offeringId: offering.id,
    highlighted,
    callToAction: { label, url: demoSignupUrl(offering.id) },
  });
  const draft = await createStorefront(deps, ctx, {
    name: 'Demo pricing',
    offeringIds: [starter.id, pro.id, proAnnual.id, agents.id],
    offeringDisplay: [cta(starter, 'Start for free'), cta(pro, 'Choose Pro', true), cta(proAnnual, 'Choose Pro yearly', true), cta(agents, 'Start free trial')],
    theme: DEMO_THEME,
  });
  const storefront = await publishStorefront(deps, ctx, draft.id);
  return { storefront, offerings: { starter, pro, proAnnual, agents } };
}
