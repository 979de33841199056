import { sql, type Kysely, type RawBuilder } from 'kysely';
import { reportMigrationProgress } from '../migration-progress.js';
import { ExactSum } from '../../lib/money.js';
import { dimensionKeyOfStored } from './frozen/rating-dimension-v1.js';

/**
 * usage_hourly: usage per (customer, metric, UTC hour, rating dimension), what rates a period
 * that starts at any instant (anniversary billing). A period is its whole hours, summed in SQL
 * from these rows, and at most two partial hours read from one customer's raw events.
 *
 * As in usage_aggregates since 0009, the row whose dimension is '' holds the total over every
 * dimension and the other rows their dimension's share. The primary key leads with (customer,
 * metric, hour): the upsert's key, and what the dimension shares of one metric over a range of
 * hours read. The totals of every metric of a customer over a range of hours (each entitlement
 * check) read a partial index of the total rows alone, which carries the count and the sum, so
 * that read touches the index only, a few thousand entries for a month at most, whatever the
 * number of distinct dimensions.
 *
 * It is filled here from usage_events, read in the order of their (tenant, occurred_at) index:
 * every group of a tenant's hour is then complete before the next hour starts, and is inserted
 * once. The rating dimension comes from the stored metadata (a frozen copy of the key).
 *
 * Rating now reads hourly rows only, so usage_aggregates loses its dimension rows: it keeps the
 * monthly total rows, which the usage report reads (its groupBy reads raw events). down() puts
 * the monthly dimension rows back from the hourly ones and drops the table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('usage_hourly')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('metric_name', 'text', (c) => c.notNull())
    .addColumn('hour_start', 'bigint', (c) => c.notNull())
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('quantity_sum', 'text', (c) => c.notNull())
    .addColumn('event_count', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_hourly_pk', ['workspace_id', 'environment', 'customer_id', 'metric_name', 'hour_start', 'dimension'])
    .execute();
  await db.schema
    .createIndex('usage_hourly_total')
    .on('usage_hourly')
    .columns(['workspace_id', 'environment', 'customer_id', 'hour_start', 'metric_name', 'event_count', 'quantity_sum'])
    .where(sql.ref('dimension'), '=', '')
    .execute();
  await backfill(db);
  await sql`delete from usage_aggregates where dimension <> ''`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await monthlyDimensionRowsFromHourly(db);
  await db.schema.dropTable('usage_hourly').execute();
}

const HOUR = 3_600_000;
const BATCH = 5000;
const ROWS_PER_INSERT = 500;

interface EventRow {
  seq: number | string;
  workspaceId: string;
  environment: string;
  occurredAt: number | string;
  customerId: string;
  metricName: string;
  quantity: string;
  metadata: string | null;
  receivedAt: number | string;
}

interface Group {
  customerId: string;
  metricName: string;
  dimension: string;
  sum: ExactSum;
  count: number;
  updatedAt: number;
}

type Row = {
  workspaceId: string;
  environment: string;
  customerId: string;
  metricName: string;
  dimension: string;
  quantitySum: string;
  eventCount: number;
  updatedAt: number;
};

async function insertRows(db: Kysely<any>, table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT)
    await db
      .insertInto(table)
      .values(rows.slice(i, i + ROWS_PER_INSERT))
      .execute();
}

/** Every event once, in (tenant, occurred_at, customer_id, seq) order: one tenant's hour at a time. */
async function backfill(db: Kysely<any>): Promise<void> {
  const { rows: counted } = await sql<{ n: number | string }>`select count(*) as n from usage_events`.execute(db);
  const progress = reportMigrationProgress('0010_usage_hourly', 'usage events summed by hour', Number(counted[0]?.n ?? 0));
  let after: EventRow | null = null;
  let hour: { workspaceId: string; environment: string; start: number } | null = null;
  let groups = new Map<string, Group>();
  let done = 0;
  const add = (key: string, e: EventRow, dimension: string) => {
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { customerId: e.customerId, metricName: e.metricName, dimension, sum: new ExactSum(), count: 0, updatedAt: 0 }));
    g.sum.add(e.quantity);
    g.count += 1;
    g.updatedAt = Math.max(g.updatedAt, Number(e.receivedAt));
  };
  const flush = async () => {
    if (!hour) return;
    const h = hour;
    const rows = [...groups.values()].map((g) => ({
      workspaceId: h.workspaceId,
      environment: h.environment,
      customerId: g.customerId,
      metricName: g.metricName,
      hourStart: h.start,
      dimension: g.dimension,
      quantitySum: g.sum.text(),
      eventCount: g.count,
      updatedAt: g.updatedAt,
    }));
    await insertRows(db, 'usage_hourly', rows);
    groups = new Map();
  };
  for (;;) {
    // The tenant time index (0009) serves this order on both databases (on SQLite its entries end
    // with the rowid, which seq is).
    const position: RawBuilder<unknown> = after
      ? sql`where (workspace_id, environment, occurred_at, customer_id, seq) >
          (${after.workspaceId}, ${after.environment}, ${Number(after.occurredAt)}, ${after.customerId}, ${Number(after.seq)})`
      : sql``;
    const { rows }: { rows: EventRow[] } =
      await sql<EventRow>`select seq, workspace_id, environment, occurred_at, customer_id, metric_name, quantity, metadata, received_at
      from usage_events ${position}
      order by workspace_id, environment, occurred_at, customer_id, seq limit ${BATCH}`.execute(db);
    for (const e of rows) {
      const start = Math.floor(Number(e.occurredAt) / HOUR) * HOUR;
      if (!hour || hour.workspaceId !== e.workspaceId || hour.environment !== e.environment || hour.start !== start) {
        await flush();
        hour = { workspaceId: e.workspaceId, environment: e.environment, start };
      }
      const group = `${e.customerId}\u0000${e.metricName}\u0000`;
      add(group, e, '');
      const dimension = dimensionKeyOfStored(e.metadata);
      if (dimension !== '') add(group + dimension, e, dimension);
    }
    done += rows.length;
    progress(done);
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1]!;
  }
  await flush();
}

