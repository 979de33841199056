import { sql, type RawBuilder } from 'kysely';
import type { Db, DialectName } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { Decimal } from '../../lib/money.js';
import type { Tenant } from '../../lib/tenant.js';
import { TOTAL } from './rating-dimension.js';

/**
 * Reads of usage_hourly (written by addToAggregates in usage.repository.ts). Sums over a range of
 * hours are computed by the database, so a period of a month returns a row per metric (and per
 * dimension share), not a row per hour, and stay exact on both databases (see hourlySum).
 */

export interface HourlySum {
  metricName: string;
  /** TOTAL ('') for a metric's total, else a rating dimension's share. */
  dimension: string;
  /** Exact decimal text. */
  quantity: string;
  events: number;
}

interface SumRow {
  metricName: string;
  dimension: string;
  /** PostgreSQL: the exact sum. SQLite: the sum of the integer sums' high parts (below), as text. */
  high: string | null;
  low: string | null;
  /** SQLite, exact form: the sums that are not integers (or do not fit 64 bits), space-separated. */
  other: string | null;
  /** SQLite, fast form: 1 when a sum was not an integer of at most 18 digits (read again, exactly). */
  inexact: number | null;
  events: number | string;
}

const BILLION = 1_000_000_000;

interface SumColumns {
  high: RawBuilder<string | null>;
  low: RawBuilder<string | null>;
  other: RawBuilder<string | null>;
  inexact: RawBuilder<number | null>;
}

/**
 * The exact sum of quantity_sum over the rows of a group. PostgreSQL: numeric. SQLite has no
 * decimal type, so sums are added natively as 64-bit integers, split at 10^9 so that no sum can
 * overflow (each part of each row is below 10^10; a group would need 10^9 rows). The fast form
 * assumes every sum is an integer of at most 18 digits (which casts exactly) and says whether one
 * was not; only then is the exact form read, which adds the integer-valued ones the same way
 * (`cast(cast(x as integer) as text) = x` holds exactly for the canonical text of a 64-bit
 * integer, as sums are stored) and returns the others as text, added in JS with Decimal.
 */
function hourlySum(dialect: DialectName, form: 'fast' | 'exact'): SumColumns {
  const none = { low: sql<null>`null`, other: sql<null>`null`, inexact: sql<null>`null` };
  if (dialect === 'postgres') return { ...none, high: sql<string>`sum(quantity_sum::numeric)::text` };
  const split = (x: RawBuilder<unknown>) => ({
    high: sql<string | null>`cast(sum(${x} / ${sql.lit(BILLION)}) as text)`,
    low: sql<string | null>`cast(sum(${x} % ${sql.lit(BILLION)}) as text)`,
  });
  if (form === 'fast')
    return { ...none, ...split(sql`cast(quantity_sum as integer)`), inexact: sql<number>`max(length(quantity_sum) > 18 or instr(quantity_sum, '.') > 0)` };
  const isInteger = sql`cast(cast(quantity_sum as integer) as text) = quantity_sum`;
  return {
    ...none,
    ...split(sql`case when ${isInteger} then cast(quantity_sum as integer) end`),
    other: sql<string | null>`group_concat(case when ${isInteger} then null else quantity_sum end, ' ')`,
  };
}

function toSum(r: SumRow): HourlySum {
  let total = new Decimal(r.high ?? 0);
  if (r.low !== null) total = total.times(BILLION).plus(r.low);
  if (r.other) for (const x of r.other.split(' ')) total = total.plus(x);
  return { metricName: r.metricName, dimension: r.dimension, quantity: total.toFixed(), events: Number(r.events) };
}

/** Runs a sum query in its fast form, and again in its exact form when a sum needs it. */
async function sumRows(dialect: DialectName, query: (s: SumColumns) => Promise<SumRow[]>): Promise<HourlySum[]> {
  let rows = await query(hourlySum(dialect, 'fast'));
  if (rows.some((r) => Number(r.inexact) === 1)) rows = await query(hourlySum(dialect, 'exact'));
  return rows.map(toSum);
}

const sumColumns = (s: SumColumns) =>
  [s.high.as('high'), s.low.as('low'), s.other.as('other'), s.inexact.as('inexact'), sql<number>`sum(event_count)`.as('events')] as const;

// A literal, not a parameter: the partial index of the total rows serves only queries whose
// condition implies its own, and SQLite plans a bound value again at every execution to check it.
const totalRows = (db: Db, tenant: Tenant, customerId: string) =>
  db.selectFrom('usageHourly').$call(forTenant(tenant)).where('customerId', '=', customerId).where('dimension', '=', sql.lit(TOTAL));

/**
 * A customer's total per metric over the hours starting in [fromHour, toHour): a row per metric,
 * read from the partial index of the total rows alone (it carries the sums and counts).
 */
export async function sumHourlyTotals(
  db: Db,
  dialect: DialectName,
  tenant: Tenant,
  customerId: string,
  fromHour: number,
  toHour: number,
): Promise<HourlySum[]> {
  if (toHour <= fromHour) return [];
  return sumRows(dialect, (s) =>
    totalRows(db, tenant, customerId)
      .where('hourStart', '>=', fromHour)
      .where('hourStart', '<', toHour)
      .select(['metricName', 'dimension', ...sumColumns(s)])
      .groupBy(['metricName', 'dimension'])
      .execute(),
  );
}

/**
 * A customer's dimension shares of some metrics over the hours starting in [fromHour, toHour): a
 * row per (metric, dimension), each metric a range of the primary key. A row per distinct (status,
 * tool, endpoint), so ask only for the metrics whose pricing uses them.
 */
export async function sumHourlyShares(
  db: Db,
  dialect: DialectName,
  tenant: Tenant,
  customerId: string,
  fromHour: number,
  toHour: number,
  metricNames: readonly string[],
): Promise<HourlySum[]> {
  if (toHour <= fromHour || metricNames.length === 0) return [];
  return sumRows(dialect, (s) =>
    db
      .selectFrom('usageHourly')
      .$call(forTenant(tenant))
      .where('customerId', '=', customerId)
      .where('metricName', 'in', metricNames)
      .where('hourStart', '>=', fromHour)
      .where('hourStart', '<', toHour)
      .where('dimension', '<>', sql.lit(TOTAL))
      .select(['metricName', 'dimension', ...sumColumns(s)])
      .groupBy(['metricName', 'dimension'])
      .execute(),
  );
}

export interface HourCount {
  hourStart: number;
  metricName: string;
  events: number;
}

/**
 * The event count of each metric in some of a customer's hours (from the total rows): events are
 * only ever added, so an unchanged count means the hour holds the same events. One index seek per
 * hour, whatever the number of events.
 */
export async function readHourCounts(db: Db, tenant: Tenant, customerId: string, hours: readonly number[]): Promise<HourCount[]> {
  if (hours.length === 0) return [];
  const rows = await totalRows(db, tenant, customerId).where('hourStart', 'in', hours).select(['hourStart', 'metricName', 'eventCount']).execute();
  return rows.map((r) => ({ hourStart: Number(r.hourStart), metricName: r.metricName, events: Number(r.eventCount) }));
}
