import type { Kysely } from 'kysely';

/**
 * Prepaid credits' settings per customer and currency (issue 41): the low-balance alert's
 * threshold and the automatic top-up (threshold, amount, cost, at most so many per period), with
 * the state that makes each fire once per crossing: armed flags, the top-up's generation (the
 * conditional update two nodes race on) and its count in the current period.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('credit_settings')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('low_balance_threshold', 'text')
    .addColumn('top_up_threshold', 'text')
    .addColumn('top_up_amount', 'text')
    .addColumn('top_up_cost', 'text')
    .addColumn('top_up_max_per_period', 'integer')
    .addColumn('low_armed', 'integer', (c) => c.notNull())
    .addColumn('exhausted_armed', 'integer', (c) => c.notNull())
    .addColumn('top_up_armed', 'integer', (c) => c.notNull())
    .addColumn('top_up_generation', 'integer', (c) => c.notNull())
    .addColumn('top_up_period_key', 'text')
    .addColumn('top_ups_in_period', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('credit_settings_pk', ['workspace_id', 'environment', 'customer_id', 'currency'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('credit_settings').ifExists().execute();
}
