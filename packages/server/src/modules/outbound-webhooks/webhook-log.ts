import { Type, type Static } from '@sinclair/typebox';
import { Environment, NullableTimestamp, Timestamp } from '../../http/schemas.js';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import type { Environment as Env } from '../../lib/crypto.js';
import { catalogTypes, eventCatalog, exampleOf, type CatalogType } from './event-catalog.js';
import type { AttemptTrigger, WebhookDelivery, WebhookMessage } from './webhook-message.js';

/**
 * The delivery log as the operator API shows it: messages with their deliveries, attempts, the
 * event types. Stripe-like objects (`object` names the kind), camelCase, ISO 8601 instants.
 */

export type AttemptStatus = 'succeeded' | 'failed';
export const attemptStatuses: readonly AttemptStatus[] = ['succeeded', 'failed'];

export const attemptTriggers: readonly AttemptTrigger[] = ['scheduled', 'replay', 'test'];

/** One HTTP attempt of one delivery (written by the sender). */
export interface WebhookAttempt {
  id: string;
  workspaceId: string;
  environment: Env;
  messageId: string;
  endpointId: string;
  eventType: CatalogType;
  attemptNumber: number;
  trigger: AttemptTrigger;
  url: string;
  status: AttemptStatus;
  responseStatus: number | null;
  responseBody: string | null;
  responseTruncated: boolean;
  errorCode: string | null;
  errorMessage: string | null;
  latencyMs: number;
  attemptedAt: number;
  nextAttemptAt: number | null;
}

/** OUTBOUND_WEBHOOK_MAX_ENDPOINTS at most (config.ts): a message has one delivery per endpoint subscribed when it was written. */
export const MAX_DELIVERIES_PER_MESSAGE = 1000;

const enumOf = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const;
export const DeliveryStatusSchema = enumOf(
  deliveryStatuses,
  'pending: an attempt is due at nextAttemptAt; succeeded: an endpoint answered 2xx; failed: the retry schedule ran out, the endpoint answered 410, or it was disabled or deleted (lastError says which). A replay makes it pending again.',
);

export const WebhookDeliverySchema = Type.Object(
  {
    object: Type.Literal('webhook_delivery'),
    messageId: Type.String({ description: 'msg_…' }),
    endpointId: Type.String({ description: 'we_…' }),
    status: DeliveryStatusSchema,
    attempts: Type.Integer({ description: 'Attempts made so far, every trigger counted (GET /api/v1/webhook-attempts lists them).' }),
    nextAttemptAt: Type.Union([Timestamp, Type.Null()], { description: 'When the next attempt is due; null unless pending.' }),
    lastAttemptAt: NullableTimestamp,
    lastResponseStatus: Type.Union([Type.Integer(), Type.Null()], { description: "The HTTP status of the last attempt's answer; null when it had none." }),
    lastError: Type.Union([Type.String(), Type.Null()], {
      description:
        'Why the last attempt failed, as its errorCode (GET /api/v1/webhook-attempts); endpoint_disabled or endpoint_deleted for a delivery failed without an attempt.',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'WebhookDelivery', description: 'One message to one endpoint.' },
);
export type WebhookDeliveryView = Static<typeof WebhookDeliverySchema>;

export const WebhookMessageSchema = Type.Object(
  {
    id: Type.String({ description: 'msg_…: the webhook-id header of every attempt, replays included.' }),
    object: Type.Literal('webhook_message'),
    environment: Environment,
    eventType: Type.String({ description: 'A type of GET /api/v1/webhook-event-types.' }),
    source: enumOf(['event', 'test'], 'event: a change in Tollgate; test: POST /api/v1/webhook-endpoints/{id}/test.'),
    correlationId: Type.String({ description: 'The request (or job) that made the change: search the audit log with it.' }),
    createdAt: Timestamp,
    payload: Type.Object(
      {
        type: Type.String(),
        timestamp: Timestamp,
        data: Type.Record(Type.String(), Type.Unknown(), {
          description: 'object: the resource at the change; previousAttributes, details when the type has them.',
        }),
      },
      { description: 'The body sent, parsed: every attempt sends these exact bytes.' },
    ),
    deliveries: Type.Array(WebhookDeliverySchema, {
      maxItems: MAX_DELIVERIES_PER_MESSAGE,
      description: 'One per endpoint subscribed when the message was written, by endpoint id.',
    }),
  },
  {
    title: 'WebhookMessage',
    examples: [
      {
        id: 'msg_01jd3m5x7c0000000000000000',
        object: 'webhook_message',
        environment: 'test',
        eventType: 'subscription.upgraded',
        source: 'event',
        correlationId: 'req_01jd3m5x7c0000000000000000',
        createdAt: '2026-11-23T12:00:00.000Z',
        payload: exampleOf('subscription.upgraded'),
        deliveries: [
          {
            object: 'webhook_delivery',
            messageId: 'msg_01jd3m5x7c0000000000000000',
            endpointId: 'we_01jd3m5x7c0000000000000000',
            status: 'failed',
            attempts: 8,
            nextAttemptAt: null,
            lastAttemptAt: '2026-11-24T15:36:00.000Z',
            lastResponseStatus: 500,
            lastError: 'http_500',
            createdAt: '2026-11-23T12:00:00.000Z',
            updatedAt: '2026-11-24T15:36:00.000Z',
          },
        ],
      },
    ],
  },
);
export type WebhookMessageView = Static<typeof WebhookMessageSchema>;

export const WebhookAttemptSchema = Type.Object(
  {
    id: Type.String({ description: 'atmpt_…' }),
    object: Type.Literal('webhook_attempt'),
    messageId: Type.String(),
    endpointId: Type.String(),
    eventType: Type.String(),
    attemptNumber: Type.Integer({ description: "1 for the delivery's first attempt, counting every trigger." }),
    trigger: enumOf(attemptTriggers, 'scheduled: the first attempt or a retry; replay: an operator sent the message again; test: a test event.'),
    url: Type.String({ description: 'Where it was sent (the endpoint’s URL at the time).' }),
    status: enumOf(attemptStatuses, 'succeeded: a 2xx answer; failed: anything else.'),
    responseStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'null: no HTTP answer (timeout, connection refused, refused address).' }),
    responseBody: Type.Union([Type.String(), Type.Null()], { description: 'The first 1 KiB of the answer (UTF-8, lossy).' }),
    responseTruncated: Type.Boolean({ description: 'The answer was longer than what responseBody holds.' }),
    errorCode: Type.Union([Type.String(), Type.Null()], {
      description: 'Why it failed, as a short code (a timeout, a connection or address refused, a status other than 2xx); null on success.',
    }),
    errorMessage: Type.Union([Type.String(), Type.Null()], { description: 'The same in words.' }),
    latencyMs: Type.Integer({ description: 'From the request’s start to the answer (or the failure).' }),
    attemptedAt: Timestamp,
    nextAttemptAt: Type.Union([Timestamp, Type.Null()], {
      description: 'The retry this failure scheduled; null when none (success, or the schedule ran out).',
    }),
  },
  {
    title: 'WebhookAttempt',
    examples: [
      {
        id: 'atmpt_01jd3m5x7c0000000000000000',
        object: 'webhook_attempt',
        messageId: 'msg_01jd3m5x7c0000000000000000',
        endpointId: 'we_01jd3m5x7c0000000000000000',
        eventType: 'subscription.upgraded',
        attemptNumber: 1,
        trigger: 'scheduled',
        url: 'https://hooks.example.com/tollgate',
        status: 'failed',
        responseStatus: 500,
        responseBody: '{"error":"database down"}',
        responseTruncated: false,
        errorCode: 'http_500',
        errorMessage: 'The endpoint answered 500.',
        latencyMs: 84,
        attemptedAt: '2026-11-23T12:00:00.120Z',
        nextAttemptAt: '2026-11-23T12:00:05.120Z',
      },
    ],
  },
);
export type WebhookAttemptView = Static<typeof WebhookAttemptSchema>;

