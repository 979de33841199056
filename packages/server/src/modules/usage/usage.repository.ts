import { sql } from 'kysely';
import type SQLite from 'better-sqlite3';
import type { Db, DialectName } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { runRows, type RowsStatement } from '../../db/sqlite-statements.js';
import type { Tenant } from '../../lib/tenant.js';
import { parseDottedPath } from '../../lib/dotted-path.js';
import { monthTotals, withTotalRows, type AggregateDelta, type MonthTotalDelta, type ResolvedEvent } from './aggregate-batch.js';
import { TOTAL } from './rating-dimension.js';

/**
 * The usage event table is the one that grows; every read and write of it goes through this file,
 * so its storage can change (partitions, a columnar store) without touching anything else.
 */

const EVENT_COLUMNS = '(workspace_id, environment, customer_id, metric_name, quantity, occurred_at, period_start, received_at, event_id, metadata, source)';

/**
 * Events as the SQLite insert binds them: the batch's tenant, receipt time and source once per
 * statement, seven values per row; 128 rows a statement (896 parameters), far cheaper than 128 calls.
 */
const EVENT_ROWS: RowsStatement<ResolvedEvent> = {
  key: 'usage_events',
  columns: 7,
  maxRows: 128,
  sql: (values) =>
    `insert into usage_events ${EVENT_COLUMNS}
    select @workspaceId, @environment, column1, column2, column3, column4, column5, @receivedAt, column6, column7, @source from (values ${values})`,
  bind: (e, out) => out.push(e.customerId, e.metricName, e.quantityText, e.occurredAt, e.periodStart, e.eventId, e.metadata),
};

/**
 * Appends events. On SQLite prepared multi-row statements run on the raw handle, inside the
 * caller's transaction (Kysely holds the one connection for it); on PostgreSQL one statement
 * inserts the whole batch from arrays. Both are far faster than a generic multi-row insert.
 */
export async function insertEvents(
  db: Db,
  sqlite: SQLite.Database | null,
  tenant: Tenant,
  events: readonly ResolvedEvent[],
  receivedAt: number,
  source: string,
): Promise<void> {
  if (events.length === 0) return;
  if (sqlite) {
    if (!db.isTransaction) throw new Error('insertEvents on SQLite must run inside a transaction');
    runRows(sqlite, EVENT_ROWS, events, { workspaceId: tenant.workspaceId, environment: tenant.environment, receivedAt, source });
    return;
  }
  await sql`insert into usage_events
      (workspace_id, environment, customer_id, metric_name, quantity, occurred_at, period_start, received_at, event_id, metadata, source)
    select ${tenant.workspaceId}, ${tenant.environment}, c, m, q, o, p, ${receivedAt}::bigint, e, md, ${source}
    from unnest(${events.map((e) => e.customerId)}::text[], ${events.map((e) => e.metricName)}::text[],
      ${events.map((e) => e.quantityText)}::text[], ${events.map((e) => e.occurredAt)}::bigint[],
      ${events.map((e) => e.periodStart)}::bigint[], ${events.map((e) => e.eventId)}::text[],
      ${events.map((e) => e.metadata)}::text[]) as t(c, m, q, o, p, e, md)`.execute(db);
}

/** An event's place in the (tenant, occurred_at, customer_id) index, seq breaking ties: where reads resume. */
export interface EventPosition {
  occurredAt: number;
  customerId: string;
  seq: number;
}

export interface GroupedEvent {
  customerId: string;
  metricName: string;
  /** Decimal text, as sent. */
  quantity: string;
  /** The metadata value of the groupBy key as text; null when absent or JSON null. */
  groupValue: string | null;
}

export interface TenantEventRange {
  /** occurred_at from (inclusive) to (exclusive). */
  from: number;
  to: number;
  /** Start after this event (else at `from`). */
  after: EventPosition | null;
}

const POSITION = ['occurredAt', 'customerId', 'seq'] as const;

