import type { Kysely } from 'kysely';

/**
 * Developer hub sessions (issue 22): the seller's backend mints one for one customer and hands its
 * customer a single-use link (`link_token_hash`); opening the link sets the session's cookie secret
 * (`token_hash`, null until then) and its CSRF token's hash. Secrets are kept as SHA-256 only, unique
 * so that each is found across tenants; everything else is read through the tenant index. Numbered
 * 0020: 0019 is the operators' migration, written at the same time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('hub_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('link_token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('link_used_at', 'bigint')
    .addColumn('token_hash', 'text', (c) => c.unique())
    .addColumn('csrf_hash', 'text')
    .addColumn('return_url', 'text')
    .addColumn('theme', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('hub_sessions_tenant_id').on('hub_sessions').columns(['workspace_id', 'environment', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('hub_sessions').ifExists().execute();
}
