import { Decimal, type UsageGroup } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import { edgeCacheOf, readPeriodUsage, type Period } from '../usage/period-usage.js';
import { metricsRatedByDimension, usageGroupsOf } from './priced-units.js';
import type { PricedUnit } from './rate-period.js';

export interface RatingUsage {
  /** Raw usage of every metric in the period (no multipliers or weights): what usage limits count. */
  used: Map<string, Decimal>;
  /** What ratePeriod rates: per metric, its groups by rating dimension. */
  usage: Map<string, UsageGroup[]>;
}

/**
 * A customer's usage over exactly [period.start, period.end), ready to rate with `units`: the
 * totals of every metric and, only for the units priced by execution status, tool or endpoint,
 * the share of each dimension (a customer may send thousands of distinct endpoints to a plan that
 * prices none). For the current period (previews, entitlement checks) and closed ones (renewals).
 */
export async function readRatingUsage(deps: Deps, tenant: Tenant, customerId: string, period: Period, units: readonly PricedUnit[]): Promise<RatingUsage> {
  const byDimension = metricsRatedByDimension(units);
  const usage = await readPeriodUsage(deps.db, deps.dialect, edgeCacheOf(deps), tenant, customerId, period, byDimension);
  const used = new Map<string, Decimal>();
  for (const [metricName, m] of usage) used.set(metricName, new Decimal(m.quantity));
  return { used, usage: usageGroupsOf(usage, byDimension) };
}
