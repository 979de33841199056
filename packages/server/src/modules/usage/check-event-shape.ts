import type { ErrorCode } from '../../lib/errors.js';
import { parseIsoTimestamp } from '../../lib/timestamps.js';
import {
  CLOCK_SKEW_MS,
  MAX_EVENT_AGE_MS,
  MAX_METADATA_DEPTH,
  MAX_METADATA_ITEMS,
  MAX_METADATA_KEY_LENGTH,
  MAX_METADATA_KEYS,
  MAX_METADATA_STRING_LENGTH,
  MAX_METADATA_TEXT,
  MAX_METADATA_VALUES,
  MAX_QUANTITY,
  type CheckedEvent,
  type EventRejection,
  type MetadataValue,
} from './usage-event.js';

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

/**
 * A walk of one event's metadata: where it is (the keys and indexes from metadata down, so a
 * field name is only built for a problem) and the running totals.
 */
class MetadataWalk {
  readonly at: Array<string | number> = [];
  values = 0;
  text = 0;
  /** A total was passed: that is named once, and the walk stops looking. */
  over = false;

  constructor(private readonly p: Problems) {}

  /** `metadata.request.headers`, `metadata.tags[2]`; a long key is cut as json-limits.ts does. */
  field(): string {
    let f = 'metadata';
    for (const s of this.at) f += typeof s === 'number' ? `[${s}]` : `.${s.length > MAX_METADATA_KEY_LENGTH ? `${s.slice(0, MAX_METADATA_KEY_LENGTH)}…` : s}`;
    return f;
  }

  /** Records a problem at the current place; true once the event's limit is reached. */
  add(message: string): boolean {
    return this.p.add('INVALID_METADATA', this.field(), message);
  }

  /** Counts a value and its text against the totals; true once the event's limit is reached. */
  count(chars: number): boolean {
    this.values += 1;
    this.text += chars;
    if (this.values > MAX_METADATA_VALUES) {
      this.over = true;
      return this.add(
        `is value number ${MAX_METADATA_VALUES + 1}: metadata holds at most ${MAX_METADATA_VALUES} values in all, at any depth (an object or an array counts as one).`,
      );
    }
    if (this.text > MAX_METADATA_TEXT) {
      this.over = true;
      return this.add(
        `goes past ${MAX_METADATA_TEXT.toLocaleString('en-US')} characters: metadata holds at most that many characters of keys and strings in all.`,
      );
    }
    return false;
  }
}

/**
 * Records what is wrong with a metadata object (any JSON object within the bounds of
 * usage-event.ts), each problem named by its path. True once the event's limit is reached.
 * Recursion is bounded by MAX_METADATA_DEPTH: a deeper container is refused, not entered.
 */
function metadataProblems(p: Problems, metadata: Record<string, unknown>): boolean {
  return !isFineFlat(metadata) && containerProblems(new MetadataWalk(p), metadata, 1);
}

/**
 * The hot path: most metadata is a few flat values. Flat metadata within the per-object limits
 * cannot pass a total (50 values, 50 x 540 characters), so it needs no walk; anything else (a
 * nested value, a problem) is walked from the start, which names every problem. Checking 1,000
 * events with five flat values each then costs what it did before nesting (about 0.15 ms, bundled
 * as the server runs), not the walk's 0.2 ms; with a nested object and an array, about 0.25 ms.
 */
function isFineFlat(metadata: Record<string, unknown>): boolean {
  let keys = 0;
  for (const key in metadata) {
    if (++keys > MAX_METADATA_KEYS || key.length > MAX_METADATA_KEY_LENGTH) return false;
    const v = metadata[key];
    if (typeof v === 'string' ? v.length > MAX_METADATA_STRING_LENGTH : typeof v === 'number' ? !Number.isFinite(v) : v !== null && typeof v !== 'boolean') {
      return false;
    }
  }
  return true;
}

function containerProblems(w: MetadataWalk, node: object, depth: number): boolean {
  if (Array.isArray(node)) {
    if (node.length > MAX_METADATA_ITEMS && w.add(`must have at most ${MAX_METADATA_ITEMS} items (an array in metadata).`)) return true;
    const n = Math.min(node.length, MAX_METADATA_ITEMS);
    for (let i = 0; i < n && !w.over; i++) {
      w.at.push(i);
      const stop = valueProblems(w, node[i], 0, depth);
      w.at.pop();
      if (stop) return true;
    }
    return false;
  }
  let keys = 0;
  for (const key in node) {
    if (w.over) return false;
    if (++keys > MAX_METADATA_KEYS) return w.add(`must have at most ${MAX_METADATA_KEYS} keys.`);
    w.at.push(key);
    const stop =
      key.length > MAX_METADATA_KEY_LENGTH
        ? w.add(`key is longer than ${MAX_METADATA_KEY_LENGTH} characters.`)
        : valueProblems(w, (node as Record<string, unknown>)[key], key.length, depth);
    w.at.pop();
    if (stop) return true;
  }
  return false;
}

/** One value inside a container at `depth`, under a key of `keyChars` characters (0: an array item). */
function valueProblems(w: MetadataWalk, v: unknown, keyChars: number, depth: number): boolean {
  if (typeof v === 'string') {
    if (v.length > MAX_METADATA_STRING_LENGTH) return w.add(`must be a string of at most ${MAX_METADATA_STRING_LENGTH} characters.`);
    return w.count(keyChars + v.length);
  }
  if (w.count(keyChars)) return true;
  if (w.over || v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return false;
  if (typeof v !== 'object') return w.add('must be a string, a finite number, a boolean, null, an object or an array.');
  if (depth + 1 > MAX_METADATA_DEPTH) {
    return w.add(`is nested too deeply: objects and arrays in metadata go at most ${MAX_METADATA_DEPTH} levels deep (metadata itself is the first).`);
  }
  return containerProblems(w, v, depth + 1);
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
    } else if (metadataProblems(p, metadata)) return null;
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
