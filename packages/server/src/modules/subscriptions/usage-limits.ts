import { Type, type Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import { loadPricedOffering } from '../catalog/load-priced-offering.js';
import {
  defaultUsageLimits,
  EnforcementSchema,
  enforcements,
  LimitMetricName,
  LimitUnits,
  MAX_USAGE_LIMITS,
  type DefaultUsageLimit,
  type UsageLimit,
} from '../catalog/usage-limit.js';

/**
 * A subscription's usage limits: its own entries override its rate plans' defaults metric by
 * metric. What applies (`effectiveUsageLimits`) is, per metric, the subscription's entry if it has
 * one, else the default of the offering's rate plan that prices the metric.
 */

/** The subscription's own entry for one metric: a limit, or `limit: null`: none on that metric, whatever the rate plan says. */
export type UsageLimitOverride = UsageLimit | { metricName: string; limit: null };

export const usageLimitSources = ['SUBSCRIPTION', 'RATE_PLAN'] as const;
export type UsageLimitSource = (typeof usageLimitSources)[number];

/** A limit that applies to the subscription, and where it comes from. */
export interface EffectiveUsageLimit extends UsageLimit {
  source: UsageLimitSource;
  /** plan_…: the rate plan whose default it is; null for the subscription's own. */
  ratePlanId: string | null;
}

/**
 * Pure. The subscription's own limits first (in their order; a null entry removes the metric's
 * default and adds nothing), then the defaults of metrics it has no entry for, in the offering's
 * order. One limit per metric.
 */
export function effectiveUsageLimits(own: readonly UsageLimitOverride[], defaults: readonly DefaultUsageLimit[]): EffectiveUsageLimit[] {
  const decided = new Set<string>();
  const out: EffectiveUsageLimit[] = [];
  for (const l of own) {
    if (decided.has(l.metricName)) continue;
    decided.add(l.metricName);
    if (l.limit !== null) out.push({ metricName: l.metricName, limit: l.limit, enforcement: l.enforcement, source: 'SUBSCRIPTION', ratePlanId: null });
  }
  for (const d of defaults) {
    if (decided.has(d.metricName)) continue;
    decided.add(d.metricName);
    out.push({ metricName: d.metricName, limit: d.limit, enforcement: d.enforcement, source: 'RATE_PLAN', ratePlanId: d.ratePlanId });
  }
  return out;
}

/**
 * The limits that apply to a subscription now. The defaults are those of its offering's rate plans
 * as they are now (cached per node, cleared on every node by each catalog change), not of its
 * period's price version: limits are not prices, so a plan's new limits apply at the next check.
 */
export async function usageLimitsOf(
  deps: Deps,
  tenant: Tenant,
  sub: { offeringId: string | null; usageLimits: readonly UsageLimitOverride[] },
): Promise<EffectiveUsageLimit[]> {
  const priced = sub.offeringId === null ? null : await loadPricedOffering(deps, tenant, sub.offeringId);
  return effectiveUsageLimits(sub.usageLimits, priced ? defaultUsageLimits(priced.plans) : []);
}

const UsageLimitOverrideSchema = Type.Object(
  {
    metricName: LimitMetricName,
    limit: Type.Union([LimitUnits, Type.Null()], { description: 'Units per billing period; null: no limit on this metric, whatever the rate plan says.' }),
    enforcement: Type.Optional(
      Type.Union(
        enforcements.map((e) => Type.Literal(e)),
        {
          description:
            'Required with a limit, left out with null. BLOCK: entitlement checks answer allowed=false once used up. ALERT: allowed, and one WARN audit event per period when crossed.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const UsageLimitOverrides = Type.Array(UsageLimitOverrideSchema, {
  maxItems: MAX_USAGE_LIMITS,
  description:
    "The subscription's own per-period limits, at most one per metric (any metric of the environment). Each replaces the default its offering's rate plans give that metric; {metricName, limit: null} removes that default. A plan change drops them unless the change sends its own. What applies: GET …/subscriptions/{id}/usage-limits.",
});

export const EffectiveUsageLimitSchema = Type.Object(
  {
    object: Type.Literal('usage_limit'),
    metricName: Type.String({ maxLength: 100 }),
    limit: LimitUnits,
    enforcement: EnforcementSchema,
    source: Type.Union(
      usageLimitSources.map((s) => Type.Literal(s)),
      { description: "SUBSCRIPTION: the subscription's own usageLimits entry; RATE_PLAN: the default of ratePlanId." },
    ),
    ratePlanId: Type.Union([Type.String({ maxLength: 100 }), Type.Null()], { description: 'plan_…: whose default it is; null for SUBSCRIPTION.' }),
  },
  { title: 'EffectiveUsageLimit' },
);

export function presentEffectiveUsageLimit(l: EffectiveUsageLimit): Static<typeof EffectiveUsageLimitSchema> {
  return { object: 'usage_limit', ...l };
}

export type UsageLimitOverrideInput = Static<typeof UsageLimitOverrideSchema>;

/** A request's entries as stored, once checkEntitlementConfig has found each limit's enforcement. */
export function toUsageLimitOverrides(input: readonly UsageLimitOverrideInput[]): UsageLimitOverride[] {
  return input.map((l) =>
    l.limit === null ? { metricName: l.metricName, limit: null } : { metricName: l.metricName, limit: l.limit, enforcement: l.enforcement! },
  );
}
