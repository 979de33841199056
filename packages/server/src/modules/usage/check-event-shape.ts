import type { ErrorCode } from '../../lib/errors.js';
import { parseIsoTimestamp } from '../../lib/timestamps.js';
import { CLOCK_SKEW_MS, MAX_EVENT_AGE_MS, MAX_METADATA_KEYS, MAX_QUANTITY, type CheckedEvent, type EventRejection, type MetadataValue } from './usage-event.js';

const KNOWN_FIELDS = new Set(['customerId', 'metricName', 'quantity', 'occurredAt', 'metadata', 'eventId']);

export interface ShapeRules {
  now: number;
  /** False for the historical bulk upload, which takes events of any age. */
  enforceMaxAge: boolean;
  /** The age limit when enforced: 35 days for the API (MAX_EVENT_AGE_MS), 90 days for webhooks. */
  maxAgeMs?: number;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function rejection(index: number, at: string, code: ErrorCode, field: string, message: string): EventRejection {
  const path = field ? `${at}.${field}` : at;
  return { index, code, field: path, message: `${path} ${message}` };
}

/** The problems of one event, up to a limit. */
class Problems {
  readonly list: EventRejection[] = [];
  constructor(
    private readonly index: number,
    private readonly at: string,
    private readonly limit: number,
  ) {}

