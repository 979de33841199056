import type { Kysely } from 'kysely';

/**
 * The payment providers' webhooks, kept as received once their signature is verified (issue 39):
 * an inbox. A provider event is stored once per connection (its id is unique there), so a
 * redelivery is acknowledged without being stored twice; `applied_at` is set once billing has
 * applied it, in whatever order events arrived.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('payment_provider_events')
    .addColumn('connection_id', 'text', (c) => c.notNull())
    .addColumn('provider_event_id', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .addColumn('applied_at', 'bigint')
    .addPrimaryKeyConstraint('payment_provider_events_pk', ['connection_id', 'provider_event_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payment_provider_events').ifExists().execute();
}
