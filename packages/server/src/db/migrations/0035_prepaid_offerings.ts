import type { Kysely } from 'kysely';

/**
 * PREPAID offerings (issue 41): `overage`, the rule for usage credits do not cover (BILL or BLOCK;
 * null for POSTPAID), and `recurring_credits`, the credits a subscription is granted each period
 * (JSON; null: none). billing_mode has existed since 0003. And the billing job's look-up of
 * active credit grants whose expiry has passed (credit_grants_expiring).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('offerings').addColumn('overage', 'text').execute();
  await db.schema.alterTable('offerings').addColumn('recurring_credits', 'text').execute();
  await db.schema.createIndex('credit_grants_expiring').on('credit_grants').columns(['status', 'expires_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('credit_grants_expiring').ifExists().execute();
  await db.schema.alterTable('offerings').dropColumn('recurring_credits').execute();
  await db.schema.alterTable('offerings').dropColumn('overage').execute();
}
