import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../database.js';
import { ftsScope, tsDocument } from './frozen/audit-search-text-v1.js';
import { idTime } from '../../lib/ids.js';
import { forEachAuditEventBatch, reindexSearchText, type ReindexRow } from './audit-reindex.js';

/**
 * PostgreSQL full text, re-indexed with the terms SQLite has had since 0007 (SQLite is unchanged).
 *
 * 0006 stored to_tsvector('simple', words): no tenant, type or severity in the index, and no
 * order. Over ten million events a common word combined with a type and a severity took up to
 * 12 s (bench/audit-search.ts): the planner walked the primary key testing each row. The
 * tsvector now holds tsDocument's lexemes, written with array_to_tsvector: words and facets
 * scoped to the tenant, and the month of the event, which lets a search ask GIN for one month's
 * matches at a time (audit-search.repository.ts, listByTextPostgres).
 *
 * The GIN index is dropped while the rows are rewritten, a batch at a time, and built once after.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await rewrite(db, '0008_audit_search_postgres', (r) => {
    const text = reindexSearchText(r);
    return tsDocument(ftsScope(r.workspaceId, r.environment), { text, eventType: r.eventType, severity: r.severity, idMs: idTime(r.id) }).join(' ');
  });
}

/** Back to 0006's tsvector: the plain words, parsed by the 'simple' configuration. */
export async function down(db: Kysely<any>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop index if exists audit_events_search`.execute(db);
  await forEachAuditEventBatch(db, '0008_audit_search_postgres (down)', async (rows) => {
    await sql`update audit_events as a set search = to_tsvector('simple', v.doc)
      from unnest(${rows.map((r) => r.id)}::text[], ${rows.map(reindexSearchText)}::text[]) as v(id, doc) where a.id = v.id`.execute(db);
  });
  await sql`create index audit_events_search on audit_events using gin (search)`.execute(db);
}

async function rewrite(db: Kysely<any>, migration: string, lexemes: (r: ReindexRow) => string): Promise<void> {
  await sql`drop index if exists audit_events_search`.execute(db);
  // Lexemes hold only letters and digits, so a space separates them.
  await forEachAuditEventBatch(db, migration, async (rows) => {
    await sql`update audit_events as a set search = array_to_tsvector(string_to_array(v.doc, ' '))
      from unnest(${rows.map((r) => r.id)}::text[], ${rows.map(lexemes)}::text[]) as v(id, doc) where a.id = v.id`.execute(db);
  });
  await sql`create index audit_events_search on audit_events using gin (search)`.execute(db);
}