const monthOf = (t: number) => {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};

/**
 * The monthly dimension rows of usage_aggregates (as 0009 left them) from the hourly ones: in key
 * order a (customer, metric)'s hours are adjacent, so each month's rows are complete when the
 * next month (or metric, customer, tenant) starts.
 */
async function monthlyDimensionRowsFromHourly(db: Kysely<any>): Promise<void> {
  type HourlyRow = Row & { hourStart: number | string };
  let after: HourlyRow | null = null;
  let month: HourlyRow | null = null;
  let monthStart = 0;
  let groups = new Map<string, { first: HourlyRow; sum: ExactSum; count: number; updatedAt: number }>();
  const flush = async () => {
    const rows = [...groups.values()].map((g) => ({
      workspaceId: g.first.workspaceId,
      environment: g.first.environment,
      customerId: g.first.customerId,
      metricName: g.first.metricName,
      periodStart: monthStart,
      dimension: g.first.dimension,
      quantitySum: g.sum.text(),
      eventCount: g.count,
      updatedAt: g.updatedAt,
    }));
    await insertRows(db, 'usage_aggregates', rows);
    groups = new Map();
  };
  for (;;) {
    const position: RawBuilder<unknown> = after
      ? sql`and (workspace_id, environment, customer_id, metric_name, hour_start, dimension) >
          (${after.workspaceId}, ${after.environment}, ${after.customerId}, ${after.metricName}, ${Number(after.hourStart)}, ${after.dimension})`
      : sql``;
    const { rows }: { rows: HourlyRow[] } =
      await sql<HourlyRow>`select workspace_id, environment, customer_id, metric_name, hour_start, dimension, quantity_sum, event_count, updated_at
      from usage_hourly where dimension <> '' ${position}
      order by workspace_id, environment, customer_id, metric_name, hour_start, dimension limit ${BATCH}`.execute(db);
    for (const r of rows) {
      const m = monthOf(Number(r.hourStart));
      if (
        !month ||
        month.workspaceId !== r.workspaceId ||
        month.environment !== r.environment ||
        month.customerId !== r.customerId ||
        month.metricName !== r.metricName ||
        monthStart !== m
      ) {
        await flush();
        month = r;
        monthStart = m;
      }
      let g = groups.get(r.dimension);
      if (!g) groups.set(r.dimension, (g = { first: r, sum: new ExactSum(), count: 0, updatedAt: 0 }));
      g.sum.add(r.quantitySum);
      g.count += Number(r.eventCount);
      g.updatedAt = Math.max(g.updatedAt, Number(r.updatedAt));
    }
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1]!;
  }
  await flush();
}
