import { Type } from '@sinclair/typebox';
import type { ErrorCode } from '../../lib/errors.js';
import { MapOf } from '../../http/schemas.js';

/** The spec's batch limit; one batch counts as one request against the rate limit. */
export const MAX_BATCH_EVENTS = 1000;
/** How far in the future an occurredAt may be: clients' clocks drift. */
export const CLOCK_SKEW_MS = 5 * 60 * 1000;
/**
 * How far back the API accepts events: 35 days, so the previous calendar month stays reachable
 * for the first days of the next. Older usage goes through the bulk upload, which takes any age.
 */
export const MAX_EVENT_AGE_MS = 35 * 24 * 60 * 60 * 1000;
export const MAX_METADATA_KEYS = 50;
/**
 * Largest quantity one event may carry. Sums are exact to 40 significant digits; with events at
 * most 1e15 and a billion of them in a month, no sum comes near that.
 */
export const MAX_QUANTITY = 1e15;

export type MetadataValue = string | number | boolean | null;

/** An event whose shape is valid; its customer and metric are not resolved yet. */
export interface CheckedEvent {
  /** The customer as sent: a cus_ id or the customer's externalId. */
  customerRef: string;
  metricName: string;
  quantity: number;
  occurredAt: number;
  metadata: Record<string, MetadataValue> | null;
  eventId: string | null;
}

/** One rejected event: its position, a stable code, what is wrong, and which field. */
export interface EventRejection {
  index: number;
  code: ErrorCode;
  message: string;
  field: string;
}

const Metadata = MapOf(Type.Union([Type.String({ maxLength: 500 }), Type.Number(), Type.Boolean(), Type.Null()]), {
  maxKeys: MAX_METADATA_KEYS,
  maxKeyLength: 40,
  description: 'Free-form properties: up to 50 keys of at most 40 characters; values are strings (at most 500 characters), numbers, booleans or null.',
});

/** Documentation schema of one event; validation is done by checkEventShape, which names each problem. */
export const UsageEventSchema = Type.Object(
  {
    customerId: Type.String({ description: 'The customer: its cus_ id, or the externalId you gave it.', maxLength: 255 }),
    metricName: Type.String({ description: 'A billable metric of the workspace, exactly as created (case-sensitive).', maxLength: 100 }),
    quantity: Type.Number({
      minimum: 0,
      description: 'Amount of usage: a finite JSON number from 0 to 1e15 (a string is refused). For PERCENTAGE pricing, the transaction value.',
    }),
    occurredAt: Type.String({
      format: 'date-time',
      maxLength: 35,
      description: 'ISO 8601 with a time zone (Z or ±hh:mm). Decides the billing period. At most 5 minutes in the future and 35 days in the past.',
    }),
    metadata: Type.Optional(Metadata),
    eventId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          'Your id for this event: an event with an id seen in the last 24 hours is a duplicate and is skipped, so retries are safe without X-Idempotency-Key.',
      }),
    ),
  },
  { title: 'UsageEvent', additionalProperties: false },
);

export const IngestResultSchema = Type.Object(
  {
    object: Type.Literal('ingest_result'),
    environment: Type.Union([Type.Literal('test'), Type.Literal('live')], { description: 'Where the events landed: the key decides.' }),
    accepted: Type.Integer({ description: 'Events stored and counted now.' }),
    duplicates: Type.Integer({ description: 'Events skipped because their eventId was seen in the last 24 hours (or earlier in this batch).' }),
    rejected: Type.Array(Type.Object({ index: Type.Integer(), code: Type.String(), message: Type.String(), field: Type.String() }), {
      description: 'Always empty on a 200 from /v1/ingest/batch and /v1/ingest: a batch with any rejected event is refused whole (400).',
    }),
    idempotentReplay: Type.Boolean({
      description: 'True when this is the stored response to an earlier request with the same X-Idempotency-Key; nothing was ingested now.',
    }),
  },
  { title: 'IngestResult' },
);
