import type { Kysely } from 'kysely';

/**
 * Refunds and customer balances (issue 39, item 7).
 * - refunds: what a credit note on a paid invoice gives back, one row per payment it is taken
 *   from (a refund through the provider, or recorded out of band) or one row credited to the
 *   customer's balance. A provider refund is written `pending` with its idempotency key before the
 *   provider is called, outside the credit note's transaction, so a crash or a timeout leaves a
 *   row the reconciliation sends again under the same key: never a second refund.
 * - customer_balances: money the customer may spend on their next invoices, per currency, as
 *   decimal text; one row per (customer, currency), held while it changes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('refunds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('credit_note_id', 'text', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text')
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('provider_reference', 'text')
    .addColumn('failure_code', 'text')
    .addColumn('failure_message', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('refunds_by_invoice').on('refunds').columns(['workspace_id', 'environment', 'invoice_id']).execute();
  await db.schema.createIndex('refunds_by_credit_note').on('refunds').columns(['workspace_id', 'environment', 'credit_note_id']).execute();
  // Reconciliation: pending provider refunds, across tenants.
  await db.schema.createIndex('refunds_unsettled').on('refunds').columns(['status', 'updated_at']).execute();

  await db.schema
    .createTable('customer_balances')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('balance', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('customer_balances_pk', ['workspace_id', 'environment', 'customer_id', 'currency'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('customer_balances').ifExists().execute();
  await db.schema.dropTable('refunds').ifExists().execute();
}
