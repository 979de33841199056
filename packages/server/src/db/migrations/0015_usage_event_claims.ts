import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../database.js';

/**
 * usage_event_claims: the per-event ids (`eventId`) claimed for 24 hours, moved out of
 * idempotency_keys (issue 18). There each claim was a row of seven columns (a request key's
 * fingerprint and response, empty for an event) under the key `event:<id>`, written through a
 * generic multi-row upsert, and it cost about a third of the batch ingest rate (bench/README.md,
 * "Issue 18: forwarder"). Here a claim is its key and its time, nothing else.
 *
 * The primary key is the only index the claim needs; on SQLite the table is WITHOUT ROWID, so the
 * primary key is the table (one b-tree written, not a rowid table plus its key index). The index
 * on claimed_at is what pruning deletes by; without it every prune would scan every claim.
 *
 * The claims already made move here, so an id claimed just before the upgrade is still a duplicate
 * just after it: rows of idempotency_keys whose key starts with `event:` and whose fingerprint is
 * empty (a request's key always has a fingerprint, so a client's own X-Idempotency-Key that
 * happens to start with `event:` stays where it is). substr, not LIKE: SQLite's LIKE ignores case.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('usage_event_claims')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('claimed_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_event_claims_pk', ['workspace_id', 'environment', 'event_id'])
    .$call((b) => (postgres ? b : b.modifyEnd(sql`without rowid`)))
    .execute();
  await db.schema.createIndex('usage_event_claims_claimed_at').on('usage_event_claims').column('claimed_at').execute();
  await sql`insert into usage_event_claims (workspace_id, environment, event_id, claimed_at)
    select workspace_id, environment, substr(key, 7), created_at from idempotency_keys
    where substr(key, 1, 6) = 'event:' and fingerprint = ''`.execute(db);
  await sql`delete from idempotency_keys where substr(key, 1, 6) = 'event:' and fingerprint = ''`.execute(db);
}

/** Puts the claims back into idempotency_keys as 0014 wrote them, and drops the table. */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`insert into idempotency_keys (workspace_id, environment, key, fingerprint, response_status, response_body, created_at)
    select workspace_id, environment, 'event:' || event_id, '', 200, '', claimed_at from usage_event_claims`.execute(db);
  await db.schema.dropTable('usage_event_claims').execute();
}
