import type { Kysely } from 'kysely';

/**
 * Widget sessions: the seller's backend mints one (with its workspace key) for one subscription,
 * and the buyer's browser carries only its token, on the widget routes. Like every secret, the
 * token is kept as its SHA-256 (unique: authentication finds a session by it, across tenants);
 * everything else is read through the tenant index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('widget_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('subscription_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('allowed_origins', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('widget_sessions_tenant_id').on('widget_sessions').columns(['workspace_id', 'environment', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('widget_sessions').ifExists().execute();
}
