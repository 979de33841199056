import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../database.js';

/**
 * The pricing catalog (rate plans, offerings, storefronts), storefront keys bound to a
 * storefront, subscriptions to offerings, and usage aggregates split by rating dimension.
 *
 * Rate-plan units, offering plan lists and overrides are JSON text: they are always read and
 * written whole with their parent, and a plan has a handful of units.
 *
 * usage_aggregates gains `dimension` in its primary key: rating needs usage per execution status
 * (OUTCOME_BASED weights), tool and endpoint (multipliers). The key is '' for events without
 * those metadata fields, so most customers keep one row per metric and month. Neither dialect
 * can change a primary key in place, so the table is rebuilt and its rows copied.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  const tenantIndex = async (table: string) => db.schema.createIndex(`${table}_tenant_id`).on(table).columns(['workspace_id', 'environment', 'id']).execute();

  await db.schema
    .createTable('rate_plans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('billing_period', 'text', (c) => c.notNull())
    .addColumn('metrics', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await tenantIndex('rate_plans');

  await db.schema
    .createTable('offerings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('billing_mode', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('entry_price', 'text')
    .addColumn('billing_period', 'text', (c) => c.notNull())
    .addColumn('trial_days', 'integer', (c) => c.notNull())
    .addColumn('rate_plan_ids', 'text', (c) => c.notNull())
    .addColumn('overrides', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await tenantIndex('offerings');

  await db.schema
    .createTable('storefronts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('draft_offering_ids', 'text', (c) => c.notNull())
    .addColumn('published_offering_ids', 'text')
    .addColumn('published_version', 'integer', (c) => c.notNull())
    .addColumn('published_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await tenantIndex('storefronts');

  await db.schema.alterTable('storefront_keys').addColumn('storefront_id', 'text').execute();
  await db.schema.alterTable('subscriptions').addColumn('offering_id', 'text').execute();
  await db.schema.alterTable('subscriptions').addColumn('trial_ends_at', 'bigint').execute();

  await db.schema
    .createTable('usage_aggregates_v3')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('metric_name', 'text', (c) => c.notNull())
    .addColumn('period_start', 'bigint', (c) => c.notNull())
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('quantity_sum', 'text', (c) => c.notNull())
    .addColumn('event_count', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_aggregates_v3_pk', ['workspace_id', 'environment', 'customer_id', 'period_start', 'metric_name', 'dimension'])
    .execute();
  // Existing rows predate dimensions: they count under '' (no status, tool or endpoint).
  await sql`insert into usage_aggregates_v3
      (workspace_id, environment, customer_id, metric_name, period_start, dimension, quantity_sum, event_count, updated_at)
    select workspace_id, environment, customer_id, metric_name, period_start, '', quantity_sum, event_count, updated_at
    from usage_aggregates`.execute(db);
  await db.schema.dropTable('usage_aggregates').execute();
  await db.schema.alterTable('usage_aggregates_v3').renameTo('usage_aggregates').execute();
  if (postgres) await sql`alter table usage_aggregates rename constraint usage_aggregates_v3_pk to usage_aggregates_pk`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['storefronts', 'offerings', 'rate_plans']) await db.schema.dropTable(t).ifExists().execute();
}