/** The tenant's events of a time range, after a position, in index order: a range of the time index. */
function eventsInRange(db: Db, tenant: Tenant, r: TenantEventRange, upTo: EventPosition | null = null) {
  const after = r.after;
  // One lower and one upper bound on occurred_at, the tightest: SQLite bounds its walk of the
  // index by one of each, and given two it may take the wider. The row values then drop what
  // lies beyond the positions at those same instants.
  let qb = db
    .selectFrom('usageEvents')
    .$call(forTenant(tenant))
    .where('occurredAt', '>=', after ? after.occurredAt : r.from)
    .where('occurredAt', upTo ? '<=' : '<', upTo ? upTo.occurredAt : r.to);
  if (after) qb = qb.where((eb) => eb(eb.refTuple(...POSITION), '>', eb.tuple(after.occurredAt, after.customerId, after.seq)));
  if (upTo) qb = qb.where((eb) => eb(eb.refTuple(...POSITION), '<=', eb.tuple(upTo.occurredAt, upTo.customerId, upTo.seq)));
  return qb;
}

const toPosition = (r: { occurredAt: number; customerId: string; seq: number }): EventPosition => ({
  occurredAt: Number(r.occurredAt),
  customerId: r.customerId,
  seq: Number(r.seq),
});

/**
 * The position of the `n`-th event of the range, or null when it holds fewer: the end of a read
 * that covers at most `n` of the tenant's events, whoever they belong to. Reads the index alone.
 */
export async function nthEventPosition(db: Db, tenant: Tenant, r: TenantEventRange, n: number): Promise<EventPosition | null> {
  const row = await eventsInRange(db, tenant, r)
    .select(POSITION)
    .orderBy('occurredAt')
    .orderBy('customerId')
    .orderBy('seq')
    .offset(n - 1)
    .limit(1)
    .executeTakeFirst();
  return row ? toPosition(row) : null;
}

/** Only events whose value at `path` (as text, like a group value) is `value`. */
export interface MetadataFilter {
  /** Segments of a dotted path (lib/dotted-path.ts), each matching [A-Za-z0-9_-]{1,40}. */
  path: readonly string[];
  value: string;
}

export interface GroupedEventsRead extends TenantEventRange {
  /** Up to this event, included (else to the end of the range). */
  upTo: EventPosition | null;
  /** Only the customers from `customers[0]` to `customers[1]` (by id), both included. */
  customers: readonly [first: string, last: string];
  metricName?: string;
  /** Segments of the groupBy path (lib/dotted-path.ts); null: no split (groupValue null). */
  groupBy: readonly string[] | null;
  filter?: MetadataFilter | null;
}

/**
 * The metadata value at a path, as text: strings as they are, numbers as the database writes
 * them, booleans 'true'/'false' on both (SQLite's json_extract would give 1 and 0); null when the
 * path finds nothing, JSON null, an object or an array (their JSON text differs between the two
 * databases). A segment only ever names an object key, never an array index, on both: SQLite's
 * quoted label finds nothing in an array, and PostgreSQL's `->` with a text operand neither (its
 * `#>` would take "0" as an index). The segments match [A-Za-z0-9_-], so the SQLite path text holds
 * no quote; both are bound as parameters all the same, never written into the SQL.
 */
function metadataText(dialect: DialectName, path: readonly string[]) {
  if (parseDottedPath(path.join('.')) === null) throw new Error('a metadata path reached SQL without matching DOTTED_PATH_PATTERN');
  if (dialect === 'sqlite') {
    const p = `$${path.map((s) => `."${s}"`).join('')}`;
    return sql<
      string | null
    >`case json_type(metadata, ${p}) when 'true' then 'true' when 'false' then 'false' when 'object' then null when 'array' then null else cast(json_extract(metadata, ${p}) as text) end`;
  }
  // metadata is text: parsed once per row, in a scalar subquery, then walked key by key.
  const walk = path.reduce((acc, s) => sql`${acc} -> ${s}::text`, sql`metadata::jsonb`);
  return sql<
    string | null
  >`(select case jsonb_typeof(v) when 'object' then null when 'array' then null else v #>> '{}' end from (select ${walk} as v) as at_path)`;
}

