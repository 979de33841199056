import { sql } from 'kysely';
import type { Deps } from '../deps.js';
import { runOnStartAndEvery } from './schedule.js';
import { isPostgres, type Db } from '../db/database.js';
import { deleteAuditEventsBefore, recordAudit } from '../modules/audit/audit-event.repository.js';

/** The spec's retention: audit events older than this are purged. Longer archiving: `tollgate audit export`. */
export const AUDIT_RETENTION_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;

export type PurgeResult = { purged: number; cutoff: number } | { skipped: string };

/**
 * Deletes audit events older than 365 days, every tenant, then records how many (an event of its
 * own, `system.audit_events_purged`). Idempotent. With several nodes on PostgreSQL one purges at
 * a time: a session advisory lock on the connection that deletes; a node that does not get it
 * skips this run.
 */
export async function purgeAuditEvents(deps: Deps): Promise<PurgeResult> {
  const cutoff = deps.clock.now() - AUDIT_RETENTION_DAYS * DAY_MS;
  const postgres = isPostgres(deps.db);
  const purge = async (db: Db): Promise<PurgeResult> => {
    const purged = await deleteAuditEventsBefore(db, cutoff);
    await recordAudit(
      db,
      deps,
      { workspaceId: null, environment: null, actor: { type: 'SYSTEM', id: 'audit-retention' }, correlationId: deps.ids.next('request'), source: 'system' },
      { eventType: 'system.audit_events_purged', payload: { purged, cutoff: new Date(cutoff).toISOString(), retentionDays: AUDIT_RETENTION_DAYS } },
    );
    return { purged, cutoff };
  };
  if (!postgres) return purge(deps.db);
  return deps.db.connection().execute(async (conn) => {
    const key = sql`hashtext(current_schema() || '.tollgate_audit_retention')`;
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${key}) as locked`.execute(conn);
    if (!rows[0]?.locked) return { skipped: 'another node is purging' };
    try {
      return await purge(conn);
    } finally {
      await sql`select pg_advisory_unlock(${key})`.execute(conn);
    }
  });
}

/** Runs on start and daily; returns a stop function. */
export function scheduleAuditRetention(deps: Deps): () => void {
  return runOnStartAndEvery(deps, DAY_MS, 'audit retention', () => purgeAuditEvents(deps));
}
