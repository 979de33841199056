import type { ErrorCode } from '../../lib/errors.js';
import {
  CLOCK_SKEW_MS,
  MAX_EVENT_AGE_MS,
  MAX_METADATA_KEYS,
  MAX_QUANTITY,
  type CheckedEvent,
  type EventRejection,
  type MetadataValue,
} from './usage-event.js';

const KNOWN_FIELDS = new Set(['customerId', 'metricName', 'quantity', 'occurredAt', 'metadata', 'eventId']);
// Date and time with a zone; fractions to the nanosecond are accepted and cut to milliseconds.
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):(\d{2}))$/;

export interface ShapeRules {
  now: number;
  /** False for the historical bulk upload, which takes events of any age. */
  enforceMaxAge: boolean;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/**
 * Pure: epoch ms of a strict ISO 8601 timestamp with a zone, or null. Date.parse alone would take
 * Feb 30 (and roll it into March); this checks the calendar and computes the instant itself,
 * which is also faster on the ingestion path.
 */
export function parseIsoTimestamp(text: string): number | null {
  const m = ISO_8601.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  if (day > (month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!)) return null;
  let offsetMs = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (oh > 23 || om > 59) return null;
    offsetMs = (oh * 60 + om) * 60_000 * (m[8]!.startsWith('-') ? -1 : 1);
  }
  const frac = m[7];
  const ms = frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, '0'));
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day); // setUTCFullYear keeps years 0-99 as written, unlike Date.UTC
  d.setUTCHours(hour, minute, second, ms);
  return d.getTime() - offsetMs;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Pure: checks one event's shape and values, without looking anything up. Returns the checked
 * event or the first problem, named by field (`events[3].quantity`) and a stable code.
 */
function rejection(index: number, at: string, code: ErrorCode, field: string, message: string): EventRejection {
  const path = field ? `${at}.${field}` : at;
  return { index, code, field: path, message: `${path} ${message}` };
}

export function checkEventShape(raw: unknown, index: number, at: string, rules: ShapeRules): CheckedEvent | EventRejection {
  if (!isPlainObject(raw)) return rejection(index, at, 'INVALID_EVENT', '', 'must be an object with customerId, metricName, quantity and occurredAt.');
  for (const key in raw) {
    if (!KNOWN_FIELDS.has(key)) return rejection(index, at, 'INVALID_EVENT', key, 'is not a known field.');
  }
  const { customerId, metricName, quantity, occurredAt, metadata, eventId } = raw;
  if (customerId === undefined) return rejection(index, at, 'INVALID_EVENT', 'customerId', 'is required.');
  if (typeof customerId !== 'string' || customerId.length === 0 || customerId.length > 255) {
    return rejection(index, at, 'INVALID_EVENT', 'customerId', 'must be a non-empty string of at most 255 characters.');
  }
  if (metricName === undefined) return rejection(index, at, 'INVALID_EVENT', 'metricName', 'is required.');
  if (typeof metricName !== 'string' || metricName.length === 0 || metricName.length > 100) {
    return rejection(index, at, 'INVALID_EVENT', 'metricName', 'must be a non-empty string of at most 100 characters.');
  }
  if (quantity === undefined) return rejection(index, at, 'INVALID_QUANTITY', 'quantity', 'is required.');
  if (typeof quantity !== 'number') return rejection(index, at, 'INVALID_QUANTITY', 'quantity', `must be a JSON number, not ${quantity === null ? 'null' : typeof quantity}.`);
  if (!Number.isFinite(quantity)) return rejection(index, at, 'INVALID_QUANTITY', 'quantity', 'must be a finite number.');
  if (quantity < 0) return rejection(index, at, 'NEGATIVE_QUANTITY', 'quantity', `must not be negative (got ${quantity}).`);
  if (quantity > MAX_QUANTITY) return rejection(index, at, 'INVALID_QUANTITY', 'quantity', `must be at most 1e15 (got ${quantity}).`);
  if (occurredAt === undefined) return rejection(index, at, 'INVALID_TIMESTAMP', 'occurredAt', 'is required.');
  const t = typeof occurredAt === 'string' ? parseIsoTimestamp(occurredAt) : null;
  if (t === null) {
    return rejection(index, at, 'INVALID_TIMESTAMP', 'occurredAt', 'must be an ISO 8601 timestamp with a time zone, such as 2026-01-15T12:00:00Z.');
  }
  if (t > rules.now + CLOCK_SKEW_MS) {
    return rejection(index, at, 'TIMESTAMP_IN_FUTURE', 'occurredAt', `is more than 5 minutes in the future (${occurredAt as string}).`);
  }
  if (rules.enforceMaxAge && t < rules.now - MAX_EVENT_AGE_MS) {
    return rejection(index, at, 'TIMESTAMP_TOO_OLD', 'occurredAt', 'is more than 35 days in the past; send historical usage through the bulk upload.');
  }
  let meta: Record<string, MetadataValue> | null = null;
  if (metadata !== undefined && metadata !== null) {
    if (!isPlainObject(metadata)) return rejection(index, at, 'INVALID_METADATA', 'metadata', 'must be an object.');
    let n = 0;
    for (const key in metadata) {
      if (++n > MAX_METADATA_KEYS) return rejection(index, at, 'INVALID_METADATA', 'metadata', `must have at most ${MAX_METADATA_KEYS} keys.`);
      if (key.length > 40) return rejection(index, at, 'INVALID_METADATA', `metadata.${key.slice(0, 40)}…`, 'key is longer than 40 characters.');
      const v = metadata[key];
      const ok = v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v.length <= 500);
      if (!ok) return rejection(index, at, 'INVALID_METADATA', `metadata.${key}`, 'must be a string of at most 500 characters, a finite number, a boolean or null.');
    }
    meta = metadata as Record<string, MetadataValue>;
  }
  if (eventId !== undefined && (typeof eventId !== 'string' || eventId.length === 0 || eventId.length > 255)) {
    return rejection(index, at, 'INVALID_EVENT', 'eventId', 'must be a non-empty string of at most 255 characters.');
  }
  return { customerRef: customerId, metricName, quantity, occurredAt: t, metadata: meta, eventId: (eventId as string | undefined) ?? null };
}

export function isRejection(v: CheckedEvent | EventRejection): v is EventRejection {
  return (v as EventRejection).code !== undefined;
}