/**
 * The events of some customers of the tenant between two positions, in index order, with the
 * groupBy path's value (and only those passing the filter): only the tenant's entries of that
 * time range are read, never another tenant's, and the index skips other customers' entries
 * without reading their rows.
 */
export async function readGroupedEvents(db: Db, dialect: DialectName, tenant: Tenant, q: GroupedEventsRead): Promise<GroupedEvent[]> {
  const value = q.groupBy === null ? sql<string | null>`null` : metadataText(dialect, q.groupBy);
  let qb = eventsInRange(db, tenant, q, q.upTo)
    .select(['customerId', 'metricName', 'quantity', value.as('groupValue')])
    .where('customerId', '>=', q.customers[0])
    .where('customerId', '<=', q.customers[1]);
  if (q.metricName !== undefined) qb = qb.where('metricName', '=', q.metricName);
  if (q.filter) qb = qb.where(metadataText(dialect, q.filter.path), '=', q.filter.value);
  return qb.execute();
}

const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The new sum of an aggregate row on SQLite, exact: two sums of at most 15 digits (what nearly
 * every sum is) add as 64-bit integers in SQL, anything else through dec_add (db/database.ts), so
 * the common row costs no call into JavaScript.
 */
const sqliteSum = (table: string) => {
  const [a, b] = [`${table}.quantity_sum`, 'excluded.quantity_sum'];
  return `case when length(${a}) < 16 and length(${b}) < 16 and (${a} || ${b}) not glob '*[^0-9]*'
    then cast(cast(${a} as integer) + cast(${b} as integer) as text) else dec_add(${a}, ${b}) end`;
};

/**
 * The SQLite upsert of a batch's rows into one of the aggregate tables, in the order of its
 * primary key (`conflict`). Each row binds customer, metric, bucket start, dimension, sum and
 * count; the monthly rows, all totals, bind no dimension. `where true`: SQLite needs it to tell an
 * upsert's ON CONFLICT from a join's ON in INSERT … SELECT.
 */
function aggregateUpsert<Row>(table: string, bucket: string, conflict: string, withDimension: boolean, bind: RowsStatement<Row>['bind']): RowsStatement<Row> {
  const c = withDimension ? 'column5, column6' : 'column4, column5';
  return {
    key: table,
    columns: withDimension ? 6 : 5,
    maxRows: 128,
    sql: (values) => `insert into ${table}
        (workspace_id, environment, customer_id, metric_name, ${bucket}, dimension, quantity_sum, event_count, updated_at)
      select @workspaceId, @environment, column1, column2, column3, ${withDimension ? 'column4' : `'${TOTAL}'`}, ${c}, @now from (values ${values}) where true
      on conflict (${conflict}) do update set
        quantity_sum = ${sqliteSum(table)}, event_count = ${table}.event_count + excluded.event_count, updated_at = excluded.updated_at`,
    bind,
  };
}

const MONTH_ROWS = aggregateUpsert<MonthTotalDelta>(
  'usage_aggregates',
  'period_start',
  'workspace_id, environment, customer_id, period_start, metric_name, dimension',
  false,
  (d, out) => out.push(d.customerId, d.metricName, d.periodStart, d.sum, d.count),
);
const HOUR_ROWS = aggregateUpsert<AggregateDelta>(
  'usage_hourly',
  'hour_start',
  'workspace_id, environment, customer_id, metric_name, hour_start, dimension',
  true,
  (d, out) => out.push(d.customerId, d.metricName, d.hourStart, d.dimension, d.sum, d.count),
);

/**
 * Adds a batch's hourly deltas, exactly (decimal, never float), to the monthly total rows of
 * usage_aggregates (what the report reads) and to usage_hourly: each (customer, metric, hour)
 * total row and the share of each rating dimension (withTotalRows), what rating reads. One
 * statement per table (per 128 rows on SQLite), the tenant and time bound once: on SQLite prepared
 * statements on the raw handle, on PostgreSQL from arrays.
 */