export const WebhookEventTypeSchema = Type.Object(
  {
    object: Type.Literal('webhook_event_type'),
    type: Type.String({ description: 'The name endpoints subscribe to, and the payload’s type.' }),
    category: Type.String({ description: 'What category.* subscribes to.' }),
    description: Type.String(),
    subscribable: Type.Boolean({ description: 'false for webhook.test: the test route sends it to one endpoint, whatever its event types.' }),
    example: Type.Object(
      { type: Type.String(), timestamp: Timestamp, data: Type.Record(Type.String(), Type.Unknown()) },
      { description: 'An example body, abridged (the OpenAPI document’s webhooks section has the full resources).' },
    ),
  },
  { title: 'WebhookEventType' },
);

/** The catalog, in its order. */
export function presentEventTypes(): Array<Static<typeof WebhookEventTypeSchema>> {
  return catalogTypes.map((type) => ({
    object: 'webhook_event_type' as const,
    type,
    category: eventCatalog[type].category,
    description: eventCatalog[type].description,
    subscribable: type !== 'webhook.test',
    example: exampleOf(type),
  }));
}

export function presentDelivery(d: WebhookDelivery): WebhookDeliveryView {
  return {
    object: 'webhook_delivery',
    messageId: d.messageId,
    endpointId: d.endpointId,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: toIsoOrNull(d.nextAttemptAt),
    lastAttemptAt: toIsoOrNull(d.lastAttemptAt),
    lastResponseStatus: d.lastResponseStatus,
    lastError: d.lastError,
    createdAt: toIso(d.createdAt),
    updatedAt: toIso(d.updatedAt),
  };
}

export function presentMessage(m: WebhookMessage, deliveries: readonly WebhookDelivery[]): WebhookMessageView {
  return {
    id: m.id,
    object: 'webhook_message',
    environment: m.environment,
    eventType: m.eventType,
    source: m.source,
    correlationId: m.correlationId,
    createdAt: toIso(m.createdAt),
    payload: JSON.parse(m.body) as WebhookMessageView['payload'],
    deliveries: deliveries.map(presentDelivery),
  };
}

export function presentAttempt(a: WebhookAttempt): WebhookAttemptView {
  return {
    id: a.id,
    object: 'webhook_attempt',
    messageId: a.messageId,
    endpointId: a.endpointId,
    eventType: a.eventType,
    attemptNumber: a.attemptNumber,
    trigger: a.trigger,
    url: a.url,
    status: a.status,
    responseStatus: a.responseStatus,
    responseBody: a.responseBody,
    responseTruncated: a.responseTruncated,
    errorCode: a.errorCode,
    errorMessage: a.errorMessage,
    latencyMs: a.latencyMs,
    attemptedAt: toIso(a.attemptedAt),
    nextAttemptAt: toIsoOrNull(a.nextAttemptAt),
  };
}
