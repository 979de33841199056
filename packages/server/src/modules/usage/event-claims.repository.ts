import { sql } from 'kysely';
import type SQLite from 'better-sqlite3';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { runRows, type RowsStatement } from '../../db/sqlite-statements.js';
import type { Tenant } from '../../lib/tenant.js';

/**
 * Every read and write of `usage_event_claims`: the per-event ids (`eventId`) claimed for 24 hours,
 * so a batch sent again (a forwarder's redelivery, an SDK's retry) is not counted twice. A claim is
 * its key and its time, in a table of its own (0015 says why), not a unique index on the event
 * table, which would halve the insert rate.
 */

/**
 * The SQLite claim: one id per row, the tenant and times bound once per statement, 256 ids a
 * statement; returns the ids claimed.
 */
const CLAIM_ROWS: RowsStatement<string> = {
  key: 'usage_event_claims',
  columns: 1,
  maxRows: 256,
  // `where true`: SQLite needs it to tell an upsert's ON CONFLICT from a join's ON in INSERT … SELECT.
  sql: (values) => `insert into usage_event_claims (workspace_id, environment, event_id, claimed_at)
    select @workspaceId, @environment, column1, @now from (values ${values}) where true
    on conflict (workspace_id, environment, event_id) do update set claimed_at = excluded.claimed_at
    where usage_event_claims.claimed_at <= @cutoff returning event_id`,
  bind: (id, out) => out.push(id),
};

/**
 * Claims per-event ids for `windowMs`. Returns the ids claimed now; the others were claimed within
 * the window. A claim older than the window is taken over (so a late prune never widens the
 * window). Ids are claimed in sorted order, one lock order for every writer (see
 * addToAggregates). On SQLite prepared statements of 256 ids run on the raw handle, inside the
 * caller's transaction; on PostgreSQL one statement claims the whole batch from an array.
 */
export async function claimEventIds(
  db: Db,
  sqlite: SQLite.Database | null,
  tenant: Tenant,
  eventIds: readonly string[],
  now: number,
  windowMs: number,
): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  // Distinct too: PostgreSQL refuses an upsert that touches one row twice.
  const ids = [...new Set(eventIds)].sort();
  const cutoff = now - windowMs;
  const { workspaceId, environment } = tenant;
  if (sqlite) {
    if (!db.isTransaction) throw new Error('claimEventIds on SQLite must run inside a transaction');
    const claimed = new Set<string>();
    runRows(sqlite, CLAIM_ROWS, ids, { workspaceId, environment, now, cutoff }, (rows) => {
      for (const id of rows as string[]) claimed.add(id);
    });
    return claimed;
  }
  // `with ordinality ... order by`: the rows go in in the array's (sorted) order.
  const { rows } = await sql<{ eventId: string }>`insert into usage_event_claims (workspace_id, environment, event_id, claimed_at)
    select ${workspaceId}, ${environment}, id, ${now}::bigint from unnest(${ids}::text[]) with ordinality as t(id, n) order by n
    on conflict (workspace_id, environment, event_id) do update set claimed_at = excluded.claimed_at
    where usage_event_claims.claimed_at <= ${cutoff}::bigint
    returning event_id`.execute(db);
  return new Set(rows.map((r) => r.eventId));
}

/** Read-only: which of these event ids were claimed after `since` (what claimEventIds would skip). */
export async function findClaimedEventIds(db: Db, tenant: Tenant, eventIds: readonly string[], since: number): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('usageEventClaims')
    .select('eventId')
    .$call(forTenant(tenant))
    .where('eventId', 'in', [...new Set(eventIds)])
    .where('claimedAt', '>', since)
    .execute();
  return new Set(rows.map((r) => r.eventId));
}

/** Deletes every tenant's claims made at or before `cutoff`; returns how many. */
export async function deleteEventClaimsUpTo(db: Db, cutoff: number): Promise<number> {
  const r = await db.deleteFrom('usageEventClaims').where('claimedAt', '<=', cutoff).executeTakeFirst();
  return Number(r.numDeletedRows);
}
