import { sql, type Kysely } from 'kysely';

/**
 * Operator accounts for the console. They belong to a workspace, not to an environment: one
 * operator works in both, switching test and live in the console. Passwords are kept as scrypt
 * hashes, session and invitation secrets as their SHA-256 (unique: a presented secret is found by
 * it, across workspaces); everything else is read through the workspace index.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('operator_users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('removed_at', 'bigint')
    .execute();
  // One current account per e-mail and workspace (e-mails are stored lower-cased); a removed
  // account keeps its row, for the audit trail, and the e-mail may be invited again.
  await db.schema
    .createIndex('operator_users_workspace_email')
    .on('operator_users')
    .columns(['workspace_id', 'email'])
    .unique()
    .where(sql.ref('removed_at'), 'is', null)
    .execute();
  await db.schema.createIndex('operator_users_email').on('operator_users').column('email').execute();

  await db.schema
    .createTable('operator_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('operator_id', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('operator_sessions_operator').on('operator_sessions').columns(['workspace_id', 'operator_id']).execute();

  await db.schema
    .createTable('operator_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('invited_by', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('accepted_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('operator_invitations_workspace').on('operator_invitations').columns(['workspace_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['operator_invitations', 'operator_sessions', 'operator_users']) await db.schema.dropTable(t).ifExists().execute();
}
