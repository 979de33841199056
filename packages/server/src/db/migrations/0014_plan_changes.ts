import type { Kysely } from 'kysely';

/**
 * Plan changes: an IMMEDIATE change splits a billing period in two, and the part after it shares
 * the period's free allowance with the part before (the usage already counted is taken off it;
 * @tollgate/pricing README, "Usage and free allowances"). `allowance_from` is the start of the
 * billing period whose allowance an invoice's usage shares; null means its own periodStart (every
 * invoice issued before plan changes existed, and every period not split). Stored on the invoice
 * so that rating it again (late usage, finalization) needs nothing else.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoices').addColumn('allowance_from', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('invoices').dropColumn('allowance_from').execute();
}
