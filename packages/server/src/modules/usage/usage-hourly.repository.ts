import { sql } from 'kysely';
import type { Db, DialectName } from '../../db/database.js';
import { runStatement, statementText } from '../../db/statement-text.js';
import { forTenant } from '../../db/tenant-scope.js';
import { Decimal } from '../../lib/money.js';
import type { Tenant } from '../../lib/tenant.js';
import type { TotalPart } from './period-total-parts.js';
import { TOTAL } from './rating-dimension.js';

/**
 * Sums of usage_hourly and of the monthly total rows of usage_aggregates (both written by
 * addToAggregates in usage.repository.ts, in the same transaction). Sums over a range of hours or
 * months are computed by the database, so a period returns a row per metric (and per dimension
 * share) and part, not a row per hour, and stay exact on both databases (see hourlySum).
 */

export interface HourlySum {
  metricName: string;
  /** A rating dimension's key (never TOTAL). */
  dimension: string;
  /** Exact decimal text. */
  quantity: string;
  events: number;
}

interface SumRow {
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

/** The SQL expressions of a sum's columns (constant text: no value is ever spliced into them). */
interface SumColumns {
  high: string;
  low: string;
  other: string;
  inexact: string;
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
function hourlySum(dialect: DialectName, form: SumForm): SumColumns {
  const none = { low: 'null', other: 'null', inexact: 'null' };
  if (dialect === 'postgres') return { ...none, high: 'sum(quantity_sum::numeric)::text' };
  const split = (x: string) => ({ high: `cast(sum(${x} / ${BILLION}) as text)`, low: `cast(sum(${x} % ${BILLION}) as text)` });
  if (form === 'fast') return { ...none, ...split('cast(quantity_sum as integer)'), inexact: "max(length(quantity_sum) > 18 or instr(quantity_sum, '.') > 0)" };
  const isInteger = 'cast(cast(quantity_sum as integer) as text) = quantity_sum';
  return {
    ...none,
    ...split(`case when ${isInteger} then cast(quantity_sum as integer) end`),
    other: `group_concat(case when ${isInteger} then null else quantity_sum end, ' ')`,
  };
}

type SumForm = 'fast' | 'exact';

function exactSum(r: SumRow): { quantity: string; events: number } {
  let total = new Decimal(r.high ?? 0);
  if (r.low !== null) total = total.times(BILLION).plus(r.low);
  if (r.other) for (const x of r.other.split(' ')) total = total.plus(x);
  return { quantity: total.toFixed(), events: Number(r.events) };
}

/** Runs a sum query in its fast form, and again in its exact form when a sum needs it. */
async function sumRows<R extends SumRow>(dialect: DialectName, query: (s: SumColumns, form: SumForm) => Promise<R[]>): Promise<R[]> {
  const rows = await query(hourlySum(dialect, 'fast'), 'fast');
  return rows.some((r) => Number(r.inexact) === 1) ? query(hourlySum(dialect, 'exact'), 'exact') : rows;
}

/** The sum's columns for a Kysely select. */
const sumColumns = (s: SumColumns) =>
  [
    sql.raw<string | null>(s.high).as('high'),
    sql.raw<string | null>(s.low).as('low'),
    sql.raw<string | null>(s.other).as('other'),
    sql.raw<number | null>(s.inexact).as('inexact'),
    sql<number>`sum(event_count)`.as('events'),
  ] as const;

/** The same columns as statement text (db/statement-text.ts). */
const sumColumnsText = (s: SumColumns) => `${s.high} as high, ${s.low} as low, ${s.other} as other, ${s.inexact} as inexact, sum(event_count) as events`;

// A literal, not a parameter: the partial index of the total rows serves only queries whose
// condition implies its own, and SQLite plans a bound value again at every execution to check it.
const TOTAL_LITERAL = `'${TOTAL}'`;

export interface PartSum {
  /** The index of its part in the plan. */
  part: number;
  metricName: string;
  /** Exact decimal text. */
  quantity: string;
  events: number;
}

/**
 * A customer's total per metric in each part of a plan (planTotalParts), in one statement: a
 * snapshot on PostgreSQL and one round trip. Month parts read the partial index of the monthly
 * total rows (a row per metric and month), hour parts the partial index of the hourly total rows
 * alone (it carries the sums and counts). Signs are the caller's to apply.
 */
export async function sumTotalParts(db: Db, dialect: DialectName, tenant: Tenant, customerId: string, parts: readonly TotalPart[]): Promise<PartSum[]> {
  if (parts.length === 0) return [];
  // Every entitlement check that is not answered from the cache runs this: text made once per
  // shape (the parts' sources in order: a period has a few), not built with Kysely each time.
  const shape = parts.map((p) => (p.source === 'hours' ? 'h' : 'm')).join('');
  const values: unknown[] = [];
  for (const p of parts) values.push(tenant.workspaceId, tenant.environment, customerId, p.from, p.to);
  const rows = await sumRows(dialect, (s, form) => {
    const text = statementText(`usage.total-parts ${dialect} ${form} ${shape}`, () =>
      parts
        .map((p, i) =>
          p.source === 'hours'
            ? `select metric_name, ${i} as part, ${sumColumnsText(s)} from usage_hourly where workspace_id = ? and environment = ? and customer_id = ? and dimension = ${TOTAL_LITERAL} and hour_start >= ? and hour_start < ? group by metric_name`
            : `select metric_name, ${i} as part, ${sumColumnsText(s)} from usage_aggregates where workspace_id = ? and environment = ? and customer_id = ? and dimension = ${TOTAL_LITERAL} and period_start >= ? and period_start < ? group by metric_name`,
        )
        .join(' union all '),
    );
    return runStatement<SumRow & { part: number | string; metricName: string }>(db, text, values);
  });
  return rows.map((r) => ({ part: Number(r.part), metricName: r.metricName, ...exactSum(r) }));
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
  const rows = await sumRows(dialect, (s) =>
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
  return rows.map((r) => ({ metricName: r.metricName, dimension: r.dimension, ...exactSum(r) }));
}

/** The UTC hours in [fromHour, toHour) in which the customer has any usage, ascending (from the total rows). */
export async function hoursWithUsage(db: Db, tenant: Tenant, customerId: string, fromHour: number, toHour: number): Promise<number[]> {
  if (toHour <= fromHour) return [];
  const rows = await db
    .selectFrom('usageHourly')
    .$call(forTenant(tenant))
    .where('customerId', '=', customerId)
    .where('hourStart', '>=', fromHour)
    .where('hourStart', '<', toHour)
    .where('dimension', '=', sql.lit(TOTAL))
    .select('hourStart')
    .distinct()
    .orderBy('hourStart')
    .execute();
  return rows.map((r) => Number(r.hourStart));
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
  // A period has at most two edges (periodParts): text made once per count.
  const text = statementText(
    `usage.hour-counts ${hours.length}`,
    () =>
      `select hour_start, metric_name, event_count from usage_hourly where workspace_id = ? and environment = ? and customer_id = ? and dimension = ${TOTAL_LITERAL} and hour_start in (${hours.map(() => '?').join(', ')})`,
  );
  const rows = await runStatement<{ hourStart: number | string; metricName: string; eventCount: number | string }>(db, text, [
    tenant.workspaceId,
    tenant.environment,
    customerId,
    ...hours,
  ]);
  return rows.map((r) => ({ hourStart: Number(r.hourStart), metricName: r.metricName, events: Number(r.eventCount) }));
}

export interface DaySum {
  /** Epoch ms of the UTC day's start. */
  dayStart: number;
  metricName: string;
  /** Exact decimal text. */
  quantity: string;
  events: number;
}

const DAY_MS = 86_400_000;

/**
 * Totals per UTC day and metric over the hours starting in [fromHour, toHour), of one customer or
 * of every customer of the tenant, from the hourly total rows: what the console and the developer
 * hub chart. One statement; days and metrics without usage have no row.
 */
export async function sumDailyTotals(
  db: Db,
  dialect: DialectName,
  tenant: Tenant,
  range: { fromHour: number; toHour: number; customerId?: string; metricName?: string },
): Promise<DaySum[]> {
  if (range.toHour <= range.fromHour) return [];
  const day = sql<number>`(hour_start - (hour_start % ${sql.lit(DAY_MS)}))`;
  const rows = await sumRows(dialect, (s) =>
    db
      .selectFrom('usageHourly')
      .$call(forTenant(tenant))
      .$if(range.customerId !== undefined, (q) => q.where('customerId', '=', range.customerId as string))
      .$if(range.metricName !== undefined, (q) => q.where('metricName', '=', range.metricName as string))
      .where('dimension', '=', sql.lit(TOTAL))
      .where('hourStart', '>=', range.fromHour)
      .where('hourStart', '<', range.toHour)
      .select([day.as('dayStart'), 'metricName', ...sumColumns(s)])
      .groupBy([day, 'metricName'])
      .orderBy(day)
      .orderBy('metricName')
      .execute(),
  );
  return rows.map((r) => ({ dayStart: Number(r.dayStart), metricName: r.metricName, ...exactSum(r) }));
}