export async function addToAggregates(db: Db, sqlite: SQLite.Database | null, tenant: Tenant, deltas: readonly AggregateDelta[], now: number): Promise<void> {
  if (deltas.length === 0) return;
  // Each table in primary-key order, usage_aggregates first: concurrent transactions then lock
  // the same rows in the same order and cannot deadlock (PostgreSQL runs several writer lanes).
  const months = monthTotals(deltas).sort((a, b) => text(a.customerId, b.customerId) || a.periodStart - b.periodStart || text(a.metricName, b.metricName));
  const hours = withTotalRows(deltas).sort(
    (a, b) => text(a.customerId, b.customerId) || text(a.metricName, b.metricName) || a.hourStart - b.hourStart || text(a.dimension, b.dimension),
  );
  const { workspaceId, environment } = tenant;
  if (sqlite) {
    if (!db.isTransaction) throw new Error('addToAggregates on SQLite must run inside a transaction');
    const shared = { workspaceId, environment, now };
    runRows(sqlite, MONTH_ROWS, months, shared);
    runRows(sqlite, HOUR_ROWS, hours, shared);
    return;
  }
  // `with ordinality … order by`: the rows go in (and are locked) in the arrays' sorted order.
  await sql`insert into usage_aggregates
      (workspace_id, environment, customer_id, metric_name, period_start, dimension, quantity_sum, event_count, updated_at)
    select ${workspaceId}, ${environment}, c, m, p, ${TOTAL}, s, n, ${now}::bigint
    from unnest(${months.map((d) => d.customerId)}::text[], ${months.map((d) => d.metricName)}::text[], ${months.map((d) => d.periodStart)}::bigint[],
      ${months.map((d) => d.sum)}::text[], ${months.map((d) => d.count)}::bigint[]) with ordinality as t(c, m, p, s, n, o) order by o
    on conflict (workspace_id, environment, customer_id, period_start, metric_name, dimension) do update set
      quantity_sum = (usage_aggregates.quantity_sum::numeric + excluded.quantity_sum::numeric)::text,
      event_count = usage_aggregates.event_count + excluded.event_count, updated_at = excluded.updated_at`.execute(db);
  await sql`insert into usage_hourly
      (workspace_id, environment, customer_id, metric_name, hour_start, dimension, quantity_sum, event_count, updated_at)
    select ${workspaceId}, ${environment}, c, m, h, d, s, n, ${now}::bigint
    from unnest(${hours.map((d) => d.customerId)}::text[], ${hours.map((d) => d.metricName)}::text[], ${hours.map((d) => d.hourStart)}::bigint[],
      ${hours.map((d) => d.dimension)}::text[], ${hours.map((d) => d.sum)}::text[], ${hours.map((d) => d.count)}::bigint[])
      with ordinality as t(c, m, h, d, s, n, o) order by o
    on conflict (workspace_id, environment, customer_id, metric_name, hour_start, dimension) do update set
      quantity_sum = (usage_hourly.quantity_sum::numeric + excluded.quantity_sum::numeric)::text,
      event_count = usage_hourly.event_count + excluded.event_count, updated_at = excluded.updated_at`.execute(db);
}

export interface StoredEvent {
  metricName: string;
  /** Decimal text, as sent. */
  quantity: string;
  /** JSON text of the metadata, when asked for (else null). */
  metadata: string | null;
}

/**
 * One customer's events in [from, to), through the (tenant, occurred_at, customer_id) index: the
 * tenant's entries of that time range are read, other customers' skipped inside the index. Meant
 * for short ranges (the part of an hour at a billing period's edge).
 */
export async function readCustomerEvents(db: Db, tenant: Tenant, customerId: string, from: number, to: number, withMetadata: boolean): Promise<StoredEvent[]> {
  const qb = db
    .selectFrom('usageEvents')
    .$call(forTenant(tenant))
    .where('occurredAt', '>=', from)
    .where('occurredAt', '<', to)
    .where('customerId', '=', customerId);
  if (withMetadata) return qb.select(['metricName', 'quantity', 'metadata']).execute();
  const rows = await qb.select(['metricName', 'quantity']).execute();
  return rows.map((r) => ({ ...r, metadata: null }));
}
