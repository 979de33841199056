import type { Kysely } from 'kysely';

/**
 * Payment providers (issue 39): a workspace connects Stripe per environment. The secret key and
 * the webhook signing secret are sealed with the key ring (lib/secret-box.ts), each bound to the
 * row's id, and only their last four characters are kept in clear to show. The signing secret may
 * come after the key (null until then): Stripe gives it once its endpoint points at the
 * connection's URL, which exists only once the connection does. One connection per
 * workspace, environment and provider; disconnecting deletes the row, and the secrets with it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payment_providers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('secret_key_ciphertext', 'text', (c) => c.notNull())
    .addColumn('secret_key_key_id', 'text', (c) => c.notNull())
    .addColumn('secret_key_hint', 'text', (c) => c.notNull())
    .addColumn('webhook_secret_ciphertext', 'text')
    .addColumn('webhook_secret_key_id', 'text')
    .addColumn('webhook_secret_hint', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payment_providers_tenant_provider')
    .on('payment_providers')
    .columns(['workspace_id', 'environment', 'provider'])
    .unique()
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payment_providers').ifExists().execute();
}
