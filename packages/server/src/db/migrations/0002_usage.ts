import type { Kysely } from 'kysely';
import { isPostgres } from '../database.js';

/**
 * Usage events and their per-month aggregates, and the plain per-subscription limits, budget and
 * unit prices that entitlement checks use until the pricing catalog replaces them.
 *
 * usage_events has an integer key and no secondary index: each index costs about as much as the
 * insert itself, and events are read through usage_aggregates, which the same transaction keeps
 * up to date. Quantities and sums are decimal text so that no sum is ever rounded.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('usage_events')
    .addColumn('seq', postgres ? 'bigint' : 'integer', (c) => (postgres ? c.primaryKey().generatedAlwaysAsIdentity() : c.primaryKey()))
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('metric_name', 'text', (c) => c.notNull())
    .addColumn('quantity', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('period_start', 'bigint', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('event_id', 'text')
    .addColumn('metadata', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('usage_aggregates')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('metric_name', 'text', (c) => c.notNull())
    .addColumn('period_start', 'bigint', (c) => c.notNull())
    .addColumn('quantity_sum', 'text', (c) => c.notNull())
    .addColumn('event_count', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_aggregates_pk', ['workspace_id', 'environment', 'customer_id', 'period_start', 'metric_name'])
    .execute();

  await db.schema
    .alterTable('subscriptions')
    .addColumn('currency', 'text', (c) => c.notNull().defaultTo('USD'))
    .execute();
  await db.schema
    .alterTable('subscriptions')
    .addColumn('usage_limits', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema.alterTable('subscriptions').addColumn('spend_budget', 'text').execute();
  await db.schema
    .alterTable('subscriptions')
    .addColumn('unit_prices', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_aggregates').ifExists().execute();
  await db.schema.dropTable('usage_events').ifExists().execute();
  for (const c of ['unit_prices', 'spend_budget', 'usage_limits', 'currency']) {
    await db.schema.alterTable('subscriptions').dropColumn(c).execute();
  }
}
