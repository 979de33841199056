import { sql, type Kysely, type RawBuilder } from 'kysely';
import { isPostgres } from '../database.js';
import { reportMigrationProgress } from '../migration-progress.js';
import { decimalAdd } from '../../lib/money.js';

/**
 * A total row per (customer, metric, month) in usage_aggregates, and an index on each tenant's
 * events by time.
 *
 * usage_aggregates holds a row per rating dimension, so a customer sending 9,000 distinct
 * `endpoint` values had 9,000 rows a month that every entitlement check read and summed. From
 * here on the row whose dimension is '' holds the total over every dimension (it held the events
 * without one); the other rows keep their dimension's share, and what events without a dimension
 * add is the total less those shares. Ingestion writes no more rows than before for events
 * without a dimension, the common case (a separate totals table cost a quarter of the ingestion
 * rate: bench/README.md, issue 14). Two partial indexes list the total rows by customer and by
 * month, so a check reads one row per metric and month, whatever the dimensions. Existing total
 * rows are filled in here from their dimension rows.
 *
 * usage_events gets its first secondary index, (tenant, occurred_at, customer_id): a groupBy report
 * reads its tenant's months through it instead of scanning every tenant's events, and billing can
 * read a customer's events of a time range the same way (customer_id is in the index, so other
 * customers' entries are skipped without reading their rows). Events arrive close to time order,
 * so new entries land at the end of their tenant's range. An index led by the customer would let
 * a report read one customer alone, but each commit then writes a page per customer in it:
 * ingestion lost two thirds of its rate. PostgreSQL's index carries seq, the key reads page by.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await foldDimensionsIntoTotals(db, 'add');
  const totalsIndex = (name: string, columns: string[]) =>
    db.schema
      .createIndex(name)
      .on('usage_aggregates')
      .columns(['workspace_id', 'environment', ...columns])
      .where(sql.ref('dimension'), '=', '')
      .execute();
  // A customer's totals (entitlement checks, invoices), and a tenant's months in report order.
  await totalsIndex('usage_aggregates_total_customer', ['customer_id', 'period_start', 'metric_name']);
  await totalsIndex('usage_aggregates_total_month', ['period_start', 'customer_id', 'metric_name']);

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

/** Back to rows of events without a dimension under ''. */
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('usage_events_tenant_time').ifExists().execute();
  await db.schema.dropIndex('usage_aggregates_total_month').ifExists().execute();
  await db.schema.dropIndex('usage_aggregates_total_customer').ifExists().execute();
  await foldDimensionsIntoTotals(db, 'subtract');
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

/** One (customer, metric, month): its '' row as read, and the sum of its dimension rows. */
interface Group {
  first: AggregateRow;
  total: AggregateRow | null;
  sum: string;
  count: number;
  updatedAt: number;
}

const BATCH = 5000;

/**
 * Adds each group's dimension rows into its '' row (creating it), or subtracts them back out
 * (deleting a '' row left with no events), a batch of rows at a time in key order, so a large
 * table reports progress. The rows of a group are adjacent, '' first; a group whose rows span two
 * batches is carried into the next one and written once complete.
 */
async function foldDimensionsIntoTotals(db: Kysely<any>, direction: 'add' | 'subtract'): Promise<void> {
  const { rows: counted } = await sql<{ n: number | string }>`select count(*) as n from usage_aggregates`.execute(db);
  const progress = reportMigrationProgress('0009_usage_totals', 'usage aggregate rows summed', Number(counted[0]?.n ?? 0));
  const sameGroup = (a: AggregateRow, b: AggregateRow) =>
    a.workspaceId === b.workspaceId &&
    a.environment === b.environment &&
    a.customerId === b.customerId &&
    Number(a.periodStart) === Number(b.periodStart) &&
    a.metricName === b.metricName;
  let after: AggregateRow | null = null;
  let group: Group | null = null;
  let done = 0;
  for (;;) {
    const keyAfter: RawBuilder<unknown> = after
      ? sql`where (workspace_id, environment, customer_id, period_start, metric_name, dimension) >
          (${after.workspaceId}, ${after.environment}, ${after.customerId}, ${Number(after.periodStart)}, ${after.metricName}, ${after.dimension})`
      : sql``;
    const { rows }: { rows: AggregateRow[] } =
      await sql<AggregateRow>`select workspace_id, environment, customer_id, period_start, metric_name, dimension, quantity_sum, event_count, updated_at
      from usage_aggregates ${keyAfter}
      order by workspace_id, environment, customer_id, period_start, metric_name, dimension limit ${BATCH}`.execute(db);
    const complete: Group[] = [];
    for (const r of rows) {
      if (!group || !sameGroup(group.first, r)) {
        if (group) complete.push(group);
        group = { first: r, total: null, sum: '0', count: 0, updatedAt: 0 };
      }
      if (r.dimension === '') {
        group.total = r;
      } else {
        group.sum = decimalAdd(group.sum, r.quantitySum);
        group.count += Number(r.eventCount);
        group.updatedAt = Math.max(group.updatedAt, Number(r.updatedAt));
      }
    }
    const last = rows.length < BATCH;
    if (last && group) complete.push(group);
    for (const g of complete) await writeTotal(db, g, direction);
    done += rows.length;
    progress(done);
    if (last) return;
    after = rows[rows.length - 1]!;
  }
}

async function writeTotal(db: Kysely<any>, g: Group, direction: 'add' | 'subtract'): Promise<void> {
  if (g.count === 0) return; // no dimension rows: the '' row is already the total
  const key = {
    workspaceId: g.first.workspaceId,
    environment: g.first.environment,
    customerId: g.first.customerId,
    periodStart: Number(g.first.periodStart),
    metricName: g.first.metricName,
    dimension: '',
  };
  const where = (qb: any) => Object.entries(key).reduce((q, [column, value]) => q.where(column, '=', value), qb);
  if (direction === 'subtract') {
    if (!g.total) return;
    const count = Number(g.total.eventCount) - g.count;
    if (count <= 0) await where(db.deleteFrom('usage_aggregates')).execute();
    else await where(db.updateTable('usage_aggregates').set({ quantitySum: decimalAdd(g.total.quantitySum, negate(g.sum)), eventCount: count })).execute();
    return;
  }
  if (!g.total) {
    await db
      .insertInto('usage_aggregates')
      .values({ ...key, quantitySum: g.sum, eventCount: g.count, updatedAt: g.updatedAt })
      .execute();
    return;
  }
  await where(
    db.updateTable('usage_aggregates').set({
      quantitySum: decimalAdd(g.total.quantitySum, g.sum),
      eventCount: Number(g.total.eventCount) + g.count,
      updatedAt: Math.max(Number(g.total.updatedAt), g.updatedAt),
    }),
  ).execute();
}

const negate = (text: string) => (text.startsWith('-') ? text.slice(1) : text === '0' ? text : `-${text}`);
