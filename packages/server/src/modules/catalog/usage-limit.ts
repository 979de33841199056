import { Type } from '@sinclair/typebox';

/**
 * The usage limit shape, shared by rate plans (their defaults) and subscriptions (their own):
 * defined here, the lower of the two modules, and re-exported by modules/subscriptions.
 */

export const enforcements = ['BLOCK', 'ALERT'] as const;
export type Enforcement = (typeof enforcements)[number];

/** A per-period usage limit on one metric: BLOCK refuses once it is used up, ALERT allows and warns once. */
export interface UsageLimit {
  metricName: string;
  limit: number;
  enforcement: Enforcement;
}

/** At most this many limits on a rate plan or a subscription. */
export const MAX_USAGE_LIMITS = 50;

export const EnforcementSchema = Type.Union(
  enforcements.map((e) => Type.Literal(e)),
  {
    description: 'BLOCK: entitlement checks answer allowed=false once used up. ALERT: allowed, and one WARN audit event per period when crossed.',
  },
);

export const LimitMetricName = Type.String({ minLength: 1, maxLength: 100, description: 'The metric, exactly as usage events name it.' });
// Bounded: JSON's 1e309 parses to Infinity, which would be stored as null.
export const LimitUnits = Type.Number({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Units per billing period.' });

export const UsageLimitSchema = Type.Object(
  { metricName: LimitMetricName, limit: LimitUnits, enforcement: EnforcementSchema },
  { additionalProperties: false },
);

/** A rate plan's default limit, with the plan it comes from. */
export interface DefaultUsageLimit extends UsageLimit {
  ratePlanId: string;
}

/**
 * The default limits of an offering's rate plans, in the offering's order. An offering prices each
 * unit once and a plan limits only its own units, so no metric has two defaults. Pass the plans as
 * they are now (loadPricedOffering), never a price version's: versions are told apart by prices
 * only, so the limits they hold are those of the day the version was first made.
 */
export function defaultUsageLimits(plans: ReadonlyArray<{ id: string; usageLimits: readonly UsageLimit[] }>): DefaultUsageLimit[] {
  return plans.flatMap((p) => p.usageLimits.map((l) => ({ metricName: l.metricName, limit: l.limit, enforcement: l.enforcement, ratePlanId: p.id })));
}
