import { sql, type Expression, type Kysely, type Selectable, type SelectQueryBuilder, type SqlBool, type WhereInterface } from 'kysely';
import { isPostgres } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import { idFloor, idTime } from '../../lib/ids.js';
import type { Tenant } from '../../lib/tenant.js';
import type { AuditEvent } from './audit-event.js';
import type { AuditEventTable } from '../../db/tables/audit-event.table.js';
import { toAuditEvent } from './audit-event.repository.js';
import { prefixRange, type AuditFilter } from './audit-filter.js';
import { ftsMatchExpression, ftsScope, monthTerm, tsQueryConditions, type TextQuery } from './audit-search-text.js';

/**
 * Searching a tenant's audit events (GET /v1/events, saved searches): the filters as SQL and the
 * index plan on each backend. bench/audit-search.ts measures it over ten million events.
 */

type Executor = Kysely<Database>;

/**
 * A builder over audit events, the table itself or a subquery named after it, as the filters see
 * it: Kysely checks their columns and values against the table's types.
 */
type AuditWhere = WhereInterface<{ auditEvents: AuditEventTable }, 'auditEvents'>;

/**
 * The filters that are plain column tests, for both the list and the full-text path. `byRowid`
 * writes the indexed columns as `+column`, which keeps SQLite from walking one of their indexes:
 * the full-text path fetches rows it already knows by rowid (seq), and without ANALYZE
 * statistics SQLite would otherwise prefer the tenant index and read ten million entries per step.
 */
function applyFilters<QB extends AuditWhere>(qb: QB, filter: AuditFilter, byRowid = false): QB {
  const col = (name: 'auditEvents.actorId' | 'auditEvents.targetId' | 'auditEvents.correlationId' | 'auditEvents.id') =>
    byRowid ? sql<string>`+${sql.ref(name)}` : name;
  let q: AuditWhere = qb;
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
  // where() is typed as returning the interface, but it returns a builder like the one it was called on.
  return q as QB;
}

/**
 * A tenant's events matching every filter, newest first.
 *
 * The index plan (bench/audit-search.ts measures it over ten million events):
 * - no text: the tenant index (workspace, environment, id) walks newest first, or the
 *   correlation, actor or target index when that filter is given; the time range is an id range.
 * - text with an id filter (correlation, actor, target), on both: that filter's b-tree index
 *   drives and each row is checked against the text (on SQLite by rowid in the FTS5 index).
 * - text on SQLite: the FTS5 index drives (listByTextSqlite), the time range bounding its walk.
 *   Type and severity have no index of their own, so any other walk would read every row the
 *   FTS5 walk reads and more.
 * - text on PostgreSQL: the tenant index walks a bounded number of rows, then GIN answers a month
 *   at a time (listByTextPostgres).
 */
export async function listAuditEvents(db: Executor, tenant: Tenant, filter: AuditFilter, page: PageParams, plan: SearchPlan = {}): Promise<Page<AuditEvent>> {
  const text = filter.text;
  const byIdIndex = Boolean(filter.correlationId || filter.actorId || filter.targetId);
  if (text && !byIdIndex) {
    return isPostgres(db)
      ? listByTextPostgres(db, tenant, filter, text, page, plan.walkRows ?? PG_WALK_ROWS)
      : listByTextSqlite(db, tenant, filter, text, page);
  }
  let q = applyFilters(db.selectFrom('auditEvents').selectAll().$call(forTenant(tenant)), filter);
  if (text)
    q = isPostgres(db)
      ? matchesTsQuery(q, tenant, filter, text)
      : q.where(
          sql<boolean>`exists (select 1 from audit_events_fts where audit_events_fts match ${ftsMatchExpression(ftsScope(tenant.workspaceId, tenant.environment), { text })} and rowid = audit_events.seq)`,
        );
  const { items, hasMore } = await pageById(q, 'auditEvents', page);
  return { items: items.map(toAuditEvent), hasMore };
}

/** The text, type and severity as tsquery conditions on the search column, one each (see tsQueryConditions). */
function matchesTsQuery<QB extends { where(expression: Expression<SqlBool>): QB }>(qb: QB, tenant: Tenant, filter: AuditFilter, text: TextQuery): QB {
  let q = qb;
  for (const c of tsQueryConditions(ftsScope(tenant.workspaceId, tenant.environment), { text, eventType: filter.eventType, severities: filter.severities })) {
    q = q.where(sql<boolean>`search @@ ${c}::tsquery`);
  }
  return q;
}

/** Rows the PostgreSQL search walks by the tenant index before asking GIN. */
export const PG_WALK_ROWS = 10_000;

/** Knobs of the search plan, for tests that reach its later steps with a few events. */
export interface SearchPlan {
  /** PG_WALK_ROWS by default. */
  walkRows?: number;
}

