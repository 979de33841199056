import type { Kysely } from 'kysely';

/**
 * Webhook plugs: sources (signed third-party webhooks turned into usage), the 72-hour
 * deduplication of provider event ids, and the ingestion log.
 *
 * Deduplication is a table of its own with a primary key, not the idempotency table: the window
 * is per source and longer (72 hours by default), and a unique constraint makes it hold across
 * nodes and restarts. Rows carry their expiry; a job deletes expired ones, and a claim that finds
 * an expired row takes it over, so the window holds even when the job is late.
 *
 * The log's ids are time-sortable, so listing by time and the retention purge both use the
 * primary key (or the tenant index) and need no index on received_at.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_sources')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('metric_id', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('event_type_from', 'text')
    .addColumn('event_filter', 'text', (c) => c.notNull())
    .addColumn('field_mappings', 'text', (c) => c.notNull())
    .addColumn('dedup_window_hours', 'integer', (c) => c.notNull())
    .addColumn('secret_ciphertext', 'text')
    .addColumn('secret_key_id', 'text')
    .addColumn('secret_hint', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema.createIndex('webhook_sources_tenant_id').on('webhook_sources').columns(['workspace_id', 'environment', 'id']).execute();

  await db.schema
    .createTable('webhook_event_ids')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('provider_event_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_event_ids_pk', ['workspace_id', 'environment', 'source_id', 'provider_event_id'])
    .execute();
  await db.schema.createIndex('webhook_event_ids_expires_at').on('webhook_event_ids').column('expires_at').execute();

  await db.schema
    .createTable('webhook_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('verification', 'text', (c) => c.notNull())
    .addColumn('http_status', 'integer', (c) => c.notNull())
    .addColumn('reason_code', 'text')
    .addColumn('reason_message', 'text')
    .addColumn('event_type', 'text')
    .addColumn('outcomes', 'text', (c) => c.notNull())
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('body_encoding', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('replay_of', 'text')
    .addColumn('correlation_id', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_log_tenant_id').on('webhook_log').columns(['workspace_id', 'environment', 'id']).execute();
  await db.schema.createIndex('webhook_log_source_id').on('webhook_log').columns(['workspace_id', 'environment', 'source_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['webhook_log', 'webhook_event_ids', 'webhook_sources']) await db.schema.dropTable(t).ifExists().execute();
}
