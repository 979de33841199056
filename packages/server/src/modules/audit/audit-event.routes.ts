import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { bearerSecurity, errors, ListOf, ListQuery } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import { AppError } from '../../lib/errors.js';
import { listAuditEvents } from './audit-search.repository.js';
import { filterErrors } from './audit-filter.js';
import { AuditFiltersSchema, AuditSearchPresetSchema, CreateAuditSearchPresetBody, presentPreset } from './audit-search-preset.js';
import { findPreset, listPresets } from './audit-search-preset.repository.js';
import { createPreset, removePreset } from './save-audit-search-preset.js';
import { IdParams, IdempotencyHeaders } from '../../http/schemas.js';
import { idempotent } from '../idempotency/idempotent.js';
import { notFound } from '../../lib/errors.js';
import { AuditEventSchema, presentAuditEvent } from './audit-event.schema.js';
import { auditStreamRoutes } from './audit-stream.routes.js';
import type { AuditFeed } from './audit-feed.js';

/** The audit event log. Read with a workspace key holding events:read (admin holds every scope). */
export async function auditEventRoutes(app: App, deps: Deps, feed: AuditFeed): Promise<void> {
  await auditStreamRoutes(app, deps, feed);
  app.get('/v1/events', {
    config: { auth: { kind: 'workspace', scope: 'events:read' } },
    schema: {
      operationId: 'listAuditEvents',
      summary: "List the workspace's audit events, newest first",
      description:
        "The key's workspace and environment decide what is listed; the filters (full text q, type, severity and above, actor, target, correlation id, a time range to the second) combine with AND. tenant_id, when given, must be the key's own workspace: any other value gets 404, the same answer as a workspace that does not exist. Page with startingAfter (the eventId of the last item) and endingBefore; events are kept 365 days.",
      tags: ['Audit events'],
      security: bearerSecurity,
      querystring: Type.Object(
        {
          ...ListQuery,
          tenant_id: Type.Optional(Type.String({ maxLength: 100, description: "The workspace (ws_…): the key's own." })),
          ...AuditFiltersSchema.properties,
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
      const result = await listAuditEvents(deps.db, req.ctx, filterErrors(filters, 'query'), { limit, startingAfter, endingBefore });
      return { object: 'list' as const, data: result.items.map(presentAuditEvent), hasMore: result.hasMore };
    },
  });

  const presets = { tags: ['Audit events'], security: bearerSecurity };
  const reader = { auth: { kind: 'workspace', scope: 'events:read' } } as const;
  app.post('/api/v1/events/presets', {
    config: reader,
    schema: {
      ...presets,
      operationId: 'createAuditSearchPreset',
      summary: 'Save an audit search',
      description: 'A name (unique in the workspace and environment) and the filters of GET /v1/events, checked the same way.',
      headers: IdempotencyHeaders,
      body: CreateAuditSearchPresetBody,
      response: { 200: AuditSearchPresetSchema, ...errors(403, 409) },
    },
    handler: (req, reply) => idempotent(deps, req, reply, async (tx) => presentPreset(await createPreset(tx, req.ctx, req.body))),
  });
  app.get('/api/v1/events/presets', {
    config: reader,
    schema: {
      ...presets,
      operationId: 'listAuditSearchPresets',
      summary: 'List saved audit searches, newest first',
      description: "Saved audit searches of the key's environment, newest first, with cursor pagination.",
      querystring: Type.Object(ListQuery, { additionalProperties: false }),
      response: { 200: ListOf(AuditSearchPresetSchema), ...errors(403) },
    },
    handler: async (req) => {
      const page = await listPresets(deps.db, req.ctx, req.query);
      return { object: 'list' as const, data: page.items.map(presentPreset), hasMore: page.hasMore };
    },
  });
  app.get('/api/v1/events/presets/:id/events', {
    config: reader,
    schema: {
      ...presets,
      operationId: 'runAuditSearchPreset',
      summary: 'Run a saved audit search',
      description: 'The events matching the saved filters, newest first, paged like GET /v1/events.',
      params: IdParams,
      querystring: Type.Object(ListQuery, { additionalProperties: false }),
      response: { 200: ListOf(AuditEventSchema), ...errors(403, 404) },
    },
    handler: async (req) => {
      const preset = await findPreset(deps.db, req.ctx, req.params.id);
      if (!preset) throw notFound('saved search', req.params.id);
      const result = await listAuditEvents(deps.db, req.ctx, filterErrors(preset.filters, 'filters'), req.query);
      return { object: 'list' as const, data: result.items.map(presentAuditEvent), hasMore: result.hasMore };
    },
  });
  app.delete('/api/v1/events/presets/:id', {
    config: reader,
    schema: {
      ...presets,
      operationId: 'deleteAuditSearchPreset',
      summary: 'Delete a saved audit search',
      description: 'Deletes the saved search; the audit events it found are not touched.',
      params: IdParams,
      response: { 200: Type.Object({ id: Type.String(), object: Type.Literal('audit_search_preset'), deleted: Type.Literal(true) }), ...errors(403, 404) },
    },
    handler: async (req) => {
      await removePreset(deps, req.ctx, req.params.id);
      return { id: req.params.id, object: 'audit_search_preset' as const, deleted: true as const };
    },
  });
}
