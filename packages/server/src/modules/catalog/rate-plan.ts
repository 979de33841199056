import { Type, type Static } from '@sinclair/typebox';
import type { BillingPeriod, CatalogUnitPricing } from '@tollgate/pricing';
import { toIso } from '../../lib/clock.js';
import { Environment, Metadata, Timestamp } from '../../http/schemas.js';
import type { Environment as Env } from '../../lib/crypto.js';
import { BillingPeriodSchema, CatalogUnitSchema, CurrencyCode, UnitPricingBody } from './catalog-schemas.js';
import { MAX_USAGE_LIMITS, UsageLimitSchema, type UsageLimit } from './usage-limit.js';

/** A rate plan: how each billable unit is priced, in one currency, per billing period. */
export interface RatePlan {
  id: string;
  environment: Env;
  name: string;
  currency: string;
  billingPeriod: BillingPeriod;
  metrics: CatalogUnitPricing[];
  /** Default per-period limits of its subscribers, each on one of its units; a subscription may override them. */
  usageLimits: UsageLimit[];
  metadata: Record<string, string>;
  /** Increases with every change; offerings and storefronts show the plan as it is now. */
  version: number;
  createdAt: number;
  updatedAt: number;
}

export const RatePlanSchema = Type.Object(
  {
    id: Type.String({ description: 'plan_…' }),
    object: Type.Literal('rate_plan'),
    environment: Environment,
    name: Type.String(),
    currency: CurrencyCode,
    billingPeriod: BillingPeriodSchema,
    metrics: Type.Array(CatalogUnitSchema, { description: 'Every billable unit on the plan, with the rating-only multipliers.' }),
    usageLimits: Type.Array(UsageLimitSchema, {
      description:
        'Default per-period usage limits of every subscription to an offering with this plan, each on one of its units. A subscription’s own usageLimits entry for a metric replaces the default (limit null: no limit). Not published in the headless configuration.',
    }),
    metadata: Metadata,
    version: Type.Integer(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'RatePlan' },
);

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Units = Type.Array(UnitPricingBody, { maxItems: 50, description: 'Each unit once; a plan with no units reads "Contact sales".' });
const UsageLimits = Type.Array(UsageLimitSchema, {
  maxItems: MAX_USAGE_LIMITS,
  description:
    'Default limits of its subscribers, at most one per unit of the plan (metricName as in metrics). BLOCK refuses entitlement checks once used up; ALERT allows and is listed in the check’s limits (the usage.limit_alert audit event and webhook come from a subscription’s own ALERT limits only). Changes apply at every subscriber’s next check, mid-period included: limits are not prices. Default [].',
});

export const CreateRatePlanBody = Type.Object(
  {
    name: Name,
    currency: CurrencyCode,
    billingPeriod: BillingPeriodSchema,
    metrics: Units,
    usageLimits: Type.Optional(UsageLimits),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateRatePlanInput = Static<typeof CreateRatePlanBody>;

/**
 * Currency and period are fixed at creation: offerings and subscriptions rely on them. metrics and
 * usageLimits are replaced whole; a limit on a unit that metrics removes goes with it.
 */
export const UpdateRatePlanBody = Type.Object(
  {
    name: Type.Optional(Name),
    metrics: Type.Optional(Units),
    usageLimits: Type.Optional(UsageLimits),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateRatePlanInput = Static<typeof UpdateRatePlanBody>;

export function presentRatePlan(p: RatePlan): Static<typeof RatePlanSchema> {
  return {
    ...p,
    object: 'rate_plan',
    metrics: p.metrics.map(({ multipliers, ...u }) => ({ ...u, toolMultipliers: multipliers.tools, endpointMultipliers: multipliers.endpoints })),
    createdAt: toIso(p.createdAt),
    updatedAt: toIso(p.updatedAt),
  };
}
