import type { Kysely } from 'kysely';

/**
 * Payments against invoices (issue 39): one row per payment or attempt, whoever moved the money.
 * A manual payment (recorded by an operator: a bank transfer, a cheque) is written succeeded;
 * provider attempts will be written before the provider is called, with the idempotency key it
 * receives. Amounts are decimal text in the invoice's currency, never floats.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('reference', 'text')
    .addColumn('paid_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payments_invoice').on('payments').columns(['workspace_id', 'environment', 'invoice_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payments').ifExists().execute();
}
