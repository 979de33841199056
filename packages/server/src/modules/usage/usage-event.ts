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
/**
 * Metadata bounds. The flat limits of before (50 keys of at most 40 characters, strings of at most
 * 500) hold in every object; nesting adds a depth, an array length and two totals, set so that
 * every flat metadata valid before stays valid (50 keys and 50 x 540 characters at most).
 */
export const MAX_METADATA_KEYS = 50;
export const MAX_METADATA_KEY_LENGTH = 40;
export const MAX_METADATA_STRING_LENGTH = 500;
/** Levels of objects and arrays, metadata itself the first: a dotted path has at most 5 segments. */
export const MAX_METADATA_DEPTH = 5;
export const MAX_METADATA_ITEMS = 50;
/** Values at any depth (an object or array counts as one, and so does each thing in it). */
export const MAX_METADATA_VALUES = 256;
/** Characters of every key and string value together: what a stored event's metadata can weigh. */
export const MAX_METADATA_TEXT = 32_768;
/**
 * Largest quantity one event may carry. Sums are exact to 40 significant digits; with events at
 * most 1e15 and a billion of them in a month, no sum comes near that.
 */
export const MAX_QUANTITY = 1e15;

/** Any JSON value (within the bounds above). */
export type MetadataValue = string | number | boolean | null | MetadataValue[] | { [key: string]: MetadataValue };

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

const Metadata = MapOf(Type.Unknown({ description: 'Any JSON value: a string, a number, a boolean, null, an object or an array.' }), {
  maxKeys: MAX_METADATA_KEYS,
  maxKeyLength: MAX_METADATA_KEY_LENGTH,
  description:
    'Free-form properties: any JSON object. Bounds, each refused with 400 INVALID_METADATA naming the path (events[3].metadata.request.headers): objects and arrays at most 5 levels deep (metadata itself is the first); at most 50 keys per object, of at most 40 characters; at most 50 items per array; strings of at most 500 characters; finite numbers; at most 256 values in all (an object or an array counts as one) and 32,768 characters of keys and strings in all. Reports (groupBy, filterBy) and rating dimensions address a nested value by a dotted path such as request.method: each segment an object key of [A-Za-z0-9_-]; a key with another character, such as a dot, and array items cannot be addressed.',
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
