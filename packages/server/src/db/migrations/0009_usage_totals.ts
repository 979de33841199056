import { sql, type Kysely, type RawBuilder } from 'kysely';
import { isPostgres } from '../database.js';
import { reportMigrationProgress } from '../migration-progress.js';
import { decimalAdd } from '../../lib/money.js';

/**
 * Usage totals per (customer, metric, month), and an index on each tenant's events by time.
 *
 * usage_aggregates holds a row per rating dimension, so a customer sending 9,000 distinct
 * `endpoint` values had 9,000 rows a month that every entitlement check read and summed.
 * usage_totals holds one row per (customer, metric, month), kept by ingestion in the same
 * transaction: checks read it, and read dimension rows only for units whose pricing uses them.
 * It is filled here from the existing aggregates.
 *
 * usage_events gets its first secondary index, (tenant, occurred_at, customer_id): a groupBy
 * report reads its tenant's months through it instead of scanning every tenant's events, and
 * billing can read a customer's events of a time range the same way (customer_id is in the index
 * so other customers' entries are skipped without reading their rows). Events arrive close to time
 * order, so new entries land at the end of their tenant's range: measured, ingestion lost about a
 * quarter of its rate with it and the totals. An index led by the customer would let a report read
 * one customer alone, but each commit then writes a page per customer in it: ingestion lost two
 * thirds (bench/README.md, issue 14). PostgreSQL's index carries seq, the key reads page by.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('usage_totals')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('metric_name', 'text', (c) => c.notNull())
    .addColumn('period_start', 'bigint', (c) => c.notNull())
    .addColumn('quantity_sum', 'text', (c) => c.notNull())
    .addColumn('event_count', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_totals_pk', ['workspace_id', 'environment', 'customer_id', 'period_start', 'metric_name'])
    .execute();
  // The report lists a tenant's months in order: month, customer, metric.
  await db.schema
    .createIndex('usage_totals_month')
    .on('usage_totals')
    .columns(['workspace_id', 'environment', 'period_start', 'customer_id', 'metric_name'])
    .execute();
  await backfillTotals(db);

  const { rows } = await sql<{ n: number | string }>`select count(*) as n from usage_events`.execute(db);
  const events = Number(rows[0]?.n ?? 0);
  // One statement: announce it when it will take a while, and say when it is done.
  const progress = reportMigrationProgress('0009_usage_totals', 'usage events indexed', events, events >= 100_000 ? 0 : 5000);
  progress(0);
  await db.schema
    .createIndex('usage_events_tenant_time')
    .on('usage_events')
    .columns(['workspace_id', 'environment', 'occurred_at', 'customer_id', ...(postgres ? ['seq'] : [])])
    .execute();
  progress(events);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('usage_events_tenant_time').ifExists().execute();
  await db.schema.dropTable('usage_totals').ifExists().execute();
}

type AggregateRow = {
  workspaceId: string;
  environment: string;
  customerId: string;
  periodStart: number | string;
  metricName: string;
  dimension: string;
  quantitySum: string;
  eventCount: number | string;
  updatedAt: number | string;
};
type Total = Omit<AggregateRow, 'dimension'>;

const BATCH = 5000;

/**
 * Sums the aggregate rows of each (customer, metric, month) into one total, a batch at a time in
 * key order (the rows of one total are adjacent), so a large table reports progress. A total whose
 * rows span two batches is carried into the next one and written once complete.
 */
async function backfillTotals(db: Kysely<any>): Promise<void> {
  const { rows: counted } = await sql<{ n: number | string }>`select count(*) as n from usage_aggregates`.execute(db);
  const progress = reportMigrationProgress('0009_usage_totals', 'usage aggregate rows summed', Number(counted[0]?.n ?? 0));
  const sameTotal = (a: Total, b: Total) =>
    a.workspaceId === b.workspaceId && a.environment === b.environment && a.customerId === b.customerId && Number(a.periodStart) === Number(b.periodStart) && a.metricName === b.metricName;
  let after: AggregateRow | null = null;
  let pending: Total | null = null;
  let done = 0;
  for (;;) {
    const keyAfter: RawBuilder<unknown> = after
      ? sql`where (workspace_id, environment, customer_id, period_start, metric_name, dimension) >
          (${after.workspaceId}, ${after.environment}, ${after.customerId}, ${Number(after.periodStart)}, ${after.metricName}, ${after.dimension})`
      : sql``;
    const { rows }: { rows: AggregateRow[] } = await sql<AggregateRow>`select workspace_id, environment, customer_id, period_start, metric_name, dimension, quantity_sum, event_count, updated_at
      from usage_aggregates ${keyAfter}
      order by workspace_id, environment, customer_id, period_start, metric_name, dimension limit ${BATCH}`.execute(db);
    const complete: Total[] = [];
    for (const r of rows) {
      if (pending && sameTotal(pending, r)) {
        pending.quantitySum = decimalAdd(pending.quantitySum, r.quantitySum);
        pending.eventCount = Number(pending.eventCount) + Number(r.eventCount);
        pending.updatedAt = Math.max(Number(pending.updatedAt), Number(r.updatedAt));
      } else {
        if (pending) complete.push(pending);
        pending = {
          workspaceId: r.workspaceId,
          environment: r.environment,
          customerId: r.customerId,
          periodStart: Number(r.periodStart),
          metricName: r.metricName,
          quantitySum: r.quantitySum,
          eventCount: Number(r.eventCount),
          updatedAt: Number(r.updatedAt),
        };
      }
    }
    const last = rows.length < BATCH;
    if (last && pending) complete.push(pending);
    // 8 parameters a row: stay inside SQLite's limit of 32,766.
    for (let i = 0; i < complete.length; i += 1000) await db.insertInto('usage_totals').values(complete.slice(i, i + 1000)).execute();
    done += rows.length;
    progress(done);
    if (last) return;
    after = rows[rows.length - 1]!;
  }
}