  /** Records a problem; true once the limit is reached, so the caller stops looking. */
  add(code: ErrorCode, field: string, message: string): boolean {
    return this.list.push(rejection(this.index, this.at, code, field, message)) >= this.limit;
  }
}

/** Why a required or optional text field is wrong, or null when it is fine. */
function textProblem(v: unknown, max: number): string | null {
  if (v === undefined) return 'is required.';
  if (typeof v !== 'string' || v.length === 0 || v.length > max) return `must be a non-empty string of at most ${max} characters.`;
  return null;
}

/**
 * Records what is wrong with a customerId or metricName: its shape, or else (given a look-up)
 * that it names nothing. True once the limit is reached.
 */
function refProblem(
  p: Problems,
  field: string,
  v: unknown,
  max: number,
  unknownCode: ErrorCode,
  lookUp: ((ref: string) => string | null) | undefined,
): boolean {
  const wrong = textProblem(v, max);
  if (wrong !== null) return p.add('INVALID_EVENT', field, wrong);
  const unknown = lookUp === undefined ? null : lookUp(v as string);
  return unknown !== null && p.add(unknownCode, field, unknown);
}

/** At most this many problems are listed for one event; the batch's own cap is in check-batch.ts. */
export const MAX_PROBLEMS_PER_EVENT = 10;

/**
 * What the batch's look-ups found, so that a listing names an unknown customer or metric in
 * field order with the event's other problems. Each returns the message (after the field's
 * path), or null when the reference exists.
 */
export interface RefChecks {
  customer: (ref: string) => string | null;
  metric: (name: string) => string | null;
}

/**
 * Checks every rule, in field order, and records problems until the limit is reached.
 * Returns the checked event when there is no problem. One function serves both the accepting
 * path (limit 1: stop at the first) and the listing of a rejected event, so they cannot disagree.
 */
function inspectEvent(raw: unknown, rules: ShapeRules, refs: RefChecks | null, p: Problems): CheckedEvent | null {
  if (!isPlainObject(raw)) {
    p.add('INVALID_EVENT', '', 'must be an object with customerId, metricName, quantity and occurredAt.');
    return null;
  }
  for (const key in raw) {
    if (!KNOWN_FIELDS.has(key) && p.add('INVALID_EVENT', key, 'is not a known field.')) return null;
  }
  const { customerId, metricName, quantity, occurredAt, metadata, eventId } = raw;
  if (refProblem(p, 'customerId', customerId, 255, 'UNKNOWN_CUSTOMER', refs?.customer)) return null;
  if (refProblem(p, 'metricName', metricName, 100, 'UNKNOWN_METRIC', refs?.metric)) return null;
  if (quantity === undefined) {
    if (p.add('INVALID_QUANTITY', 'quantity', 'is required.')) return null;
  } else if (typeof quantity !== 'number') {
    if (p.add('INVALID_QUANTITY', 'quantity', `must be a JSON number, not ${quantity === null ? 'null' : typeof quantity}.`)) return null;
  } else if (!Number.isFinite(quantity)) {
    if (p.add('INVALID_QUANTITY', 'quantity', 'must be a finite number.')) return null;
  } else if (quantity < 0) {
    if (p.add('NEGATIVE_QUANTITY', 'quantity', `must not be negative (got ${quantity}).`)) return null;
  } else if (quantity > MAX_QUANTITY) {
    if (p.add('INVALID_QUANTITY', 'quantity', `must be at most 1e15 (got ${quantity}).`)) return null;
  }
  const t = typeof occurredAt === 'string' ? parseIsoTimestamp(occurredAt) : null;
  const maxAgeMs = rules.maxAgeMs ?? MAX_EVENT_AGE_MS;
  if (occurredAt === undefined) {
    if (p.add('INVALID_TIMESTAMP', 'occurredAt', 'is required.')) return null;
  } else if (t === null) {
    if (p.add('INVALID_TIMESTAMP', 'occurredAt', 'must be an ISO 8601 timestamp with a time zone, such as 2026-01-15T12:00:00Z.')) return null;
  } else if (t > rules.now + CLOCK_SKEW_MS) {
    if (p.add('TIMESTAMP_IN_FUTURE', 'occurredAt', `is more than 5 minutes in the future (${occurredAt as string}).`)) return null;
  } else if (rules.enforceMaxAge && t < rules.now - maxAgeMs) {
    const days = Math.round(maxAgeMs / 86_400_000);
    if (p.add('TIMESTAMP_TOO_OLD', 'occurredAt', `is more than ${days} days in the past; send historical usage through the bulk upload.`)) return null;
  }
  if (metadata !== undefined && metadata !== null) {
    if (!isPlainObject(metadata)) {
      if (p.add('INVALID_METADATA', 'metadata', 'must be an object.')) return null;
    } else {
      let n = 0;
      for (const key in metadata) {
        if (++n > MAX_METADATA_KEYS) {
          if (p.add('INVALID_METADATA', 'metadata', `must have at most ${MAX_METADATA_KEYS} keys.`)) return null;
          break;
        }
        if (key.length > 40) {
          if (p.add('INVALID_METADATA', `metadata.${key.slice(0, 40)}…`, 'key is longer than 40 characters.')) return null;
          continue;
        }
        const v = metadata[key];
        const ok = v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v.length <= 500);
        if (!ok && p.add('INVALID_METADATA', `metadata.${key}`, 'must be a string of at most 500 characters, a finite number, a boolean or null.')) return null;
      }
    }
  }
  if (eventId !== undefined) {
    const eventIdWrong = textProblem(eventId, 255);
    if (eventIdWrong !== null && p.add('INVALID_EVENT', 'eventId', eventIdWrong)) return null;
  }
  if (p.list.length > 0) return null;
  return {
    customerRef: customerId as string,
    metricName: metricName as string,
    quantity: quantity as number,
    occurredAt: t as number,
    metadata: (metadata ?? null) as Record<string, MetadataValue> | null,
    eventId: (eventId as string | undefined) ?? null,
  };
}

/**
 * Pure: checks one event's shape and values, without looking anything up. Returns the checked
 * event or its first problem, named by field (`events[3].quantity`) and a stable code. This is
 * the accepting path: it stops at the first problem.
 */
export function checkEventShape(raw: unknown, index: number, at: string, rules: ShapeRules): CheckedEvent | EventRejection {
  const p = new Problems(index, at, 1);
  return inspectEvent(raw, rules, null, p) ?? p.list[0]!;
}

/**
 * Pure: every problem of one event, in field order, at most `limit` (MAX_PROBLEMS_PER_EVENT).
 * With `refs`, a well-formed customerId or metricName that names nothing is one of them. Only a
 * rejected event is listed, so this may do more work than checkEventShape.
 */
export function listEventProblems(
  raw: unknown,
  index: number,
  at: string,
  rules: ShapeRules,
  refs: RefChecks | null,
  limit = MAX_PROBLEMS_PER_EVENT,
): EventRejection[] {
  const p = new Problems(index, at, limit);
  inspectEvent(raw, rules, refs, p);
  return p.list;
}

export function isRejection(v: CheckedEvent | EventRejection): v is EventRejection {
  return (v as EventRejection).code !== undefined;
}
