import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { bearerSecurity, errors, ListOf, ListQuery } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import { AppError } from '../../lib/errors.js';
import { listAuditEvents } from './audit-event.repository.js';
import { AuditEventSchema, presentAuditEvent } from './audit-event.schema.js';

/** The audit event log. Read with a workspace key holding events:read (admin holds every scope). */
export async function auditEventRoutes(app: App, deps: Deps): Promise<void> {
  app.get('/v1/events', {
    config: { auth: { kind: 'workspace', scope: 'events:read' } },
    schema: {
      summary: "List the workspace's audit events, newest first",
      description:
        "The key's workspace and environment decide what is listed. tenant_id, when given, must be the key's own workspace: any other value gets 404, the same answer as a workspace that does not exist. Page with startingAfter (the eventId of the last item) and endingBefore; events are kept 365 days.",
      tags: ['Audit events'],
      security: bearerSecurity,
      querystring: Type.Object(
        { ...ListQuery, tenant_id: Type.Optional(Type.String({ maxLength: 100, description: "The workspace (ws_…): the key's own." })) },
        { additionalProperties: false },
      ),
      response: { 200: ListOf(AuditEventSchema), ...errors(403, 404) },
    },
    handler: async (req) => {
      const { tenant_id: tenantId, ...page } = req.query;
      if (tenantId !== undefined && tenantId !== req.ctx.workspaceId) {
        throw new AppError('NOT_FOUND', `No tenant '${tenantId}' is readable with this key.`, { field: 'query.tenant_id' });
      }
      const result = await listAuditEvents(deps.db, req.ctx, page);
      return { object: 'list' as const, data: result.items.map(presentAuditEvent), hasMore: result.hasMore };
    },
  });
}
