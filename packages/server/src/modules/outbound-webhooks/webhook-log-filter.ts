import { AppError, capDetails } from '../../lib/errors.js';
import { parseIsoTimestamp } from '../../lib/timestamps.js';
import { catalogTypes, eventCatalog, isCatalogType, type CatalogType } from './event-catalog.js';
import type { AttemptTrigger, DeliveryStatus } from './webhook-message.js';
import type { AttemptStatus } from './webhook-log.js';

/**
 * The filters of the delivery log (GET /api/v1/webhook-messages, GET /api/v1/webhook-attempts),
 * combined with AND. Pure: the routes parse the query strings here, and a bad value is a 400
 * naming its field. Enumerations (status, trigger) are checked by the routes' schemas already.
 */

/** A time range in epoch ms: from inclusive, to exclusive. */
export interface TimeRange {
  from?: number;
  to?: number;
}

export interface MessageFilter {
  /** The types matched: one, or every type of a category. */
  eventTypes?: CatalogType[];
  /** Messages with a delivery to this endpoint (in `status`, when given). */
  endpointId?: string;
  /** Messages with a delivery in this state (to `endpointId`, when given). */
  status?: DeliveryStatus;
  created: TimeRange;
}

export interface AttemptFilter {
  eventTypes?: CatalogType[];
  endpointId?: string;
  messageId?: string;
  status?: AttemptStatus;
  trigger?: AttemptTrigger;
  attempted: TimeRange;
}

export interface MessageQuery {
  eventType?: string;
  endpointId?: string;
  status?: DeliveryStatus;
  createdFrom?: string;
  createdTo?: string;
}

export interface AttemptQuery {
  eventType?: string;
  endpointId?: string;
  messageId?: string;
  status?: AttemptStatus;
  trigger?: AttemptTrigger;
  attemptedFrom?: string;
  attemptedTo?: string;
}

interface FieldError {
  field: string;
  message: string;
}

const categories = [...new Set(catalogTypes.map((t) => eventCatalog[t].category))];

/** An exact catalog type, or `category.*` for every type of a category (webhook.* included: the log holds test events). */
export function eventTypesOf(value: string): CatalogType[] | null {
  if (isCatalogType(value)) return [value];
  if (!value.endsWith('.*')) return null;
  const category = value.slice(0, -2);
  return categories.includes(category) ? catalogTypes.filter((t) => eventCatalog[t].category === category) : null;
}

function parseEventType(value: string | undefined, field: string, errors: FieldError[]): CatalogType[] | undefined {
  if (value === undefined) return undefined;
  const types = eventTypesOf(value);
  if (types === null)
    errors.push({
      field,
      message: `'${value}' is no event type: give one of GET /api/v1/webhook-event-types or a category followed by .* (${categories.map((c) => `${c}.*`).join(', ')}).`,
    });
  return types ?? undefined;
}

/** `from` inclusive and `to` exclusive, ISO 8601 with a zone, to the millisecond (the log's instants are). */
function parseRange(values: [from?: string, to?: string], names: [from: string, to: string], at: string, errors: FieldError[]): TimeRange {
  const range: TimeRange = {};
  const [from, to] = values.map((v, i) => {
    if (v === undefined) return undefined;
    const t = parseIsoTimestamp(v);
    if (t === null) errors.push({ field: `${at}.${names[i]}`, message: 'must be an ISO 8601 time with a zone, such as 2026-11-23T12:00:00Z.' });
    return t ?? undefined;
  });
  if (from !== undefined) range.from = from;
  if (to !== undefined) range.to = to;
  if (from !== undefined && to !== undefined && to <= from) errors.push({ field: `${at}.${names[1]}`, message: `must be later than ${names[0]}.` });
  return range;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

const done = <T>(value: T, errors: FieldError[]): Parsed<T> => (errors.length > 0 ? { ok: false, errors } : { ok: true, value });

export function parseMessageFilter(q: MessageQuery, at = 'query'): Parsed<MessageFilter> {
  const errors: FieldError[] = [];
  const value: MessageFilter = {
    eventTypes: parseEventType(q.eventType, `${at}.eventType`, errors),
    endpointId: q.endpointId,
    status: q.status,
    created: parseRange([q.createdFrom, q.createdTo], ['createdFrom', 'createdTo'], at, errors),
  };
  return done(value, errors);
}

export function parseAttemptFilter(q: AttemptQuery, at = 'query'): Parsed<AttemptFilter> {
  const errors: FieldError[] = [];
  const value: AttemptFilter = {
    eventTypes: parseEventType(q.eventType, `${at}.eventType`, errors),
    endpointId: q.endpointId,
    messageId: q.messageId,
    status: q.status,
    trigger: q.trigger,
    attempted: parseRange([q.attemptedFrom, q.attemptedTo], ['attemptedFrom', 'attemptedTo'], at, errors),
  };
  return done(value, errors);
}

/** The value, or a 400 naming every bad field. */
export function orBadRequest<T>(parsed: Parsed<T>, where = 'query'): T {
  if (parsed.ok) return parsed.value;
  const details = parsed.errors.map((e) => ({ code: 'VALIDATION_FAILED' as const, field: e.field, message: `${e.field} ${e.message}` }));
  throw new AppError('VALIDATION_FAILED', details.map((d) => d.message).join(' '), { details: capDetails(details, where) });
}
