import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Deps } from '../../deps.js';
import type { Actor, AuditEventInput, AuditSource } from './audit-event.js';

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

