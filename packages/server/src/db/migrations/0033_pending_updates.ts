import type { Kysely } from 'kysely';

/**
 * Plan changes that pay first (issue 39, Stripe's pending_if_incomplete): an IMMEDIATE change
 * whose invoice must be charged waits on the subscription, as JSON (the offering, the period and
 * the limits it moves to, its invoice, when it expires), until that invoice is paid; the
 * subscription stays on its offering meanwhile.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscriptions').addColumn('pending_update', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subscriptions').dropColumn('pending_update').execute();
}
