import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../database.js';
import { auditSearchText, words } from './frozen/audit-search-text-v1.js';

/**
 * The audit log's live stream and full-text search.
 *
 * Stream cursor (tx, seq): ids are generated before the commit, so two transactions can commit
 * in the other order than their ids. A subscriber resuming from an id would then miss the one
 * committed later with the smaller id. The cursor follows commit order instead:
 * - SQLite has one writer at a time, so an AUTOINCREMENT key taken at insert is in commit order
 *   (AUTOINCREMENT, not the bare rowid, so a purge of the newest rows never lets a number come
 *   back). tx stays 0.
 * - PostgreSQL commits concurrently: seq (a sequence) orders rows within a transaction and tx is
 *   the inserting transaction's 64-bit id. A reader only takes rows whose tx is below the oldest
 *   transaction still running (pg_snapshot_xmin), so no row can later appear before its cursor.
 *
 * Search: SQLite gets a contentless FTS5 table (rowid = seq) that the writer fills with the
 * event's words and a trigger empties on delete; PostgreSQL a tsvector column with a GIN index.
 * Both hold the same words, made by auditSearchText, so a query finds the same events on either.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table audit_events add column seq bigserial`.execute(db);
    await sql`alter table audit_events add column tx bigint not null default (pg_current_xact_id()::text::bigint)`.execute(db);
    await sql`alter table audit_events add column search tsvector`.execute(db);
    await backfillSearch(db, async (row, text) => {
      await sql`update audit_events set search = to_tsvector('simple', ${text}) where id = ${row.id}`.execute(db);
    });
    await sql`create index audit_events_search on audit_events using gin (search)`.execute(db);
  } else {
    // SQLite cannot add an AUTOINCREMENT column: the table is rebuilt, rows copied in id order.
    await sql`create table audit_events_new (
      seq integer primary key autoincrement,
      tx integer not null default 0,
      id text not null unique,
      workspace_id text,
      environment text,
      event_type text not null,
      source text not null,
      severity text not null,
      actor_type text not null,
      actor_id text not null,
      target_type text,
      target_id text,
      payload text not null,
      correlation_id text not null,
      created_at bigint not null
    )`.execute(db);
    await sql`insert into audit_events_new (id, workspace_id, environment, event_type, source, severity, actor_type, actor_id, target_type, target_id, payload, correlation_id, created_at)
      select id, workspace_id, environment, event_type, source, severity, actor_type, actor_id, target_type, target_id, payload, correlation_id, created_at
      from audit_events order by id`.execute(db);
    await sql`drop table audit_events`.execute(db);
    await sql`alter table audit_events_new rename to audit_events`.execute(db);
    await db.schema.createIndex('audit_events_tenant_id').on('audit_events').columns(['workspace_id', 'environment', 'id']).execute();
    await sql`create virtual table audit_events_fts using fts5(tenant, body, content='', contentless_delete=1, tokenize='unicode61')`.execute(db);
    await sql`create trigger audit_events_fts_delete after delete on audit_events begin
      delete from audit_events_fts where rowid = old.seq;
    end`.execute(db);
    await backfillSearch(db, async (row, text) => {
      await sql`insert into audit_events_fts (rowid, tenant, body) values (${row.seq}, ${ftsTenantToken(row.workspaceId, row.environment)}, ${text})`.execute(
        db,
      );
    });
  }
  // The live tail reads every tenant's new rows in cursor order; a subscriber catching up reads
  // its own tenant's.
  await db.schema.createIndex('audit_events_cursor').on('audit_events').columns(['tx', 'seq']).execute();
  await db.schema.createIndex('audit_events_tenant_cursor').on('audit_events').columns(['workspace_id', 'environment', 'tx', 'seq']).execute();
  // Search by correlation id, actor or target over a year of events: an index each, ending in id
  // so the newest-first order comes from the index too.
  for (const [name, col] of [
    ['correlation', 'correlation_id'],
    ['actor', 'actor_id'],
    ['target', 'target_id'],
  ] as const) {
    await db.schema.createIndex(`audit_events_tenant_${name}`).on('audit_events').columns(['workspace_id', 'environment', col, 'id']).execute();
  }
}

/** A row as the connection returns it: its CamelCasePlugin renames result columns. */
interface Row {
  id: string;
  seq: number;
  workspaceId: string | null;
  environment: string | null;
  eventType: string;
  targetType: string | null;
  payload: string;
}

async function backfillSearch(db: Kysely<any>, write: (row: Row, text: string) => Promise<void>): Promise<void> {
  let after = '';
  for (;;) {
    const { rows } = await sql<Row>`select id, seq, workspace_id, environment, event_type, target_type, payload
      from audit_events where id > ${after} order by id limit 1000`.execute(db);
    for (const r of rows) {
      await write(r, auditSearchText({ eventType: r.eventType, targetType: r.targetType, payload: JSON.parse(r.payload) as unknown }));
    }
    if (rows.length < 1000) return;
    after = rows[rows.length - 1]!.id;
  }
}

/**
 * The tenant as one FTS5 word in the `tenant` column, as this migration's table held it.
 * Migration 0007 replaced the column with tenant-scoped words; kept here so this migration
 * still builds what it built, and 0007's down builds it again.
 */
export function ftsTenantToken(workspaceId: string | null, environment: string | null): string {
  if (workspaceId === null) return 'platform';
  return `t${words(`${workspaceId}${environment ?? ''}`).join('')}`;
}

/** Drops the search index and the cursor columns on PostgreSQL; on SQLite the rebuilt table stays. */
export async function down(db: Kysely<any>): Promise<void> {
  for (const name of ['cursor', 'tenant_cursor', 'tenant_correlation', 'tenant_actor', 'tenant_target']) {
    await sql`drop index if exists ${sql.raw(`audit_events_${name}`)}`.execute(db);
  }
  if (isPostgres(db)) {
    await sql`alter table audit_events drop column search, drop column tx, drop column seq`.execute(db);
  } else {
    await sql`drop trigger if exists audit_events_fts_delete`.execute(db);
    await sql`drop table if exists audit_events_fts`.execute(db);
  }
}
