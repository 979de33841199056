import { sql, type Kysely, type Selectable } from 'kysely';
import { isPostgres } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import type { AuditEvent, AuditEventInput } from './audit-event.js';
import type { Actor, AuditSource } from '../../lib/operation-context.js';
import type { AuditEventTable } from '../../db/tables/audit-event.table.js';
import { forTenant } from '../../db/tenant-scope.js';
import { idFloor, idTime } from '../../lib/ids.js';
import type { Tenant } from '../../lib/tenant.js';
import { auditSearchText, ftsDocument, ftsScope, tsDocument } from './audit-search-text.js';
import { signalAuditCommitted } from './audit-commit-signal.js';
import { afterCommit } from '../../db/transaction.js';
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

/**
 * Writes one audit event with the caller's executor, so it commits or rolls back with the change,
 * with its search terms (audit-search-text.ts): a tsvector column on PostgreSQL, a row of the FTS5
 * table on SQLite.
 */
export async function recordAudit(db: Executor, deps: Pick<Deps, 'clock' | 'ids'>, origin: EventOrigin, event: AuditEventInput): Promise<string> {
  return (await recordAudits(db, deps, [{ origin, event }]))[0]!;
}

/**
 * Writes several audit events in one statement (and one for their search rows), in the order
 * given: a job that closes many periods in one transaction writes its events at the cost of one.
 */
export async function recordAudits(
  db: Executor,
  deps: Pick<Deps, 'clock' | 'ids'>,
  events: ReadonlyArray<{ origin: EventOrigin; event: AuditEventInput }>,
): Promise<string[]> {
  if (events.length === 0) return [];
  const postgres = isPostgres(db);
  const createdAt = deps.clock.now();
  const written = events.map(({ origin, event }) => {
    const id = deps.ids.next('auditEvent');
    const terms = {
      text: auditSearchText({ eventType: event.eventType, targetType: event.targetType ?? null, payload: event.payload ?? {} }),
      eventType: event.eventType,
      severity: event.severity ?? 'INFO',
    };
    const scope = ftsScope(origin.workspaceId, origin.environment);
    return {
      id,
      fts: postgres ? null : ftsDocument(scope, terms),
      row: {
        ...(postgres ? ({ search: sql`array_to_tsvector(${tsDocument(scope, { ...terms, idMs: idTime(id) })}::text[])` } as object) : {}),
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
        createdAt,
      },
    };
  });
  const rows = await db
    .insertInto('auditEvents')
    .values(written.map((w) => w.row))
    .returning(['id', 'seq'])
    .execute();
  if (!postgres) {
    // RETURNING does not promise the order of the rows: each search row finds its event by id.
    const seqOf = new Map(rows.map((r) => [r.id, r.seq]));
    const values = written.map((w) => sql`(${seqOf.get(w.id)}, ${w.fts})`);
    await sql`insert into audit_events_fts (rowid, body) values ${sql.join(values)}`.execute(db);
  }
  await afterCommit(db, signalAuditCommitted);
  return written.map((w) => w.id);
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
    const r = await db
      .deleteFrom('auditEvents')
      .where(
        'id',
        'in',
        ids.map((x) => x.id),
      )
      .executeTakeFirst();
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
