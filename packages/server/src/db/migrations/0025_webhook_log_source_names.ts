import { sql, type Kysely } from 'kysely';

/**
 * The source's display name on each ingestion log entry (issue 38, item 10), written with the
 * entry: the name the source had when the request arrived, as its webhook.rejected audit event
 * records it, so a rename never rewrites what the log said. Entries from before this migration
 * take the name their source has now (sources are only ever soft-deleted, so every entry's source
 * row is still there). The empty default only lets a NOT NULL column join a filled table: every
 * entry is written with its name. Numbered 0025 while 0022 to 0024 were being written beside it:
 * it reads webhook_sources and changes webhook_log only, so its place among them does not matter.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhook_log')
    .addColumn('source_display_name', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await sql`update webhook_log set source_display_name = coalesce((
      select s.display_name from webhook_sources s
      where s.id = webhook_log.source_id and s.workspace_id = webhook_log.workspace_id and s.environment = webhook_log.environment
    ), '')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_log').dropColumn('source_display_name').execute();
}
