import type { Db, DialectName } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { Tenant } from '../tenancy/tenant.js';
import type { TotalDelta } from './aggregate-batch.js';
import { addedOnConflict, inKeyOrder, sumRow } from './usage.repository.js';

/**
 * usage_totals: one row per (tenant, customer, metric, month), the sum of that month's aggregate
 * rows over every rating dimension, kept in the same transaction. What entitlement checks, limit
 * alerts and the report read, whatever the number of dimensions.
 */

export interface UsageTotal {
  customerId: string;
  metricName: string;
  periodStart: number;
  /** Exact decimal text. */
  quantitySum: string;
  eventCount: number;
}

/** Adds a batch's totals. Called right after addToAggregates, in the same transaction. */
export async function addToTotals(db: Db, dialect: DialectName, tenant: Tenant, totals: readonly TotalDelta[], now: number): Promise<void> {
  if (totals.length === 0) return;
  // In primary-key order, as the aggregates: on PostgreSQL these rows stay locked until the
  // commit, and every writer takes them in one order, after the aggregate rows, so none deadlocks.
  const ordered = [...totals].sort(inKeyOrder);
  await db
    .insertInto('usageTotals')
    .values(ordered.map((d) => sumRow(tenant, d, now)))
    .onConflict((oc) =>
      oc.columns(['workspaceId', 'environment', 'customerId', 'periodStart', 'metricName']).doUpdateSet({ ...addedOnConflict(dialect, 'usage_totals'), updatedAt: now }),
    )
    .execute();
}

const COLUMNS = ['customerId', 'metricName', 'periodStart', 'quantitySum', 'eventCount'] as const;
const toTotal = (r: UsageTotal): UsageTotal => ({ ...r, periodStart: Number(r.periodStart), eventCount: Number(r.eventCount) });

/** A customer's totals for the given months: one row per metric and month, by primary key. */
export async function readCustomerTotals(db: Db, tenant: Tenant, customerId: string, months: readonly number[]): Promise<UsageTotal[]> {
  if (months.length === 0) return [];
  const rows = await db.selectFrom('usageTotals').select(COLUMNS).$call(forTenant(tenant)).where('customerId', '=', customerId).where('periodStart', 'in', months).execute();
  return rows.map(toTotal);
}

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
 * month index (or of the primary key, for one customer), never more rows than asked for.
 */
export async function listTotals(db: Db, tenant: Tenant, range: TotalsRange, after: TotalsCursor | null, limit: number): Promise<UsageTotal[]> {
  let qb = db.selectFrom('usageTotals').select(COLUMNS).$call(forTenant(tenant)).where('periodStart', '<', range.to);
  // The cursor alone starts the range: SQLite walks an index from a row value only when no other
  // bound on its first column competes (a cursor before the range is ignored).
  if (after && after[0] >= range.from) qb = qb.where((eb) => eb(eb.refTuple('periodStart', 'customerId', 'metricName'), '>', eb.tuple(after[0], after[1], after[2])));
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

/**
 * The (month, customer) pairs with usage in the range, in that order, from the cursor on: what
 * a groupBy report walks, reading one customer's month of events at a time.
 */
export async function listCustomerMonths(
  db: Db,
  tenant: Tenant,
  range: TotalsRange,
  from: CustomerMonthCursor | null,
  limit: number,
): Promise<Array<{ periodStart: number; customerId: string }>> {
  let qb = db.selectFrom('usageTotals').select(['periodStart', 'customerId']).distinct().$call(forTenant(tenant)).where('periodStart', '<', range.to);
  // As in listTotals: the cursor alone starts the range.
  if (from && from.periodStart >= range.from) qb = qb.where((eb) => eb(eb.refTuple('periodStart', 'customerId'), from.inclusive ? '>=' : '>', eb.tuple(from.periodStart, from.customerId)));
  else qb = qb.where('periodStart', '>=', range.from);
  if (range.customerId !== undefined) qb = qb.where('customerId', '=', range.customerId);
  if (range.metricName !== undefined) qb = qb.where('metricName', '=', range.metricName);
  const rows = await qb.orderBy('periodStart').orderBy('customerId').limit(limit).execute();
  return rows.map((r) => ({ periodStart: Number(r.periodStart), customerId: r.customerId }));
}
