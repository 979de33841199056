import type { Kysely } from 'kysely';

/**
 * How a subscription's cancellation was asked for (issue 38, item 9): JSON text `{reason,
 * cancel_channel, comment, requestedAt}`, written by the cancellation (now or at the period end),
 * cleared when a scheduled one is withdrawn. Rows cancelled before this migration keep null: their
 * reason and channel are in their subscription.cancelled and subscription.change_scheduled audit
 * events. Numbered 0023: 0022 (rate-plan default usage limits) was written at the same time and
 * touches other columns, so either can run first.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscriptions').addColumn('cancellation_details', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscriptions').dropColumn('cancellation_details').execute();
}
