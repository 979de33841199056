import { PostgresAdapter, sql, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import type { Actor, AuditEvent, AuditEventInput, AuditSource } from './audit-event.js';
import type { AuditEventTable } from './audit-event.table.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import { idFloor } from '../../lib/ids.js';
import type { Tenant } from '../tenancy/tenant.js';
import { prefixRange, type AuditFilter } from './audit-filter.js';
import { auditSearchText, ftsDocument, ftsMatchExpression, ftsScope, tsQueryExpression, type TextQuery } from './audit-search-text.js';
import { auditWritten } from './audit-commit-signal.js';
import type { AuditCursor } from './audit-cursor.js';

type Executor = Kysely<Database>;

/** An OperationContext, or a platform origin with no tenant (a failed login with an unknown key). */
export interface EventOrigin {
  workspaceId: string | null;
  environment: string | null;
  actor: Actor;
  correlationId: string;
  source: AuditSource;
}

const isPostgres = (db: Executor) => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * Writes one audit event with the caller's executor, so it commits or rolls back with the change,
 * with its search words: a tsvector column on PostgreSQL, a row of the FTS5 table on SQLite.
 */
export async function recordAudit(
  db: Executor,
  deps: Pick<Deps, 'clock' | 'ids'>,
  origin: EventOrigin,
  event: AuditEventInput,
): Promise<string> {
  const id = deps.ids.next('auditEvent');
  const text = auditSearchText({ eventType: event.eventType, targetType: event.targetType ?? null, payload: event.payload ?? {} });
  const postgres = isPostgres(db);
  const row = await db
    .insertInto('auditEvents')
    .values({
      ...(postgres ? ({ search: sql`to_tsvector('simple', ${text})` } as object) : {}),
      id,
      workspaceId: origin.workspaceId,
      environment: origin.environment,
      eventType: event.eventType,
      source: origin.source,
      severity: event.severity ?? 'INFO',
      actorType: origin.actor.type,
      actorId: origin.actor.id,
      targetType: event.targetType ?? null,
      targetId: event.targetId ?? null,
      payload: JSON.stringify(event.payload ?? {}),
      correlationId: origin.correlationId,
      createdAt: deps.clock.now(),
    })
    .returning('seq')
    .executeTakeFirstOrThrow();
  if (!postgres) {
    await sql`insert into audit_events_fts (rowid, body) values (${row.seq}, ${ftsDocument(ftsScope(origin.workspaceId, origin.environment), { text, eventType: event.eventType, severity: event.severity ?? 'INFO' })})`.execute(db);
  }
  auditWritten(db);
  return id;
}


export function toAuditEvent(r: Selectable<AuditEventTable>): AuditEvent {
  return {
    eventId: r.id,
    tenantId: r.workspaceId,
    environment: r.environment as AuditEvent['environment'],
    eventType: r.eventType,
    source: r.source,
    severity: r.severity as AuditEvent['severity'],
    actorType: r.actorType as AuditEvent['actorType'],
    actorId: r.actorId,
    targetType: r.targetType,
    targetId: r.targetId,
    payload: JSON.parse(r.payload) as Record<string, unknown>,
    correlationId: r.correlationId,
    createdAt: Number(r.createdAt),
  };
}

/**
 * The filters that are plain column tests, for both the list and the full-text path. `byRowid`
 * writes the indexed columns as `+column`, which keeps SQLite from walking one of their indexes:
 * the full-text path fetches rows it already knows by rowid (seq), and without ANALYZE
 * statistics SQLite would otherwise prefer the tenant index and read ten million entries per step.
 */
function applyFilters<QB extends { where: (...args: any[]) => QB }>(qb: QB, filter: AuditFilter, byRowid = false): QB {
  const col = (name: string) => (byRowid ? sql`+${sql.ref(name)}` : name);
  let q = qb as any;
  if (filter.eventType && 'exact' in filter.eventType) q = q.where('auditEvents.eventType', '=', filter.eventType.exact);
  if (filter.eventType && 'prefix' in filter.eventType) {
    const [lo, hi] = prefixRange(filter.eventType.prefix);
    q = q.where('auditEvents.eventType', '>=', lo).where('auditEvents.eventType', '<', hi);
  }
  if (filter.severities) q = q.where('auditEvents.severity', 'in', filter.severities);
  if (filter.actorType) q = q.where('auditEvents.actorType', '=', filter.actorType);
  if (filter.actorId) q = q.where(col('auditEvents.actorId'), '=', filter.actorId);
  if (filter.targetType) q = q.where('auditEvents.targetType', '=', filter.targetType);
  if (filter.targetId) q = q.where(col('auditEvents.targetId'), '=', filter.targetId);
  if (filter.correlationId) q = q.where(col('auditEvents.correlationId'), '=', filter.correlationId);
  if (filter.createdFrom !== undefined) q = q.where(col('auditEvents.id'), '>=', idFloor('auditEvent', filter.createdFrom));
  if (filter.createdTo !== undefined) q = q.where(col('auditEvents.id'), '<', idFloor('auditEvent', filter.createdTo));
  return q as QB;
}

/**
 * A tenant's events matching every filter, newest first.
 *
 * The index plan (bench/audit-search.ts measures it over ten million events):
 * - no text: the tenant index (workspace, environment, id) walks newest first, or the
 *   correlation, actor or target index when that filter is given; the time range is an id range.
 * - text on PostgreSQL: the GIN index on the tsvector, or the tenant index with the match checked
 *   per row, whichever the planner finds cheaper.
 * - text on SQLite: the FTS5 index drives (see listByText), the time range bounding its walk,
 *   unless an id filter (correlation, actor, target) is given: then its b-tree index drives and
 *   each row is checked against the FTS5 index by rowid. Type and severity have no index of
 *   their own, so any other walk would read every row the FTS5 walk reads and more.
 */
export async function listAuditEvents(db: Executor, tenant: Tenant, filter: AuditFilter, page: PageParams): Promise<Page<AuditEvent>> {
  const text = filter.text;
  if (text && !isPostgres(db) && !filter.correlationId && !filter.actorId && !filter.targetId) {
    return listByText(db, tenant, filter, text, page);
  }
  let q = applyFilters(db.selectFrom('auditEvents').selectAll().$call(forTenant(tenant)), filter);
  if (text && isPostgres(db)) q = q.where(sql<boolean>`search @@ to_tsquery('simple', ${tsQueryExpression(text)})`);
  if (text && !isPostgres(db)) {
    q = q.where(sql<boolean>`exists (select 1 from audit_events_fts where audit_events_fts match ${ftsMatchExpression(ftsScope(tenant.workspaceId, tenant.environment), { text })} and rowid = audit_events.seq)`);
  }
  const { items, hasMore } = await pageById(q, 'auditEvents', page);
  return { items: items.map(toAuditEvent), hasMore };
}

/** Rowids the FTS5 index is read ahead by in the first step; each further step doubles it, up to the max. */
const FTS_CHUNK = 200;
const FTS_CHUNK_MAX = 6400;
/**
 * How much later than its id an event may commit. The FTS5 walk goes in commit order (rowid =
 * seq); a time range becomes a rowid range widened by this much on each side, and the rows are
 * then checked against the range itself. Transactions are far shorter.
 */
const COMMIT_SLACK_MS = 60 * 60 * 1000;

/**
 * Full text on SQLite: FTS5 returns the tenant's matching rowids newest first (its own order,
 * no sort), a chunk at a time, within the rowids the time range and the cursor allow; each
 * chunk's rows are fetched by rowid and checked against the other filters until the page is
 * full. Pages follow commit order; the cursors are still event ids.
 */
async function listByText(db: Executor, tenant: Tenant, filter: AuditFilter, text: TextQuery, page: PageParams): Promise<Page<AuditEvent>> {
  const limit = page.limit ?? 10;
  const backwards = page.endingBefore !== undefined;
  const anchorId = page.endingBefore ?? page.startingAfter;
  // Rowids strictly between lo and hi (null: unbounded).
  let lo = filter.createdFrom !== undefined ? await seqBefore(db, filter.createdFrom - COMMIT_SLACK_MS) : null;
  let hi = filter.createdTo !== undefined ? await seqFrom(db, filter.createdTo + COMMIT_SLACK_MS) : null;
  if (anchorId !== undefined) {
    const anchor = await db.selectFrom('auditEvents').select('seq').$call(forTenant(tenant)).where('id', '=', anchorId).executeTakeFirst();
    // An unknown cursor starts from the newest (or oldest) end, as the id-ordered list would.
    if (anchor && backwards) lo = Math.max(lo ?? 0, anchor.seq);
    if (anchor && !backwards) hi = Math.min(hi ?? Number.MAX_SAFE_INTEGER, anchor.seq);
  }
  // Type and severity go into the FTS5 query too (see ftsDocument), and are tested on the rows.
  const match = ftsMatchExpression(ftsScope(tenant.workspaceId, tenant.environment), { text, eventType: filter.eventType, severities: filter.severities });
  const rows: Array<Selectable<AuditEventTable>> = [];
  for (let chunk = FTS_CHUNK; ; chunk = Math.min(chunk * 2, FTS_CHUNK_MAX)) {
    const below = hi === null ? sql`` : sql`and rowid < ${hi}`;
    const above = lo === null ? sql`` : sql`and rowid > ${lo}`;
    const { rows: ids } = await sql<{ rowid: number }>`select rowid from audit_events_fts
      where audit_events_fts match ${match} ${above} ${below} order by rowid ${backwards ? sql`asc` : sql`desc`} limit ${chunk}`.execute(db);
    if (ids.length === 0) break;
    const last = ids[ids.length - 1]!.rowid;
    if (backwards) lo = last;
    else hi = last;
    const found = await applyFilters(
      db
        .selectFrom('auditEvents')
        .selectAll()
        .where('seq', 'in', ids.map((r) => r.rowid))
        .where(sql`+${sql.ref('auditEvents.workspaceId')}`, '=', tenant.workspaceId)
        .where(sql`+${sql.ref('auditEvents.environment')}`, '=', tenant.environment),
      filter,
      true,
    )
      .orderBy('seq', backwards ? 'asc' : 'desc')
      .execute();
    rows.push(...found);
    if (rows.length > limit || ids.length < chunk) break;
  }
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  if (backwards) items.reverse();
  return { items: items.map(toAuditEvent), hasMore };
}

/**
 * The seq of the newest event (any tenant) whose id is older than `ms`: every event created at
 * `ms` + COMMIT_SLACK_MS or later was inserted after it, so has a larger seq. Null when none.
 */
async function seqBefore(db: Executor, ms: number): Promise<number | null> {
  const row = await db.selectFrom('auditEvents').select('seq').where('id', '<', idFloor('auditEvent', ms)).orderBy('id', 'desc').limit(1).executeTakeFirst();
  return row ? row.seq : null;
}

/**
 * The seq of the oldest event (any tenant) created at `ms` or later: every event created before
 * `ms` - COMMIT_SLACK_MS was inserted before it, so has a smaller seq. Null when none.
 */
async function seqFrom(db: Executor, ms: number): Promise<number | null> {
  const row = await db.selectFrom('auditEvents').select('seq').where('id', '>=', idFloor('auditEvent', ms)).orderBy('id', 'asc').limit(1).executeTakeFirst();
  return row ? row.seq : null;
}

/**
 * Every tenant's events in [since, until), oldest first, a page at a time: for the NDJSON
 * export. The range is a range of the primary key (ids sort by time).
 */
export async function* auditEventsBetween(db: Executor, since: number, until: number, pageSize = 1000): AsyncGenerator<AuditEvent> {
  let after = idFloor('auditEvent', since);
  const before = idFloor('auditEvent', until);
  for (;;) {
    const rows = await db.selectFrom('auditEvents').selectAll().where('id', '>=', after).where('id', '<', before).orderBy('id').limit(pageSize).execute();
    for (const r of rows) yield toAuditEvent(r);
    if (rows.length < pageSize) return;
    after = `${rows[rows.length - 1]!.id}\u0000`;
  }
}

/** Deletes events created before the cutoff, every tenant, in chunks so no delete holds the write lock long. */
export async function deleteAuditEventsBefore(db: Executor, cutoff: number, chunk = 5000): Promise<number> {
  const floor = idFloor('auditEvent', cutoff);
  let total = 0;
  for (;;) {
    const ids = await db.selectFrom('auditEvents').select('id').where('id', '<', floor).orderBy('id').limit(chunk).execute();
    if (ids.length === 0) return total;
    const r = await db.deleteFrom('auditEvents').where('id', 'in', ids.map((x) => x.id)).executeTakeFirst();
    total += Number(r.numDeletedRows);
    if (ids.length < chunk) return total;
  }
}

/** An event as the live stream reads it: with its cursor. */
export interface CursoredAuditEvent {
  cursor: AuditCursor;
  event: AuditEvent;
}

/**
 * Whether a row's transaction is behind every transaction still running, so that no row can
 * later appear before it in cursor order. On SQLite every committed row is (one writer at a time).
 */
function settledExpression(db: Executor) {
  return isPostgres(db) ? sql<boolean>`(tx < pg_snapshot_xmin(pg_current_snapshot())::text::bigint)` : sql<boolean>`1`;
}

const cursorOf = (r: { tx: number | string; seq: number | string }): AuditCursor => ({ tx: Number(r.tx), seq: Number(r.seq) });

/**
 * Every tenant's events after `after` in cursor order, settled ones only (see settledExpression),
 * and whether unsettled rows wait behind them (then the reader looks again shortly).
 */
export async function readFeed(db: Executor, after: AuditCursor, limit: number): Promise<{ events: CursoredAuditEvent[]; waiting: boolean }> {
  const rows = await db
    .selectFrom('auditEvents')
    .selectAll()
    .select(settledExpression(db).as('settled'))
    .where(sql<boolean>`(tx, seq) > (${after.tx}, ${after.seq})`)
    .orderBy('tx')
    .orderBy('seq')
    .limit(limit)
    .execute();
  const events: CursoredAuditEvent[] = [];
  for (const r of rows) {
    if (!r.settled || (r.settled as unknown) === 0) return { events, waiting: true };
    events.push({ cursor: cursorOf(r), event: toAuditEvent(r) });
  }
  return { events, waiting: false };
}

/** The cursor of the newest settled event (the start of a stream without Last-Event-ID). */
export async function feedHead(db: Executor): Promise<AuditCursor> {
  const r = await db
    .selectFrom('auditEvents')
    .select(['tx', 'seq'])
    .where(settledExpression(db))
    .orderBy('tx', 'desc')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r ? cursorOf(r) : { tx: 0, seq: 0 };
}

/** A tenant's events in (after, upTo], in cursor order: a reconnecting subscriber catching up. */
export async function readTenantFeed(db: Executor, tenant: Tenant, after: AuditCursor, upTo: AuditCursor, limit: number): Promise<CursoredAuditEvent[]> {
  const rows = await db
    .selectFrom('auditEvents')
    .selectAll()
    .$call(forTenant(tenant))
    .where(sql<boolean>`(tx, seq) > (${after.tx}, ${after.seq})`)
    .where(sql<boolean>`(tx, seq) <= (${upTo.tx}, ${upTo.seq})`)
    .orderBy('tx')
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ cursor: cursorOf(r), event: toAuditEvent(r) }));
}
