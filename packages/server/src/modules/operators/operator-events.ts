import type { EventOrigin } from '../audit/audit-event.repository.js';
import type { Actor, AuditSource } from '../../lib/operation-context.js';

/**
 * Operator accounts are workspace-wide, and so are their events (created, invited, signed in,
 * removed): like `workspace.created`, they are recorded under the `test` environment, whatever
 * environment the console showed when it happened, so one search finds them all.
 */
export function accountOrigin(workspaceId: string | null, actor: Actor, correlationId: string, source: AuditSource): EventOrigin {
  return { workspaceId, environment: workspaceId === null ? null : 'test', actor, correlationId, source };
}
