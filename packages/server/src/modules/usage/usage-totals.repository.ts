import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { Tenant } from '../../lib/tenant.js';
import { TOTAL } from './rating-dimension.js';

/**
 * The rows of usage_aggregates, all total rows (dimension TOTAL) since 0010: one per (tenant,
 * customer, metric, month), kept by ingestion in the same transaction. What the usage report
 * without groupBy reads, through two partial indexes of those rows. Rating reads them together
 * with usage_hourly (sumTotalParts in usage-hourly.repository.ts, planned in period-usage.ts).
 */

export interface UsageTotal {
  customerId: string;
  metricName: string;
  periodStart: number;
  /** Exact decimal text. */
  quantitySum: string;
  eventCount: number;
}

const COLUMNS = ['customerId', 'metricName', 'periodStart', 'quantitySum', 'eventCount'] as const;
const toTotal = (r: UsageTotal): UsageTotal => ({ ...r, periodStart: Number(r.periodStart), eventCount: Number(r.eventCount) });
// A literal, not a parameter: the partial indexes serve only queries whose condition implies theirs,
// and a bound value makes SQLite prepare the statement again at every execution to check it.
const totals = (db: Db, tenant: Tenant) => db.selectFrom('usageAggregates').$call(forTenant(tenant)).where('dimension', '=', sql.lit(TOTAL));

export interface TotalsRange {
  /** A month start: the first month reported. */
  from: number;
  /** Months starting before this are reported. */
  to: number;
  customerId?: string;
  metricName?: string;
}

/** Where a page of the report starts: after this (month, customer, metric). */
export type TotalsCursor = readonly [periodStart: number, customerId: string, metricName: string];

/**
 * One page of totals ordered by month, customer and metric, after the cursor: a range of the
 * month index (or of the customer index, for one customer), never more rows than asked for.
 */
export async function listTotals(db: Db, tenant: Tenant, range: TotalsRange, after: TotalsCursor | null, limit: number): Promise<UsageTotal[]> {
  let qb = totals(db, tenant).select(COLUMNS).where('periodStart', '<', range.to);
  // The cursor alone starts the range: SQLite walks an index from a row value only when no other
  // bound on its first column competes (a cursor before the range is ignored).
  if (after && after[0] >= range.from)
    qb = qb.where((eb) => eb(eb.refTuple('periodStart', 'customerId', 'metricName'), '>', eb.tuple(after[0], after[1], after[2])));
  else qb = qb.where('periodStart', '>=', range.from);
  if (range.customerId !== undefined) qb = qb.where('customerId', '=', range.customerId);
  if (range.metricName !== undefined) qb = qb.where('metricName', '=', range.metricName);
  const rows = await qb.orderBy('periodStart').orderBy('customerId').orderBy('metricName').limit(limit).execute();
  return rows.map(toTotal);
}

/** Where a walk over customer-months starts: at or after this (month, customer). */
export interface CustomerMonthCursor {
  periodStart: number;
  customerId: string;
  inclusive: boolean;
}

/** The (month, customer) pairs with usage in the range, in that order, from the cursor on. */
export async function listCustomerMonths(
  db: Db,
  tenant: Tenant,
  range: TotalsRange,
  from: CustomerMonthCursor | null,
  limit: number,
): Promise<Array<{ periodStart: number; customerId: string }>> {
  let qb = totals(db, tenant).select(['periodStart', 'customerId']).distinct().where('periodStart', '<', range.to);
  // As in listTotals: the cursor alone starts the range.
  if (from && from.periodStart >= range.from)
    qb = qb.where((eb) => eb(eb.refTuple('periodStart', 'customerId'), from.inclusive ? '>=' : '>', eb.tuple(from.periodStart, from.customerId)));
  else qb = qb.where('periodStart', '>=', range.from);
  if (range.customerId !== undefined) qb = qb.where('customerId', '=', range.customerId);
  if (range.metricName !== undefined) qb = qb.where('metricName', '=', range.metricName);
  const rows = await qb.orderBy('periodStart').orderBy('customerId').limit(limit).execute();
  return rows.map((r) => ({ periodStart: Number(r.periodStart), customerId: r.customerId }));
}
