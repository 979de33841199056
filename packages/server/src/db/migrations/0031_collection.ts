import { sql, type Kysely } from 'kysely';

/**
 * Collection and dunning (issue 39).
 * - payments: a provider's attempt is a row written before the provider is called, with the
 *   attempt's number on the invoice (unique: two nodes cannot both make attempt 2), the
 *   idempotency key the provider receives and the payment method it charges, so a retry after a
 *   lost answer sends exactly the same request; then its outcome and the provider's reference.
 * - invoices: how many attempts, when the next is due (in the invoice's time), when the first
 *   failed (the retry schedule counts from it), and the latest attempt's outcome as shown.
 * - subscriptions: past due since, and until when the product keeps serving (the entitlement check
 *   compares one number); each subscription's own collection method, null: the workspace's.
 * - billing_settings: the retry schedule, the grace period and the rule after the last retry.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, type] of [
    ['attempt', 'integer'],
    ['idempotency_key', 'text'],
    ['provider_reference', 'text'],
    ['payment_method_id', 'text'],
    ['failure_code', 'text'],
    ['failure_message', 'text'],
    ['action_url', 'text'],
    ['trigger', 'text'],
  ] as const) {
    await db.schema.alterTable('payments').addColumn(name, type).execute();
  }
  await db.schema
    .alterTable('payments')
    .addColumn('amount_refunded', 'text', (c) => c.notNull().defaultTo('0'))
    .execute();
  await db.schema
    .alterTable('payments')
    .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update payments set updated_at = created_at`.execute(db);
  await db.schema.createIndex('payments_attempt').unique().on('payments').columns(['workspace_id', 'environment', 'invoice_id', 'attempt']).execute();
  // Reconciliation: attempts whose outcome has not arrived, across tenants.
  await db.schema.createIndex('payments_unsettled').on('payments').columns(['status', 'updated_at']).execute();
  await db.schema.createIndex('payments_provider_reference').on('payments').columns(['workspace_id', 'environment', 'provider_reference']).execute();

  await db.schema
    .alterTable('invoices')
    .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  for (const name of ['next_payment_attempt_at', 'payment_failed_at'] as const) {
    await db.schema.alterTable('invoices').addColumn(name, 'bigint').execute();
  }
  for (const name of ['latest_attempt_status', 'last_payment_error', 'payment_action_url'] as const) {
    await db.schema.alterTable('invoices').addColumn(name, 'text').execute();
  }
  await db.schema.createIndex('invoices_next_payment_attempt').on('invoices').columns(['next_payment_attempt_at']).execute();

  for (const name of ['past_due_since', 'past_due_access_until'] as const) {
    await db.schema.alterTable('subscriptions').addColumn(name, 'bigint').execute();
  }
  await db.schema.alterTable('subscriptions').addColumn('collection_method', 'text').execute();

  await db.schema
    .alterTable('billing_settings')
    .addColumn('payment_retry_days', 'text', (c) => c.notNull().defaultTo('[3,5,7]'))
    .execute();
  await db.schema
    .alterTable('billing_settings')
    .addColumn('past_due_grace_days', 'integer', (c) => c.notNull().defaultTo(3))
    .execute();
  await db.schema
    .alterTable('billing_settings')
    .addColumn('past_due_final_action', 'text', (c) => c.notNull().defaultTo('cancel_subscription'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of ['past_due_final_action', 'past_due_grace_days', 'payment_retry_days'])
    await db.schema.alterTable('billing_settings').dropColumn(name).execute();
  for (const name of ['collection_method', 'past_due_access_until', 'past_due_since']) await db.schema.alterTable('subscriptions').dropColumn(name).execute();
  await db.schema.dropIndex('invoices_next_payment_attempt').ifExists().execute();
  for (const name of ['payment_action_url', 'last_payment_error', 'latest_attempt_status', 'payment_failed_at', 'next_payment_attempt_at', 'attempt_count'])
    await db.schema.alterTable('invoices').dropColumn(name).execute();
  await db.schema.dropIndex('payments_provider_reference').ifExists().execute();
  await db.schema.dropIndex('payments_unsettled').ifExists().execute();
  await db.schema.dropIndex('payments_attempt').ifExists().execute();
  for (const name of [
    'updated_at',
    'amount_refunded',
    'trigger',
    'action_url',
    'failure_message',
    'failure_code',
    'payment_method_id',
    'provider_reference',
    'idempotency_key',
    'attempt',
  ])
    await db.schema.alterTable('payments').dropColumn(name).execute();
}