/**
 * Full text on PostgreSQL. GIN finds matches but returns them in no order, so a page of the
 * newest needs every match fetched and sorted: over a year of a common word, a hundred thousand
 * rows. Two steps keep both dense and sparse searches short:
 *
 * 1. Walk the tenant's newest PG_WALK_ROWS rows in the search's range by the tenant index,
 *    testing each (a subquery with its own LIMIT keeps the planner on that index). A search that
 *    matches one row in a few hundred fills its page here.
 * 2. Otherwise matches are rarer than one in PG_WALK_ROWS / page size, and GIN answers the rest a
 *    month at a time, newest first: each event's tsvector holds its month's term (tsDocument),
 *    and each condition is a GIN scan key of its own, so GIN skips straight to the month. A
 *    month's matches are then few, and the walk stops once the page is full. Months are ranges
 *    of ids (the month term comes from the id's time), so the pages follow id order as the
 *    list without text does.
 *
 * endingBefore goes the other way: oldest first from the cursor, then reversed.
 */
async function listByTextPostgres(
  db: Executor,
  tenant: Tenant,
  filter: AuditFilter,
  text: TextQuery,
  page: PageParams,
  walkRows: number,
): Promise<Page<AuditEvent>> {
  const limit = page.limit ?? 10;
  const backwards = page.endingBefore !== undefined;
  const order = backwards ? 'asc' : 'desc';
  // The ids still to search lie beyond `from` (exclusive) in the direction of the walk, within the time range.
  let from = page.endingBefore ?? page.startingAfter;
  const timeRange = <O>(qb: SelectQueryBuilder<Database, 'auditEvents', O>): SelectQueryBuilder<Database, 'auditEvents', O> => {
    let q = qb;
    if (from !== undefined) q = q.where('auditEvents.id', backwards ? '>' : '<', from);
    if (filter.createdFrom !== undefined) q = q.where('auditEvents.id', '>=', idFloor('auditEvent', filter.createdFrom));
    if (filter.createdTo !== undefined) q = q.where('auditEvents.id', '<', idFloor('auditEvent', filter.createdTo));
    return q;
  };
  const rows: Array<Selectable<AuditEventTable>> = [];

  // 1. The walk. `edge` is the last row it reads; without one, the range holds fewer rows than that.
  const edge = await timeRange(db.selectFrom('auditEvents').select('id').$call(forTenant(tenant)))
    .orderBy('id', order)
    .offset(walkRows - 1)
    .limit(1)
    .executeTakeFirst();
  let walked = timeRange(db.selectFrom('auditEvents').selectAll().$call(forTenant(tenant)));
  if (edge) walked = walked.where('id', backwards ? '<=' : '>=', edge.id);
  const walkedRows = walked.orderBy('id', order).limit(walkRows).as('auditEvents');
  const found = await matchesTsQuery(applyFilters(db.selectFrom(walkedRows).selectAll(), filter), tenant, filter, text)
    .orderBy('auditEvents.id', order)
    .limit(limit + 1)
    .execute();
  rows.push(...found);

  // 2. GIN, a month at a time, from the edge's month to the tenant's last (first) event's.
  if (edge && rows.length <= limit) {
    from = edge.id;
    const end = await timeRange(db.selectFrom('auditEvents').select('id').$call(forTenant(tenant)))
      .orderBy('id', backwards ? 'desc' : 'asc')
      .limit(1)
      .executeTakeFirst();
    const scope = ftsScope(tenant.workspaceId, tenant.environment);
    const months = end ? monthsBetween(idTime(edge.id), idTime(end.id)) : [];
    for (const month of months) {
      const inMonth = matchesTsQuery(
        applyFilters(timeRange(db.selectFrom('auditEvents').selectAll().$call(forTenant(tenant))), filter),
        tenant,
        filter,
        text,
      ).where(sql<boolean>`search @@ ${monthTerm(scope, month)}::tsquery`);
      // Materialized, so the planner plans the month's matches on their own (GIN) rather than
      // walking an index in id order for the outer LIMIT.
      const got = await db
        .with(
          (cte) => cte('matches').materialized(),
          () => inMonth,
        )
        .selectFrom('matches')
        .selectAll()
        .orderBy('id', order)
        .limit(limit + 1 - rows.length)
        .execute();
      rows.push(...(got as Array<Selectable<AuditEventTable>>));
      if (rows.length > limit) break;
    }
  }
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  if (backwards) items.reverse();
  return { items: items.map(toAuditEvent), hasMore };
}

/**
 * The start of every UTC month from the one holding `first` to the one holding `last`, in that
 * direction (newest first when first > last).
 */
export function monthsBetween(first: number, last: number): number[] {
  const start = (ms: number) => {
    const d = new Date(ms);
    return { y: d.getUTCFullYear(), m: d.getUTCMonth() };
  };
  const a = start(first);
  const b = start(last);
  const step = first <= last ? 1 : -1;
  const out: number[] = [];
  for (let i = a.y * 12 + a.m; step > 0 ? i <= b.y * 12 + b.m : i >= b.y * 12 + b.m; i += step) {
    out.push(Date.UTC(Math.floor(i / 12), i % 12, 1));
  }
  return out;
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
async function listByTextSqlite(db: Executor, tenant: Tenant, filter: AuditFilter, text: TextQuery, page: PageParams): Promise<Page<AuditEvent>> {
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
        .where(
          'seq',
          'in',
          ids.map((r) => r.rowid),
        )
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
