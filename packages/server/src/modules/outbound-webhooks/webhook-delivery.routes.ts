import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { Db } from '../../db/database.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, ListOf, ListQuery, Timestamp } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import { toIso } from '../../lib/clock.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { Tenant } from '../../lib/tenant.js';
import { parseIsoTimestamp } from '../../lib/timestamps.js';
import { idempotent } from '../idempotency/idempotent.js';
import { replayFailedDeliveries } from './replay-failed-deliveries.js';
import { replayWebhookMessage } from './replay-webhook-message.js';
import { sendTestEvent } from './send-test-event.js';
import {
  attemptStatuses,
  attemptTriggers,
  DeliveryStatusSchema,
  MAX_DELIVERIES_PER_MESSAGE,
  presentAttempt,
  presentDelivery,
  presentEventTypes,
  presentMessage,
  WebhookAttemptSchema,
  WebhookDeliverySchema,
  WebhookEventTypeSchema,
  WebhookMessageSchema,
} from './webhook-log.js';
import { orBadRequest, parseAttemptFilter, parseMessageFilter } from './webhook-log-filter.js';
import { listDeliveriesOfMessages, listWebhookAttempts, listWebhookMessages } from './webhook-log.repository.js';
import { findMessage } from './webhook-message.repository.js';
import type { WebhookMessage } from './webhook-message.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = { tags: ['Outbound webhooks'], security: bearerSecurity };

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });
const Instant = (description: string) => Type.String({ maxLength: 40, description: `${description} ISO 8601 with a zone, e.g. 2026-11-23T12:00:00Z.` });
const EventTypeFilter = Type.String({
  maxLength: 100,
  description: 'An event type (GET /api/v1/webhook-event-types), or a category followed by .* (subscription.*, invoice.*, …, webhook.*).',
});
const LOG_NOTE = 'The log is kept OUTBOUND_WEBHOOK_LOG_RETENTION_DAYS days (30 by default).';

/** A 202 answer: a replay or test is queued in the outbox; the sender makes the attempts. */
const accepted = (description: string) => ({ description });

const MessageReplaySchema = Type.Object(
  {
    object: Type.Literal('webhook_message_replay'),
    messageId: Type.String(),
    deliveries: Type.Array(WebhookDeliverySchema, { maxItems: MAX_DELIVERIES_PER_MESSAGE, description: 'The deliveries replayed: pending, due now.' }),
  },
  accepted('The deliveries replayed, pending and due now.'),
);
const EndpointReplaySchema = Type.Object(
  {
    object: Type.Literal('webhook_endpoint_replay'),
    endpointId: Type.String(),
    since: Timestamp,
    replayed: Type.Integer({ description: 'Failed deliveries made pending again.' }),
  },
  accepted('How many failed deliveries are pending again.'),
);

async function withDeliveries(db: Db, tenant: Tenant, messages: readonly WebhookMessage[]) {
  const deliveries = await listDeliveriesOfMessages(
    db,
    tenant,
    messages.map((m) => m.id),
  );
  return messages.map((m) => presentMessage(m, deliveries.get(m.id) ?? []));
}

/**
 * Operator API: the outbound delivery log (messages, their deliveries, every attempt), replays,
 * the test event and the event types. Admin scope, like the endpoints.
 */
