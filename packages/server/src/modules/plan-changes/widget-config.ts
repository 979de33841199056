import { Type, type Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import { BillingPeriodSchema, CatalogUnitSchema, CurrencyCode } from '../catalog/catalog-schemas.js';
import { buildStorefrontView } from '../catalog/headless-config.js';
import { loadPricedOffering } from '../catalog/load-priced-offering.js';
import type { RatePlan } from '../catalog/rate-plan.js';
import type { Subscription } from '../subscriptions/subscription.js';
import { findMetricLabels } from '../metrics/metric.repository.js';
import { listChangeCandidates } from './change-candidates.js';

const PublishedUnitSchema = Type.Composite(
  [
    Type.Omit(CatalogUnitSchema, ['toolMultipliers', 'endpointMultipliers']),
    Type.Object({
      metricDisplayName: Type.Optional(
        Type.Union([Type.String(), Type.Null()], { description: 'The metric\'s name for people ("API calls"); null when it has none.' }),
      ),
      metricUnit: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'What one unit is called, singular ("call"); null: "unit".' })),
    }),
  ],
  { title: 'PublishedUnit' },
);

/**
 * What the widget's step 1 words its prices from: the published configuration of the
 * subscription's current offering and of every change candidate, in @tollgate/pricing's own types
 * (prices as decimal text, never a float), so the widget runs the pricing page's display module
 * on it in the browser and shows each price exactly as the hosted page does.
 */
export const WidgetConfigSchema = Type.Object(
  {
    object: Type.Literal('widget_config'),
    currentOfferingId: Type.Union([Type.String(), Type.Null()], { description: 'The offering subscribed to now; null for a subscription without one.' }),
    offerings: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        billingMode: Type.String({ description: "POSTPAID, or PREPAID: usage draws from the customer's credit balance." }),
        currency: CurrencyCode,
        entryPrice: Type.Union([Type.String(), Type.Null()], { description: 'Decimal text per billing period; null when usage-only.' }),
        billingPeriod: BillingPeriodSchema,
        trialDays: Type.Integer(),
        ratePlanIds: Type.Array(Type.String()),
      }),
      { description: 'The current offering first (when it still exists), then the change candidates in the change-candidates order.' },
    ),
    ratePlans: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        currency: CurrencyCode,
        billingPeriod: BillingPeriodSchema,
        metrics: Type.Array(PublishedUnitSchema, { description: 'Every billable unit, as published (no rating-only multipliers).' }),
      }),
    ),
  },
  { title: 'WidgetConfig' },
);
export type WidgetConfig = Static<typeof WidgetConfigSchema>;

export async function widgetConfig(deps: Deps, tenant: Tenant, sub: Subscription): Promise<WidgetConfig> {
  const current = sub.offeringId === null ? null : await loadPricedOffering(deps, tenant, sub.offeringId);
  const priced = [...(current ? [current] : []), ...(await listChangeCandidates(deps, tenant, sub)).map((c) => c.priced)];
  const plans = new Map<string, RatePlan>();
  for (const p of priced) for (const plan of p.plans) plans.set(plan.id, plan);
  const labels = await findMetricLabels(
    deps.db,
    tenant,
    [...plans.values()].flatMap((p) => p.metrics.map((m) => m.metricId)),
  );
  const view = buildStorefrontView(
    priced.map((p) => p.offering),
    plans,
    labels,
  );
  return { object: 'widget_config', currentOfferingId: sub.offeringId, ...view };
}
