import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import type { Actor, AuditEvent, AuditEventInput, AuditSource } from './audit-event.js';
import type { AuditEventTable } from './audit-event.table.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import { idFloor } from '../../lib/ids.js';
import type { Tenant } from '../tenancy/tenant.js';
import { prefixRange, type AuditFilter } from './audit-filter.js';

type Executor = Kysely<Database>;

/** An OperationContext, or a platform origin with no tenant (a failed login with an unknown key). */
export interface EventOrigin {
  workspaceId: string | null;
  environment: string | null;
  actor: Actor;
  correlationId: string;
  source: AuditSource;
}

/** Writes one audit event with the caller's executor, so it commits or rolls back with the change. */
export async function recordAudit(
  db: Executor,
  deps: Pick<Deps, 'clock' | 'ids'>,
  origin: EventOrigin,
  event: AuditEventInput,
): Promise<string> {
  const id = deps.ids.next('auditEvent');
  await db
    .insertInto('auditEvents')
    .values({
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
    .execute();
  return id;
}


function toAuditEvent(r: Selectable<AuditEventTable>): AuditEvent {
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
 * A tenant's events matching every filter, newest first, by the time-sortable id (the tenant
 * index serves the order and the time range; the other filters are checked on the rows it walks).
 */
export async function listAuditEvents(db: Executor, tenant: Tenant, filter: AuditFilter, page: PageParams): Promise<Page<AuditEvent>> {
  let q = db.selectFrom('auditEvents').selectAll().$call(forTenant(tenant));
  if (filter.eventType && 'exact' in filter.eventType) q = q.where('eventType', '=', filter.eventType.exact);
  if (filter.eventType && 'prefix' in filter.eventType) {
    const [lo, hi] = prefixRange(filter.eventType.prefix);
    q = q.where('eventType', '>=', lo).where('eventType', '<', hi);
  }
  if (filter.severities) q = q.where('severity', 'in', filter.severities);
  if (filter.actorType) q = q.where('actorType', '=', filter.actorType);
  if (filter.actorId) q = q.where('actorId', '=', filter.actorId);
  if (filter.targetType) q = q.where('targetType', '=', filter.targetType);
  if (filter.targetId) q = q.where('targetId', '=', filter.targetId);
  if (filter.correlationId) q = q.where('correlationId', '=', filter.correlationId);
  if (filter.createdFrom !== undefined) q = q.where('id', '>=', idFloor('auditEvent', filter.createdFrom));
  if (filter.createdTo !== undefined) q = q.where('id', '<', idFloor('auditEvent', filter.createdTo));
  const { items, hasMore } = await pageById(q, 'auditEvents', page);
  return { items: items.map(toAuditEvent), hasMore };
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
