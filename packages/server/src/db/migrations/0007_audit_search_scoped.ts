import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../database.js';
import { ftsDocument, ftsScope } from './frozen/audit-search-text-v1.js';
import { ftsTenantToken } from './0006_audit_stream_search.js';
import { forEachAuditEventBatch, reindexSearchText, type ReindexRow } from './audit-reindex.js';

/**
 * SQLite full text, re-indexed with tenant-scoped words (PostgreSQL is unchanged).
 *
 * 0006 kept the tenant as a word of its own and ANDed it into every query. That word's list of
 * rows holds every event of the tenant, so with ten million events each search step spent up to
 * a tenth of a second intersecting with it. Now every term carries the tenant's scope
 * (ftsScope, ftsDocument): a term's list holds one tenant's rows only, and a query names only
 * its own terms. The words are indexed again joined to their event's category, and the event
 * type and the severity are terms too, so full text combined with them is answered inside the
 * index (documentTerms says how).
 * bench/audit-search.ts measures it.
 *
 * The FTS5 table is contentless, so the words are made again from each event's payload, in
 * batches, with progress reported for a large log.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await sql`drop trigger if exists audit_events_fts_delete`.execute(db);
  await sql`drop table if exists audit_events_fts`.execute(db);
  await createFtsTable(db, 'body');
  await reindex(db, 'body', (row, text) => [
    ftsDocument(ftsScope(row.workspaceId, row.environment), { text, eventType: row.eventType, severity: row.severity }),
  ]);
}

/** Back to 0006's table: the tenant token in a column of its own and the words unscoped. */
export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await sql`drop trigger if exists audit_events_fts_delete`.execute(db);
  await sql`drop table if exists audit_events_fts`.execute(db);
  await createFtsTable(db, 'tenant, body');
  await reindex(db, 'tenant, body', (row, text) => [ftsTenantToken(row.workspaceId, row.environment), text]);
}

async function createFtsTable(db: Kysely<any>, columns: string): Promise<void> {
  await sql`create virtual table audit_events_fts using fts5(${sql.raw(columns)}, content='', contentless_delete=1, tokenize='unicode61')`.execute(db);
  await sql`create trigger audit_events_fts_delete after delete on audit_events begin
    delete from audit_events_fts where rowid = old.seq;
  end`.execute(db);
}

async function reindex(db: Kysely<any>, columns: string, values: (row: ReindexRow, text: string) => string[]): Promise<void> {
  await forEachAuditEventBatch(db, '0007_audit_search_scoped', async (rows) => {
    for (const r of rows) {
      await sql`insert into audit_events_fts (rowid, ${sql.raw(columns)}) values (${sql.join([r.seq, ...values(r, reindexSearchText(r))])})`.execute(db);
    }
  });
}
