import { sql, type Kysely } from 'kysely';

/**
 * Outbound webhooks (issue 19): the sender claims an endpoint's due deliveries in the order
 * `next_attempt_at, message_seq`. The index on `(endpoint_id, next_attempt_at)` alone gave no
 * order among the many rows due at the same instant (a backlog written at once, every message of
 * a burst), so each claim read and sorted every due row of the endpoint, and checked the
 * ordering rule on each, to take 16: the bench showed a 20,000-message backlog sent at 267/s,
 * its time quadratic in the backlog. With `message_seq` in the index the claim reads the rows in
 * order and stops at its limit.
 */
/** Replaces the partial index of pending deliveries with one on these columns. */
async function rebuildDueIndex(db: Kysely<any>, columns: string[]): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_due').execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(columns).where(sql.ref('status'), '=', 'pending').execute();
}

export async function up(db: Kysely<any>): Promise<void> {
  await rebuildDueIndex(db, ['endpoint_id', 'next_attempt_at', 'message_seq']);
}

export async function down(db: Kysely<any>): Promise<void> {
  await rebuildDueIndex(db, ['endpoint_id', 'next_attempt_at']);
}
