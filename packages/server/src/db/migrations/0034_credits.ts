import type { Kysely } from 'kysely';

/**
 * Prepaid credits (issue 41): grants, their ledger, and a balance per customer and currency.
 * - credit_grants: credits a customer may spend (cgr_), optionally on one subscription or some
 *   metrics, from an effective instant to an optional expiry, drawn in the order of
 *   @tollgate/pricing's burn-down. `remaining` is what is left of it: the grant's amount plus its
 *   ledger entries, changed only with them.
 * - credit_ledger_entries: every grant, draw, expiry, void, rollover and top-up (cle_), never
 *   changed, each with the customer's balance in its currency after it. Ids sort by time: the
 *   ledger is paged by id.
 * - credit_balances: the balance after the last entry, per (customer, currency): the row an
 *   append holds (FOR UPDATE on PostgreSQL; SQLite has one writer), so two appends never compute
 *   their balances from the same one.
 * Amounts are decimal text in the currency's minor unit.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('credit_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('remaining', 'text', (c) => c.notNull())
    .addColumn('priority', 'integer', (c) => c.notNull())
    .addColumn('effective_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('subscription_id', 'text')
    .addColumn('metric_names', 'text')
    .addColumn('cost_amount', 'text')
    .addColumn('invoice_id', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('voided_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('credit_grants_by_customer').on('credit_grants').columns(['workspace_id', 'environment', 'customer_id', 'currency']).execute();

  await db.schema
    .createTable('credit_ledger_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('balance_after', 'text', (c) => c.notNull())
    .addColumn('subscription_id', 'text')
    .addColumn('invoice_id', 'text')
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('credit_ledger_by_customer')
    .on('credit_ledger_entries')
    .columns(['workspace_id', 'environment', 'customer_id', 'currency', 'id'])
    .execute();
  await db.schema.createIndex('credit_ledger_by_grant').on('credit_ledger_entries').columns(['workspace_id', 'environment', 'grant_id']).execute();

  await db.schema
    .createTable('credit_balances')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('balance', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('credit_balances_pk', ['workspace_id', 'environment', 'customer_id', 'currency'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('credit_balances').ifExists().execute();
  await db.schema.dropTable('credit_ledger_entries').ifExists().execute();
  await db.schema.dropTable('credit_grants').ifExists().execute();
}
