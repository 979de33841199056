import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../database.js';

/**
 * Outbound webhooks (issue 19, modules/outbound-webhooks/README.md): endpoints a seller
 * subscribes, and the outbox written in the transaction of each change.
 *
 * - webhook_messages holds the exact body bytes sent and signed. `seq` follows audit_events
 *   (0006): taken at insert, so within one ordering key (a subscription, whose changes are
 *   serialized by its row lock or version check) seq order is commit order. SQLite: an
 *   AUTOINCREMENT key; PostgreSQL: a bigserial beside the text primary key.
 * - webhook_deliveries is one row per (message, endpoint), with copies of the message's type, seq
 *   and ordering key so the sender's two partial indexes (pending rows only, few at steady state)
 *   answer "what is due" and "is an earlier message with my key still pending" alone.
 * - webhook_attempts is the delivery log; webhook_lanes says which node sends for an endpoint.
 * - api_keys.grace_used_at: when a rotated key was first used during its grace (api_key.grace_used).
 *
 * Instants are epoch ms (bigint), booleans integer 0/1, JSON text, as elsewhere.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('disabled_at', 'bigint')
    .addColumn('failing_since', 'bigint')
    .addColumn('max_concurrency', 'integer', (c) => c.notNull())
    .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
    .addColumn('secret_key_id', 'text', (c) => c.notNull())
    .addColumn('secret_hint', 'text', (c) => c.notNull())
    .addColumn('previous_secret_ciphertext', 'text')
    .addColumn('previous_secret_key_id', 'text')
    .addColumn('previous_secret_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema.createIndex('webhook_endpoints_tenant_id').on('webhook_endpoints').columns(['workspace_id', 'environment', 'id']).execute();

  const messageColumns = sql`workspace_id text not null,
    environment text not null,
    event_type text not null,
    ordering_key text,
    body text not null,
    source text not null,
    correlation_id text not null,
    created_at bigint not null`;
  if (postgres) await sql`create table webhook_messages (id text primary key, seq bigserial not null, ${messageColumns})`.execute(db);
  else await sql`create table webhook_messages (seq integer primary key autoincrement, id text not null unique, ${messageColumns})`.execute(db);
  await db.schema.createIndex('webhook_messages_tenant_id').on('webhook_messages').columns(['workspace_id', 'environment', 'id']).execute();
  await db.schema.createIndex('webhook_messages_type').on('webhook_messages').columns(['workspace_id', 'environment', 'event_type', 'id']).execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('message_seq', 'bigint', (c) => c.notNull())
    .addColumn('ordering_key', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('schedule_step', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('last_response_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_deliveries_pkey', ['message_id', 'endpoint_id'])
    .execute();
  const pending = sql.ref('status');
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'next_attempt_at'])
    .where(pending, '=', 'pending')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_order')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'ordering_key', 'message_seq'])
    .where(pending, '=', 'pending')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_state')
    .on('webhook_deliveries')
    .columns(['workspace_id', 'environment', 'endpoint_id', 'status', 'message_id'])
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('attempt_number', 'integer', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('node_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('response_truncated', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', 'bigint', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint')
    .execute();
  for (const [name, column] of [
    ['tenant_id', null],
    ['endpoint', 'endpoint_id'],
    ['message', 'message_id'],
  ] as const) {
    await db.schema
      .createIndex(`webhook_attempts_${name}`)
      .on('webhook_attempts')
      .columns(['workspace_id', 'environment', ...(column ? [column] : []), 'id'])
      .execute();
  }

  await db.schema
    .createTable('webhook_lanes')
    .addColumn('endpoint_id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('owner', 'text')
    .addColumn('lease_until', 'bigint', (c) => c.notNull())
    .addColumn('generation', 'integer', (c) => c.notNull())
    .execute();

  await db.schema.alterTable('api_keys').addColumn('grace_used_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('grace_used_at').execute();
  for (const table of ['webhook_lanes', 'webhook_attempts', 'webhook_deliveries', 'webhook_messages', 'webhook_endpoints']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
