import type { Kysely } from 'kysely';

/**
 * Retention offers (issue 17): the offers customers accepted instead of cancelling, the discount
 * an accepted offer puts on a subscription, and the support address a hand-off offer points to.
 *
 * An acceptance is recorded once per subscription and cancel reason (a unique index): accepting
 * again returns the first record, so a discount is never granted twice for one reason. The offer
 * is JSON as it was shown (its wording, the downgrade it named), never recomputed.
 * `subscriptions.discount` is JSON ({percentOff, periods, periodsLeft, source, acceptanceId}) or
 * null: the renewal reads it with the row it renews, so the discount costs no extra query.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('retention_offer_acceptances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('subscription_id', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('offer_type', 'text', (c) => c.notNull())
    .addColumn('offer', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('retention_offer_acceptances_once')
    .unique()
    .on('retention_offer_acceptances')
    .columns(['workspace_id', 'environment', 'subscription_id', 'reason'])
    .execute();
  await db.schema.alterTable('subscriptions').addColumn('discount', 'text').execute();
  await db.schema.alterTable('billing_settings').addColumn('support_url', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('billing_settings').dropColumn('support_url').execute();
  await db.schema.alterTable('subscriptions').dropColumn('discount').execute();
  await db.schema.dropTable('retention_offer_acceptances').ifExists().execute();
}
