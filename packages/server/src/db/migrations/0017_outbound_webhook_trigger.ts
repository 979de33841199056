import type { Kysely } from 'kysely';

/**
 * Outbound webhooks (issue 19): what triggers a delivery's next attempt, so the attempt the sender
 * records says why it was made. `next_attempt_trigger` is null for the retry schedule (the first
 * attempt and every retry: the attempt's trigger `scheduled`), `replay` when an operator sent the
 * message again (POST /api/v1/webhook-messages/{id}/replay, POST
 * /api/v1/webhook-endpoints/{id}/replay-failed) and `test` for the delivery of a test event
 * (POST /api/v1/webhook-endpoints/{id}/test). Nullable with no default: every existing row is
 * scheduled, and no row is rewritten.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('next_attempt_trigger', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').dropColumn('next_attempt_trigger').execute();
}
