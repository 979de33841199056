import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { bearerSecurity, errors, ListOf, ListQuery } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import { AppError } from '../../lib/errors.js';
import { listAuditEvents } from './audit-event.repository.js';
import { parseAuditFilter } from './audit-filter.js';
import { AuditEventSchema, presentAuditEvent } from './audit-event.schema.js';

/** The audit event log. Read with a workspace key holding events:read (admin holds every scope). */
export async function auditEventRoutes(app: App, deps: Deps): Promise<void> {
  app.get('/v1/events', {
    config: { auth: { kind: 'workspace', scope: 'events:read' } },
    schema: {
      summary: "List the workspace's audit events, newest first",
      description:
        "The key's workspace and environment decide what is listed; the filters (type, severity and above, actor, target, correlation id, a time range to the second) combine with AND. tenant_id, when given, must be the key's own workspace: any other value gets 404, the same answer as a workspace that does not exist. Page with startingAfter (the eventId of the last item) and endingBefore; events are kept 365 days.",
      tags: ['Audit events'],
      security: bearerSecurity,
      querystring: Type.Object(
        {
          ...ListQuery,
          tenant_id: Type.Optional(Type.String({ maxLength: 100, description: "The workspace (ws_…): the key's own." })),
          type: Type.Optional(Type.String({ description: 'An event type (api_key.rotated) or every type under a prefix (api_key.*).' })),
          severity: Type.Optional(Type.String({ description: 'This severity and every higher one: DEBUG, INFO, NOTICE, WARN, ERROR, CRITICAL.' })),
          actorType: Type.Optional(Type.String()),
          actorId: Type.Optional(Type.String()),
          targetType: Type.Optional(Type.String()),
          targetId: Type.Optional(Type.String()),
          correlationId: Type.Optional(Type.String()),
          createdFrom: Type.Optional(Type.String({ description: 'ISO 8601 to the second; inclusive.' })),
          createdTo: Type.Optional(Type.String({ description: 'ISO 8601 to the second; exclusive.' })),
        },
        { additionalProperties: false },
      ),
      response: { 200: ListOf(AuditEventSchema), ...errors(403, 404) },
    },
    handler: async (req) => {
      const { tenant_id: tenantId, limit, startingAfter, endingBefore, ...filters } = req.query;
      if (tenantId !== undefined && tenantId !== req.ctx.workspaceId) {
        throw new AppError('NOT_FOUND', `No tenant '${tenantId}' is readable with this key.`, { field: 'query.tenant_id' });
      }
      const filter = parseAuditFilter(filters);
      if (!filter.ok) {
        throw new AppError('VALIDATION_FAILED', filter.errors.map((e) => `${e.field} ${e.message}`).join(' '), {
          details: filter.errors.map((e) => ({ code: 'VALIDATION_FAILED' as const, message: `${e.field} ${e.message}`, field: e.field })),
        });
      }
      const result = await listAuditEvents(deps.db, req.ctx, filter.value, { limit, startingAfter, endingBefore });
      return { object: 'list' as const, data: result.items.map(presentAuditEvent), hasMore: result.hasMore };
    },
  });
}
