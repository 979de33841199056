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

/** Usage already read in a transaction, by customer, period and dimensions (see readUsageOncePer). */
const readIn = new WeakMap<object, Map<string, Promise<RatingUsage>>>();

/**
 * Inside `trx`, a customer's usage of a period is read once: the renewal job closes the periods of
 * many subscriptions of one customer (and, on SQLite, of many customers) in one transaction, and
 * usage cannot change under it there (SQLite has one writer; on PostgreSQL what arrives meanwhile
 * is late usage, billed as an adjustment like any other). What it returns is shared: read only.
 */
export function readUsageOncePer(trx: object): void {
  if (!readIn.has(trx)) readIn.set(trx, new Map());
}

/**
 * A customer's usage over exactly [period.start, period.end), ready to rate with `units`: the
 * totals of every metric and, only for the units priced by execution status, tool or endpoint,
 * the share of each dimension (a customer may send thousands of distinct endpoints to a plan that
 * prices none). For the current period (previews, entitlement checks) and closed ones (renewals).
 */
export function readRatingUsage(deps: Deps, tenant: Tenant, customerId: string, period: Period, units: readonly PricedUnit[]): Promise<RatingUsage> {
  const byDimension = metricsRatedByDimension(units);
  const memo = readIn.get(deps.db);
  if (!memo) return read(deps, tenant, customerId, period, byDimension);
  const key = `${tenant.workspaceId}:${tenant.environment}:${customerId}:${period.start}:${period.end}:${[...byDimension].sort().join(',')}`;
  let usage = memo.get(key);
  if (!usage) {
    usage = read(deps, tenant, customerId, period, byDimension);
    memo.set(key, usage);
  }
  return usage;
}

async function read(deps: Deps, tenant: Tenant, customerId: string, period: Period, byDimension: ReadonlySet<string>): Promise<RatingUsage> {
  const usage = await readPeriodUsage(deps.db, deps.dialect, edgeCacheOf(deps), tenant, customerId, period, byDimension);
  const used = new Map<string, Decimal>();
  for (const [metricName, m] of usage) used.set(metricName, new Decimal(m.quantity));
  return { used, usage: usageGroupsOf(usage, byDimension) };
}
