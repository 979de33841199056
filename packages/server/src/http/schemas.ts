import { Type, type TSchema } from '@sinclair/typebox';

/** Shared schema pieces. Route schemas drive validation, serialization and the OpenAPI document. */

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    errors: Type.Array(
      Type.Object(
        {
          code: Type.String({ description: 'Stable machine-readable code, e.g. VALIDATION_FAILED, RATE_LIMITED.' }),
          message: Type.String({ description: 'What is wrong, in words.' }),
          field: Type.Optional(Type.String({ description: 'The offending field, e.g. body.email or query.limit.' })),
          index: Type.Optional(Type.Integer({ description: 'Usage ingestion: the position of the rejected event in the batch.' })),
        },
        { title: 'ErrorDetail' },
      ),
    ),
  },
  { title: 'Error', description: 'Every 4xx and 5xx response has this shape.' },
);

const errorDescriptions: Record<number, string> = {
  400: 'The request is malformed or a field is invalid; `field` names it.',
  401: 'Missing, unknown, revoked or expired credential (UNAUTHENTICATED); a widget session that has expired or was revoked: SESSION_EXPIRED.',
  403: 'The credential is valid but lacks the needed scope (INSUFFICIENT_SCOPE), or a widget session is used from an origin it does not allow (ORIGIN_NOT_ALLOWED).',
  404: 'No such resource in the workspace and environment of the key.',
  409: 'The resource is not in a state that allows this.',
  413: 'The body is too large.',
  415: 'Unsupported Content-Type.',
  422: 'The Idempotency-Key was used with a different request.',
  429: 'Rate limit exceeded; see Retry-After.',
  503: 'Too many requests in flight on this server, or the database is unavailable (DATABASE_UNAVAILABLE, DATABASE_BUSY); retry after Retry-After seconds.',
};

/** What each status's answer looks like, for the OpenAPI document's examples. */
const errorExamples: Record<number, { code: string; message: string; field?: string }> = {
  400: { code: 'VALIDATION_FAILED', message: 'must NOT have more than 255 characters', field: 'body.externalId' },
  401: { code: 'UNAUTHENTICATED', message: 'Missing or invalid API key.' },
  403: { code: 'INSUFFICIENT_SCOPE', message: 'This key lacks the admin scope.' },
  404: { code: 'NOT_FOUND', message: "No customer 'cus_01jd3m5x7c0000000000000000'." },
  409: { code: 'CONFLICT', message: 'The subscription is cancelled.' },
  413: { code: 'PAYLOAD_TOO_LARGE', message: 'The body is larger than 1048576 bytes.' },
  415: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send Content-Type: application/json.' },
  422: { code: 'IDEMPOTENCY_KEY_REUSED', message: 'This Idempotency-Key was used with a different request.' },
  429: { code: 'RATE_LIMITED', message: 'Rate limit exceeded: at most 300 requests per minute per tenant. Retry after 12 seconds.' },
  503: { code: 'DATABASE_UNAVAILABLE', message: 'The database is unavailable. Retry after 5 seconds.' },
};

/** Error responses for a route: the common ones plus those named. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  // Any route may meet a database outage (503 with Retry-After).
  for (const s of [400, 401, 429, 503, ...statuses]) {
    const example = errorExamples[s];
    out[s] = Type.Object(ErrorEnvelope.properties, {
      title: 'Error',
      description: errorDescriptions[s] ?? 'Error.',
      ...(example && { examples: [{ success: false, errors: [example] }] }),
    });
  }
  return out;
}

/**
 * An object of the caller's own keys. TypeBox drops the bounds of a Record's key schema (the
 * keys become patternProperties "^(.*)$"), so the key bounds go into propertyNames here.
 */
export function MapOf<V extends TSchema>(value: V, o: { maxKeys: number; maxKeyLength: number; minKeyLength?: number; description: string }) {
  return Type.Record(Type.String(), value, {
    maxProperties: o.maxKeys,
    propertyNames: { maxLength: o.maxKeyLength, ...(o.minKeyLength ? { minLength: o.minKeyLength } : {}) },
    description: o.description,
  });
}

export const Metadata = MapOf(Type.String({ maxLength: 500 }), {
  maxKeys: 50,
  maxKeyLength: 40,
  description: 'Your own key-value pairs: up to 50 keys of at most 40 characters, values of at most 500.',
});

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC.' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const Environment = Type.Union([Type.Literal('test'), Type.Literal('live')], {
  description: 'Decided by the key: sk_test_ keys see test data only, sk_live_ keys live data only.',
});

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Retry-safe creates: the same key and body within 24 hours return the first response.',
    }),
  ),
});

export const ListQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Page size, 1 to 100.' })),
  startingAfter: Type.Optional(Type.String({ maxLength: 100, description: 'Cursor: the id of the last item of the previous page.' })),
  endingBefore: Type.Optional(Type.String({ maxLength: 100, description: 'Cursor: the id of the first item of the next page, to page back.' })),
};

/** A page of items; named `<Item>List` in the OpenAPI document when the item is named. */
export function ListOf<T extends TSchema>(item: T) {
  return Type.Object(
    {
      object: Type.Literal('list'),
      data: Type.Array(item),
      hasMore: Type.Boolean({ description: 'More items exist beyond this page in the direction of travel.' }),
    },
    item.title ? { title: `${item.title}List` } : {},
  );
}

/** An operator route: an API key, or the console's session cookie (modules/operators). */
export const bearerSecurity: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { consoleSession: [] }];
/** Routes that take no credential say so: an empty list, not an absent one (which would leave it unsaid). */
export const publicSecurity: Array<Record<string, string[]>> = [];
