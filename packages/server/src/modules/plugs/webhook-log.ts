import { Type, type Static } from '@sinclair/typebox';
import { isUtf8 } from 'node:buffer';
import { toIso } from '../../lib/clock.js';
import { Environment, Timestamp } from '../../http/schemas.js';
import type { Environment as Env } from '../../lib/crypto.js';
import type { EventOutcome, LogStatus, VerificationState } from './webhook-outcome.js';

/**
 * The ingestion log: every webhook request that reached a known source (verified or not) with its
 * raw body and headers, signature headers redacted, so it can be inspected and replayed.
 * Requests refused by the rate limit are not stored: the provider retries them.
 */
export interface WebhookLogEntry {
  id: string;
  workspaceId: string;
  environment: Env;
  sourceId: string;
  /**
   * The source's displayName when the request arrived, stored with the entry rather than joined
   * at read time: the log is a record of what happened, like the webhook.rejected audit event
   * that names the same entry (whose payload never changes), so a rename leaves both as they were.
   */
  sourceDisplayName: string;
  receivedAt: number;
  status: LogStatus;
  verification: VerificationState;
  httpStatus: number;
  reasonCode: string | null;
  reasonMessage: string | null;
  eventType: string | null;
  outcomes: EventOutcome[];
  headers: Record<string, string>;
  body: string;
  bodyEncoding: 'utf8' | 'base64';
  url: string;
  replayOf: string | null;
  correlationId: string;
}

export const logStatuses = ['accepted', 'duplicate', 'discarded', 'rejected'] as const;

/** Headers never stored: credentials a misconfigured sender might add. Signature headers are redacted per scheme. */
const DROPPED_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);
export const REDACTED = '[redacted]';

/**
 * Every provider's signature headers, redacted whatever the source's scheme: GitHub, for one,
 * sends its SHA-1 and SHA-256 signatures side by side, and a source verifies only one of them.
 */
const KNOWN_SIGNATURE_HEADERS = [
  'stripe-signature',
  'x-hub-signature',
  'x-hub-signature-256',
  'x-signature-256',
  'x-twilio-signature',
  'x-twilio-email-event-webhook-signature',
  'x-slack-signature',
];

export function headersForLog(headers: Readonly<Record<string, string | string[] | undefined>>, signatureHeaders: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || DROPPED_HEADERS.has(name)) continue;
    const secret = signatureHeaders.includes(name) || KNOWN_SIGNATURE_HEADERS.includes(name);
    out[name] = secret ? REDACTED : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** UTF-8 text when it round-trips (and holds no NUL, which PostgreSQL text refuses); base64 otherwise. */
export function encodeBody(body: Buffer): { body: string; bodyEncoding: 'utf8' | 'base64' } {
  if (isUtf8(body) && !body.includes(0)) return { body: body.toString('utf8'), bodyEncoding: 'utf8' };
  return { body: body.toString('base64'), bodyEncoding: 'base64' };
}

export const decodeBody = (e: Pick<WebhookLogEntry, 'body' | 'bodyEncoding'>): Buffer => Buffer.from(e.body, e.bodyEncoding);

const Outcome = Type.Object(
  {
    index: Type.Integer(),
    status: Type.Union(['accepted', 'duplicate', 'discarded', 'rejected'].map((s) => Type.Literal(s))),
    eventId: Type.Optional(Type.String()),
    tenantId: Type.Optional(Type.String()),
    customerId: Type.Optional(Type.String()),
    quantity: Type.Optional(Type.Number()),
    metricId: Type.Optional(Type.String()),
    eventType: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    reason: Type.Optional(Type.String()),
    code: Type.Optional(Type.String()),
    field: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    message: Type.Optional(Type.String()),
  },
  { description: 'What became of one event of the request (a JSON array body holds several).' },
);

const entryFields = {
  id: Type.String({ description: 'whl_…' }),
  object: Type.Literal('webhook_log_entry'),
  environment: Environment,
  sourceId: Type.String({ description: 'The webhook source (wsrc_…) the request was sent to.' }),
  sourceDisplayName: Type.String({
    description:
      "The source's displayName when the request arrived, kept as it was: renaming the source changes later entries only (webhook.rejected records the same name). Entries from before names were kept show the name the source had at the upgrade.",
  }),
  receivedAt: Timestamp,
  status: Type.Union(
    logStatuses.map((s) => Type.Literal(s)),
    {
      description:
        'accepted: at least one usage event stored; duplicate: every event was seen within the window; discarded: outside the event filter; rejected: refused (see reasonCode).',
    },
  ),
  verification: Type.Union([Type.Literal('passed'), Type.Literal('failed'), Type.Literal('skipped')], {
    description: 'skipped only with WEBHOOK_VERIFICATION_DISABLED in the development profile.',
  }),
  httpStatus: Type.Integer({ description: 'The status the sender got.' }),
  reasonCode: Type.Union([Type.String(), Type.Null()], {
    description: 'Why it was rejected or discarded, e.g. signature_mismatch, UNKNOWN_CUSTOMER, filtered.',
  }),
  reasonMessage: Type.Union([Type.String(), Type.Null()]),
  eventType: Type.Union([Type.String(), Type.Null()]),
  outcomes: Type.Array(Outcome),
  headers: Type.Record(Type.String(), Type.String(), { description: 'As received; signature headers show [redacted].' }),
  bodyBytes: Type.Integer(),
  url: Type.String({ description: 'The address as the provider used it (PUBLIC_URL plus path and query).' }),
  replayOf: Type.Union([Type.String(), Type.Null()], { description: 'The entry this one replays.' }),
  correlationId: Type.String(),
};
export const WebhookLogEntrySummarySchema = Type.Object(entryFields, { title: 'WebhookLogEntrySummary' });
export const WebhookLogEntrySchema = Type.Object(
  {
    ...entryFields,
    body: Type.String({ description: 'The raw body, in bodyEncoding.' }),
    bodyEncoding: Type.Union([Type.Literal('utf8'), Type.Literal('base64')]),
  },
  { title: 'WebhookLogEntry' },
);

export function presentLogEntry(e: WebhookLogEntry, withBody: true): Static<typeof WebhookLogEntrySchema>;
export function presentLogEntry(e: WebhookLogEntry, withBody: false): Static<typeof WebhookLogEntrySummarySchema>;
export function presentLogEntry(e: WebhookLogEntry, withBody: boolean) {
  const summary = {
    id: e.id,
    object: 'webhook_log_entry' as const,
    environment: e.environment,
    sourceId: e.sourceId,
    sourceDisplayName: e.sourceDisplayName,
    receivedAt: toIso(e.receivedAt),
    status: e.status,
    verification: e.verification,
    httpStatus: e.httpStatus,
    reasonCode: e.reasonCode,
    reasonMessage: e.reasonMessage,
    eventType: e.eventType,
    outcomes: e.outcomes as Static<typeof Outcome>[],
    headers: e.headers,
    bodyBytes: decodeBody(e).length,
    url: e.url,
    replayOf: e.replayOf,
    correlationId: e.correlationId,
  };
  return withBody ? { ...summary, body: e.body, bodyEncoding: e.bodyEncoding } : summary;
}
