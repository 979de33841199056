import type { Kysely } from 'kysely';

/**
 * Our customers at a payment provider (issue 39): the provider's customer id (Stripe: cus_… in
 * Stripe's namespace), made the first time it is needed, and the default payment method as it may
 * be shown (brand, last four, expiry), kept from the provider's webhooks.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('provider_customers')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('provider_customer_id', 'text', (c) => c.notNull())
    .addColumn('payment_method', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('provider_customers_pk', ['workspace_id', 'environment', 'provider', 'customer_id'])
    .execute();
  await db.schema
    .createIndex('provider_customers_by_provider_id')
    .on('provider_customers')
    .columns(['workspace_id', 'environment', 'provider', 'provider_customer_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('provider_customers').ifExists().execute();
}
