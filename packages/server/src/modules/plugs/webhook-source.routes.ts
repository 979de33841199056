import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { idempotent } from '../idempotency/idempotent.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import { AppError, notFound } from '../../lib/errors.js';
import { parseIsoTimestamp } from '../../lib/timestamps.js';
import { replayWebhook } from './replay-webhook.js';
import type { WebhookWriter } from './write-webhook.js';
import { createWebhookSource, deleteWebhookSource, metricNameOf, updateWebhookSource } from './save-webhook-source.js';
import { logStatuses, presentLogEntry, WebhookLogEntrySchema, WebhookLogEntrySummarySchema } from './webhook-log.js';
import { findLogEntry, listLogEntries } from './webhook-log.repository.js';
import { CreateWebhookSourceBody, presentWebhookSource, UpdateWebhookSourceBody, WebhookSourceSchema } from './webhook-source.js';
import { findWebhookSource, listWebhookSources } from './webhook-source.repository.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;

function instant(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const t = parseIsoTimestamp(value);
  if (t === null) throw new AppError('VALIDATION_FAILED', `${field} must be an ISO 8601 timestamp with a zone, such as 2026-11-23T12:00:00Z.`, { field });
  return t;
}

/** Operator API: webhook sources and the ingestion log. Admin scope. */
export async function webhookSourceRoutes(app: App, deps: Deps, writer: WebhookWriter): Promise<void> {
  const sources = { tags: ['Webhook sources'], security: bearerSecurity };
  app.post('/api/v1/webhook-sources', {
    config: admin,
    schema: {
      ...sources,
      operationId: 'createWebhookSource',
      summary: 'Create a webhook source',
      description:
        "A provider template (payment, messaging, email, code_hosting, chat, custom) decides the signature scheme, where the event type is read and the default event filter and field mappings; what you give overrides them. The signing secret is sealed with AES-256-GCM and never returned. Give the provider the source's url.",
      headers: IdempotencyHeaders,
      body: CreateWebhookSourceBody,
      response: { 200: WebhookSourceSchema, ...errors(403, 422) },
    },
    handler: (req, reply) =>
      idempotent(deps, req, reply, async (tx) => {
        const { source, metricName } = await createWebhookSource(tx, req.ctx, req.body);
        return presentWebhookSource(source, metricName);
      }),
  });
  app.get('/api/v1/webhook-sources', {
    config: admin,
    schema: {
      ...sources,
      operationId: 'listWebhookSources',
      summary: 'List webhook sources, newest first',
      description: "Webhook sources of the key's environment, newest first, with cursor pagination; signing secrets are never returned.",
      querystring: Type.Object(ListQuery, { additionalProperties: false }),
      response: { 200: ListOf(WebhookSourceSchema), ...errors(403) },
    },
    handler: async (req) => {
      const page = await listWebhookSources(deps.db, req.ctx, req.query);
      const data = [];
      for (const s of page.items) data.push(presentWebhookSource(s, await metricNameOf(deps.db, req.ctx, s.metricId)));
      return { object: 'list' as const, data, hasMore: page.hasMore };
    },
  });
  app.get('/api/v1/webhook-sources/:id', {
    config: admin,
    schema: {
      ...sources,
      operationId: 'retrieveWebhookSource',
      summary: 'Retrieve a webhook source',
      description: 'One webhook source by its id (wsrc_…) with its field mappings and the URL to give the provider; never its signing secret.',
      params: IdParams,
      response: { 200: WebhookSourceSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const s = await findWebhookSource(deps.db, req.ctx, req.params.id);
      if (!s) throw notFound('webhook source', req.params.id);
      return presentWebhookSource(s, await metricNameOf(deps.db, req.ctx, s.metricId));
    },
  });
  app.patch('/api/v1/webhook-sources/:id', {
    config: admin,
    schema: {
      ...sources,
      operationId: 'updateWebhookSource',
      summary: 'Update a webhook source',
      description:
        'Any field but provider. fieldMappings are merged over the current ones (a null timestamp removes that mapping); a new signingSecret replaces the old one at once on every node.',
      params: IdParams,
      body: UpdateWebhookSourceBody,
      response: { 200: WebhookSourceSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const { source, metricName } = await updateWebhookSource(deps, req.ctx, req.params.id, req.body);
      return presentWebhookSource(source, metricName);
    },
  });
  app.delete('/api/v1/webhook-sources/:id', {
    config: admin,
    schema: {
      ...sources,
      operationId: 'deleteWebhookSource',
      summary: 'Delete a webhook source',
      description: 'Its URL answers 404 from now on. Its ingestion log entries stay until retention removes them.',
      params: IdParams,
      response: { 200: Type.Object({ id: Type.String(), object: Type.Literal('webhook_source'), deleted: Type.Literal(true) }), ...errors(403, 404) },
    },
    handler: async (req) => {
      await deleteWebhookSource(deps, req.ctx, req.params.id);
      return { id: req.params.id, object: 'webhook_source' as const, deleted: true as const };
    },
  });

  const log = { tags: ['Webhook ingestion log'], security: bearerSecurity };
  app.get('/api/v1/webhook-log', {
    config: admin,
    schema: {
      ...log,
      operationId: 'listReceivedWebhooks',
      summary: 'List received webhooks, newest first',
      description: `Every request that reached a source: verified or not, accepted, duplicate, discarded or rejected, with the reason, and the source's id and its displayName as it was when the request arrived (sourceDisplayName; a later rename does not change it). Bodies are left out of the list; retrieve an entry for its raw body. Entries are kept WEBHOOK_LOG_RETENTION_DAYS days (30 by default).`,
      querystring: Type.Object(
        {
          ...ListQuery,
          sourceId: Type.Optional(Type.String({ maxLength: 100, description: 'Only this source (wsrc_…).' })),
          status: Type.Optional(Type.Union(logStatuses.map((s) => Type.Literal(s)))),
          receivedFrom: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601; inclusive.' })),
          receivedTo: Type.Optional(Type.String({ maxLength: 40, description: 'ISO 8601; exclusive.' })),
        },
        { additionalProperties: false },
      ),
      response: { 200: ListOf(WebhookLogEntrySummarySchema), ...errors(403) },
    },
    handler: async (req) => {
      const { sourceId, status, receivedFrom, receivedTo, ...page } = req.query;
      const filter = { sourceId, status, receivedFrom: instant(receivedFrom, 'query.receivedFrom'), receivedTo: instant(receivedTo, 'query.receivedTo') };
      const result = await listLogEntries(deps.db, req.ctx, filter, page);
      return { object: 'list' as const, data: result.items.map((e) => presentLogEntry(e, false)), hasMore: result.hasMore };
    },
  });
  app.get('/api/v1/webhook-log/:id', {
    config: admin,
    schema: {
      ...log,
      operationId: 'retrieveReceivedWebhook',
      summary: 'Retrieve a received webhook with its raw body',
      description:
        "One received webhook with its source's id and the source's displayName when it arrived, its headers, raw body, verification result and what became of each event.",
      params: IdParams,
      response: { 200: WebhookLogEntrySchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const e = await findLogEntry(deps.db, req.ctx, req.params.id);
      if (!e) throw notFound('webhook log entry', req.params.id);
      return presentLogEntry(e, true);
    },
  });
  app.post('/api/v1/webhook-log/:id/replay', {
    config: admin,
    schema: {
      ...log,
      operationId: 'replayReceivedWebhook',
      summary: 'Replay a received webhook',
      description:
        "Maps the stored body again with the source's current filter and mappings, without verifying again, so only entries that passed verification can be replayed (409 otherwise). Deduplication still applies: an event stored before comes back as a duplicate. Returns the new log entry, whose replayOf names this one and whose sourceDisplayName is the source's current name.",
      params: IdParams,
      response: { 200: WebhookLogEntrySchema, ...errors(403, 404, 409) },
    },
    handler: async (req) => presentLogEntry(await replayWebhook(deps, writer, req.ctx, req.params.id), true),
  });
}
