import type { Kysely } from 'kysely';

/**
 * How invoices are collected (issue 39), Stripe's two ways: charge_automatically (the payment
 * method on file is charged at finalization) or send_invoice (the buyer pays by a due date,
 * days_until_due after finalization). A workspace's default per environment, and each invoice's
 * own, fixed when it is issued; due_date is set at finalization for send_invoice. Existing
 * settings and invoices read charge_automatically, which charges nothing until a provider is
 * connected.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('billing_settings')
    .addColumn('collection_method', 'text', (c) => c.notNull().defaultTo('charge_automatically'))
    .execute();
  await db.schema
    .alterTable('billing_settings')
    .addColumn('days_until_due', 'integer', (c) => c.notNull().defaultTo(30))
    .execute();
  await db.schema
    .alterTable('invoices')
    .addColumn('collection_method', 'text', (c) => c.notNull().defaultTo('charge_automatically'))
    .execute();
  await db.schema.alterTable('invoices').addColumn('due_date', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoices').dropColumn('due_date').execute();
  await db.schema.alterTable('invoices').dropColumn('collection_method').execute();
  await db.schema.alterTable('billing_settings').dropColumn('days_until_due').execute();
  await db.schema.alterTable('billing_settings').dropColumn('collection_method').execute();
}
