import type { Kysely } from 'kysely';

/** Saved audit searches: a name and the filters of GET /v1/events, per workspace and environment. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('audit_search_presets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('filters', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_search_presets_tenant_id').on('audit_search_presets').columns(['workspace_id', 'environment', 'id']).execute();
  await db.schema.createIndex('audit_search_presets_name').unique().on('audit_search_presets').columns(['workspace_id', 'environment', 'name']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_search_presets').ifExists().execute();
}
