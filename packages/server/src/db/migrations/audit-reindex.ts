import { sql, type Kysely } from 'kysely';
import { reportMigrationProgress } from '../migration-progress.js';
import { auditSearchText } from './frozen/audit-search-text-v1.js';

/** An audit event as a re-indexing migration reads it (the connection's CamelCasePlugin names). */
export interface ReindexRow {
  id: string;
  seq: number;
  workspaceId: string | null;
  environment: string | null;
  eventType: string;
  severity: string;
  targetType: string | null;
  payload: string;
}

const BATCH = 1000;

/**
 * Hands every audit event to `write`, a batch at a time in seq order, reporting progress for a
 * large log. Migrations that rebuild the search index from the events' payloads share it.
 */
export async function forEachAuditEventBatch(db: Kysely<any>, migration: string, write: (rows: ReindexRow[]) => Promise<void>): Promise<void> {
  const { rows: counted } = await sql<{ n: number }>`select count(*) as n from audit_events`.execute(db);
  const progress = reportMigrationProgress(migration, 'audit events re-indexed', Number(counted[0]?.n ?? 0));
  let after = 0;
  let done = 0;
  for (;;) {
    const { rows } = await sql<ReindexRow>`select id, seq, workspace_id, environment, event_type, severity, target_type, payload
      from audit_events where seq > ${after} order by seq limit ${BATCH}`.execute(db);
    if (rows.length > 0) await write(rows);
    done += rows.length;
    progress(done);
    if (rows.length < BATCH) return;
    after = Number(rows[rows.length - 1]!.seq);
  }
}

/** The words of a re-indexed event, by the tokenizer frozen for these migrations (recordAudit's when they were written). */
export function reindexSearchText(r: ReindexRow): string {
  return auditSearchText({ eventType: r.eventType, targetType: r.targetType, payload: JSON.parse(r.payload) as unknown });
}