export async function webhookDeliveryRoutes(app: App, deps: Deps): Promise<void> {
  app.get('/api/v1/webhook-event-types', {
    config: admin,
    schema: {
      ...tags,
      operationId: 'listWebhookEventTypes',
      summary: 'List the outbound webhook event types',
      description:
        'Every type an endpoint can subscribe to (exact names, or category.* for a category), with its category, what it means and an abridged example body; and webhook.test (subscribable: false), which POST /api/v1/webhook-endpoints/{id}/test sends. One page: hasMore is always false.',
      querystring: Type.Object({}, { additionalProperties: false }),
      response: { 200: ListOf(WebhookEventTypeSchema), ...errors(403) },
    },
    handler: async () => ({ object: 'list' as const, data: presentEventTypes(), hasMore: false }),
  });

  app.get('/api/v1/webhook-messages', {
    config: admin,
    schema: {
      ...tags,
      operationId: 'listWebhookMessages',
      summary: 'List outbound webhook messages, newest first',
      description: `One message per event, with its payload (the exact body sent) and its deliveries, one per endpoint. The filters combine with AND: eventType; endpointId (messages with a delivery to it); status (messages with a delivery in that state, to endpointId when given: status=failed&endpointId=we_… is what an endpoint missed); createdFrom (inclusive) and createdTo (exclusive). Page with startingAfter (the id of the last message) and endingBefore. ${LOG_NOTE}`,
      querystring: Type.Object(
        {
          ...ListQuery,
          eventType: Type.Optional(EventTypeFilter),
          endpointId: Type.Optional(Id('Only messages with a delivery to this endpoint (we_…).')),
          status: Type.Optional(DeliveryStatusSchema),
          createdFrom: Type.Optional(Instant('Messages created at or after this instant.')),
          createdTo: Type.Optional(Instant('Messages created before this instant.')),
        },
        { additionalProperties: false },
      ),
      response: { 200: ListOf(WebhookMessageSchema), ...errors(403) },
    },
    handler: async (req) => {
      const { limit, startingAfter, endingBefore, ...query } = req.query;
      const page = await listWebhookMessages(deps.db, req.ctx, orBadRequest(parseMessageFilter(query)), { limit, startingAfter, endingBefore });
      return { object: 'list' as const, data: await withDeliveries(deps.db, req.ctx, page.items), hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/webhook-messages/:id', {
    config: admin,
    schema: {
      ...tags,
      operationId: 'retrieveWebhookMessage',
      summary: 'Retrieve an outbound webhook message with its deliveries',
      description: `Each delivery says where the message stands at one endpoint: status, attempts made, when the next is due, the last answer. The attempts themselves: GET /api/v1/webhook-attempts?messageId=…. ${LOG_NOTE}`,
      params: IdParams,
      response: { 200: WebhookMessageSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const message = await findMessage(deps.db, req.ctx, req.params.id);
      if (!message) throw notFound('webhook message', req.params.id);
      return (await withDeliveries(deps.db, req.ctx, [message]))[0]!;
    },
  });

  app.post('/api/v1/webhook-messages/:id/replay', {
    config: admin,
    schema: {
      ...tags,
      operationId: 'replayWebhookMessage',
      summary: 'Send an outbound webhook message again',
      description:
        'To body.endpointId, or to every endpoint the message was delivered to (deleted ones left out). The same webhook-id and body; each delivery goes back to pending, due now, with the retry schedule from its start, whatever its state (a succeeded one is sent once more: receivers deduplicate by webhook-id). 404 when the message has no delivery to body.endpointId; 409 ENDPOINT_DISABLED naming a disabled endpoint (enable it, or replay to one endpoint), 409 CONFLICT for a deleted one. Retry-safe with an Idempotency-Key.',
      headers: IdempotencyHeaders,
      params: IdParams,
      body: Type.Object(
        { endpointId: Type.Optional(Id('Only this endpoint (we_…); by default every endpoint the message was delivered to.')) },
        { additionalProperties: false },
      ),
      response: { 202: MessageReplaySchema, ...errors(403, 404, 409, 422) },
    },
    // The body is optional: none at all replays to every endpoint.
    preValidation: async (req) => {
      req.body ??= {};
    },
    handler: async (req, reply) => {
      reply.code(202);
      return idempotent(deps, req, reply, async (tx) => ({
        object: 'webhook_message_replay' as const,
        messageId: req.params.id,
        deliveries: (await replayWebhookMessage(tx, req.ctx, req.params.id, req.body.endpointId)).map(presentDelivery),
      }));
    },
  });

  app.get('/api/v1/webhook-attempts', {
    config: admin,
    schema: {
      ...tags,
      operationId: 'listWebhookAttempts',
      summary: 'Search the outbound webhook delivery log: every attempt, newest first',
      description: `Each HTTP attempt of each delivery: the URL, the outcome, the answer's status and first 1 KiB, the error, the latency, the trigger (scheduled, replay, test) and the retry it scheduled. The filters combine with AND; attemptedFrom is inclusive, attemptedTo exclusive. Page with startingAfter (the id of the last attempt) and endingBefore. ${LOG_NOTE}`,
      querystring: Type.Object(
        {
          ...ListQuery,
          endpointId: Type.Optional(Id('Only attempts to this endpoint (we_…).')),
          messageId: Type.Optional(Id('Only attempts of this message (msg_…).')),
          eventType: Type.Optional(EventTypeFilter),
          status: Type.Optional(Type.Union(attemptStatuses.map((s) => Type.Literal(s)))),
          trigger: Type.Optional(Type.Union(attemptTriggers.map((s) => Type.Literal(s)))),
          attemptedFrom: Type.Optional(Instant('Attempts made at or after this instant.')),
          attemptedTo: Type.Optional(Instant('Attempts made before this instant.')),
        },
        { additionalProperties: false },
      ),
      response: { 200: ListOf(WebhookAttemptSchema), ...errors(403) },
    },
    handler: async (req) => {
      const { limit, startingAfter, endingBefore, ...query } = req.query;
      const page = await listWebhookAttempts(deps.db, req.ctx, orBadRequest(parseAttemptFilter(query)), { limit, startingAfter, endingBefore });
      return { object: 'list' as const, data: page.items.map(presentAttempt), hasMore: page.hasMore };
    },
  });

  app.post('/api/v1/webhook-endpoints/:id/replay-failed', {
    config: admin,
    schema: {
      ...tags,
      operationId: 'replayFailedWebhooks',
      summary: 'Send again every delivery an endpoint missed since an instant',
      description:
        "After an outage on your side: every failed delivery of the endpoint whose message was created at or after body.since (those failed while the endpoint was disabled included) goes back to pending, due now, with the retry schedule from its start; the sender delivers them in each subscription's order. since may go back as far as the log's retention (OUTBOUND_WEBHOOK_LOG_RETENTION_DAYS, 30 by default). The endpoint must be enabled (409 ENDPOINT_DISABLED). Retry-safe with an Idempotency-Key.",
      headers: IdempotencyHeaders,
      params: IdParams,
      body: Type.Object(
        { since: Instant('Replay the failed deliveries of messages created at or after this instant, within the log’s retention.') },
        { additionalProperties: false },
      ),
      response: { 202: EndpointReplaySchema, ...errors(403, 404, 409, 422) },
    },
    handler: async (req, reply) => {
      const since = parseIsoTimestamp(req.body.since);
      if (since === null)
        throw new AppError('VALIDATION_FAILED', 'body.since must be an ISO 8601 time with a zone, such as 2026-11-23T12:00:00Z.', { field: 'body.since' });
      reply.code(202);
      return idempotent(deps, req, reply, async (tx) => ({
        object: 'webhook_endpoint_replay' as const,
        endpointId: req.params.id,
        since: toIso(since),
        replayed: await replayFailedDeliveries(tx, req.ctx, req.params.id, since),
      }));
    },
  });

  app.post('/api/v1/webhook-endpoints/:id/test', {
    config: admin,
    schema: {
      ...tags,
      operationId: 'sendTestWebhook',
      summary: 'Send a test event to a webhook endpoint',
      description:
        'Writes a webhook.test message to this endpoint only, whatever its event types, and answers with it; the sender signs and sends it like any other message (trigger test), so its attempts show in GET /api/v1/webhook-attempts?messageId=…. The body is optional. The endpoint must be enabled (409 ENDPOINT_DISABLED). Retry-safe with an Idempotency-Key.',
      headers: IdempotencyHeaders,
      params: IdParams,
      body: Type.Object(
        {
          eventType: Type.Optional(
            Type.String({
              maxLength: 100,
              description: 'webhook.test, the only type sent as a test: an example of a business type would carry made-up ids that a receiver could act on.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      response: { 202: Type.Object(WebhookMessageSchema.properties, accepted('The test message, its delivery pending.')), ...errors(403, 404, 409, 422) },
    },
    preValidation: async (req) => {
      req.body ??= {};
    },
    handler: async (req, reply) => {
      const { eventType } = req.body;
      if (eventType !== undefined && eventType !== 'webhook.test')
        throw new AppError(
          'VALIDATION_FAILED',
          `body.eventType must be webhook.test (or left out): '${eventType}' is not sent as a test, since an example of it would carry made-up ids a receiver could act on.`,
          { field: 'body.eventType' },
        );
      reply.code(202);
      return idempotent(deps, req, reply, async (tx) => {
        const { message, deliveries } = await sendTestEvent(tx, req.ctx, req.params.id);
        return presentMessage(message, deliveries);
      });
    },
  });
}
