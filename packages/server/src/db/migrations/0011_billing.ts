import { sql, type Kysely } from 'kysely';

/**
 * Billing: subscription schedules, issued invoices, credit notes, their numbering, price
 * versions, per-workspace billing settings and test clocks.
 *
 * Subscriptions get a schedule: `billing_anchor` (where period boundaries are counted from) and
 * `period_alignment`. New subscriptions default to anniversary billing; existing rows keep the
 * calendar periods they were created with (alignment 'calendar', anchored at their start), so no
 * current period moves. A subscription can be cancelled at its period end, can carry one change
 * scheduled for its period end (JSON), and rates its usage with the price version it holds.
 *
 * Invoice and credit-note lines are JSON on their document: a document is written once as a
 * whole, read whole, and never changes after finalization, so a line table would only cost the
 * renewal job a row per line. `cycle_key` makes issuing idempotent: one invoice per subscription
 * and renewal boundary (a unique index), whatever the number of nodes or runs.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const tenantIndex = async (table: string) => db.schema.createIndex(`${table}_tenant_id`).on(table).columns(['workspace_id', 'environment', 'id']).execute();

  for (const [column, type] of [
    ['billing_anchor', 'bigint'],
    ['period_alignment', 'text'],
    ['cancel_at_period_end', 'integer'],
    ['scheduled_change', 'text'],
    ['test_clock_id', 'text'],
    ['price_version_id', 'text'],
    ['price_version_pinned', 'integer'],
  ] as const) {
    await db.schema.alterTable('subscriptions').addColumn(column, type).execute();
  }
  await sql`update subscriptions set billing_anchor = started_at, period_alignment = 'calendar', cancel_at_period_end = 0, price_version_pinned = 0`.execute(
    db,
  );
  // What the renewal job looks for: live subscriptions whose period has ended, oldest first.
  await db.schema
    .createIndex('subscriptions_due')
    .on('subscriptions')
    .columns(['current_period_end', 'id'])
    .where(sql.ref('status'), '<>', 'CANCELLED')
    .execute();
  await db.schema
    .createIndex('subscriptions_test_clock')
    .on('subscriptions')
    .columns(['test_clock_id', 'current_period_end'])
    .where(sql.ref('test_clock_id'), 'is not', null)
    .execute();

  await db.schema.alterTable('customers').addColumn('test_clock_id', 'text').execute();
  // A key rotated while its subscription lives on a test clock keeps its grace in the clock's
  // time: the advance that passes graceEndsAtClock ends it.
  await db.schema.alterTable('api_keys').addColumn('grace_test_clock_id', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('grace_ends_at_clock', 'bigint').execute();

  await db.schema
    .createTable('invoices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('subscription_id', 'text')
    .addColumn('cycle_key', 'text')
    .addColumn('billing_reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('number', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('period_start', 'bigint', (c) => c.notNull())
    .addColumn('period_end', 'bigint', (c) => c.notNull())
    .addColumn('price_version_id', 'text')
    .addColumn('lines', 'text', (c) => c.notNull())
    .addColumn('subtotal', 'text', (c) => c.notNull())
    .addColumn('total', 'text', (c) => c.notNull())
    .addColumn('credited_total', 'text', (c) => c.notNull())
    .addColumn('amount_paid', 'text', (c) => c.notNull())
    .addColumn('test_clock_id', 'text')
    .addColumn('finalize_at', 'bigint', (c) => c.notNull())
    .addColumn('finalized_at', 'bigint')
    .addColumn('paid_at', 'bigint')
    .addColumn('voided_at', 'bigint')
    .addColumn('marked_uncollectible_at', 'bigint')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await tenantIndex('invoices');
  await db.schema
    .createIndex('invoices_cycle')
    .unique()
    .on('invoices')
    .columns(['workspace_id', 'environment', 'subscription_id', 'cycle_key'])
    .where(sql.ref('cycle_key'), 'is not', null)
    .execute();
  await db.schema.createIndex('invoices_customer').on('invoices').columns(['workspace_id', 'environment', 'customer_id', 'id']).execute();
  await db.schema.createIndex('invoices_subscription').on('invoices').columns(['workspace_id', 'environment', 'subscription_id', 'period_end']).execute();
  // Drafts waiting for their grace period to end, across tenants: what the finalizing job reads.
  await db.schema.createIndex('invoices_drafts_due').on('invoices').columns(['finalize_at', 'id']).where(sql.ref('status'), '=', 'draft').execute();

  await db.schema
    .createTable('credit_notes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('subscription_id', 'text')
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('memo', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('lines', 'text', (c) => c.notNull())
    .addColumn('total', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('voided_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await tenantIndex('credit_notes');
  await db.schema.createIndex('credit_notes_invoice').on('credit_notes').columns(['workspace_id', 'environment', 'invoice_id']).execute();

  // The next number of each sequence (invoice, credit_note) per tenant: taken and bumped in the
  // transaction that finalizes, so numbers have no gaps and are never given twice.
  await db.schema
    .createTable('document_sequences')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('next_value', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('document_sequences_pk', ['workspace_id', 'environment', 'kind'])
    .execute();

  await db.schema
    .createTable('billing_settings')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('invoice_grace_ms', 'bigint', (c) => c.notNull())
    .addColumn('invoice_prefix', 'text', (c) => c.notNull())
    .addColumn('credit_note_prefix', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('billing_settings_pk', ['workspace_id', 'environment'])
    .execute();

  await db.schema
    .createTable('price_versions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('offering_id', 'text', (c) => c.notNull())
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await tenantIndex('price_versions');
  await db.schema
    .createIndex('price_versions_content')
    .unique()
    .on('price_versions')
    .columns(['workspace_id', 'environment', 'offering_id', 'content_hash'])
    .execute();

  await db.schema
    .createTable('test_clocks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('frozen_time', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('advance_started_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await tenantIndex('test_clocks');
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['test_clocks', 'price_versions', 'billing_settings', 'document_sequences', 'credit_notes', 'invoices']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
  await db.schema.dropIndex('subscriptions_test_clock').ifExists().execute();
  await db.schema.dropIndex('subscriptions_due').ifExists().execute();
  await db.schema.alterTable('customers').dropColumn('test_clock_id').execute();
  await db.schema.alterTable('api_keys').dropColumn('grace_ends_at_clock').execute();
  await db.schema.alterTable('api_keys').dropColumn('grace_test_clock_id').execute();
  for (const column of [
    'price_version_pinned',
    'price_version_id',
    'test_clock_id',
    'scheduled_change',
    'cancel_at_period_end',
    'period_alignment',
    'billing_anchor',
  ]) {
    await db.schema.alterTable('subscriptions').dropColumn(column).execute();
  }
}
