import { AppError } from '../../lib/errors.js';
import { parseIsoTimestamp } from '../../lib/timestamps.js';
import { severities, type AuditEvent, type Severity } from './audit-event.js';
import { actorTypes, type ActorType } from '../../lib/operation-context.js';
import { auditSearchText, matchesText, parseTextQuery, type TextQuery } from './audit-search-text.js';

/**
 * Filters of the audit log, combined with AND. Pure: the list endpoint, saved searches and the
 * live stream parse them here; the stream checks them in memory with matchesAuditFilter.
 */
export interface AuditFilter {
  /** Full text: every word (or prefix) among the event's names and payload values. */
  text?: TextQuery;
  /** Exact type, or every type under a prefix (`api_key.*`). */
  eventType?: { exact: string } | { prefix: string };
  /** This severity and every higher one. */
  severities?: Severity[];
  actorType?: ActorType;
  actorId?: string;
  targetType?: string;
  targetId?: string;
  correlationId?: string;
  /** Epoch ms, inclusive; whole seconds. */
  createdFrom?: number;
  /** Epoch ms, exclusive; whole seconds. */
  createdTo?: number;
}

export interface AuditFilterQuery {
  q?: string;
  type?: string;
  severity?: string;
  actorType?: string;
  actorId?: string;
  targetType?: string;
  targetId?: string;
  correlationId?: string;
  createdFrom?: string;
  createdTo?: string;
}

const EVENT_TYPE = /^[a-z0-9_]+(\.[a-z0-9_]+)*$/;

export function parseAuditFilter(
  q: AuditFilterQuery,
  at = 'query',
): { ok: true; value: AuditFilter } | { ok: false; errors: Array<{ field: string; message: string }> } {
  const errors: Array<{ field: string; message: string }> = [];
  const value: AuditFilter = {};
  if (q.q !== undefined) {
    const text = q.q.length <= 200 ? parseTextQuery(q.q) : null;
    if (text === null)
      errors.push({
        field: `${at}.q`,
        message: 'must hold at least one word (letters or digits) and at most 200 characters; end a word with * to match it as a prefix.',
      });
    else value.text = text;
  }
  if (q.type !== undefined) {
    const prefix = q.type.endsWith('.*') ? q.type.slice(0, -2) : null;
    const name = prefix ?? q.type;
    if (!EVENT_TYPE.test(name))
      errors.push({ field: `${at}.type`, message: 'must be a dotted event type such as api_key.rotated, or a prefix such as api_key.*' });
    else value.eventType = prefix === null ? { exact: name } : { prefix: name };
  }
  if (q.severity !== undefined) {
    const rank = severities.indexOf(q.severity.toUpperCase() as Severity);
    if (rank < 0) errors.push({ field: `${at}.severity`, message: `must be one of ${severities.join(', ')}: that severity and every higher one are listed.` });
    else value.severities = severities.slice(rank);
  }
  if (q.actorType !== undefined) {
    if (!(actorTypes as readonly string[]).includes(q.actorType))
      errors.push({ field: `${at}.actorType`, message: `must be one of ${actorTypes.join(', ')}.` });
    else value.actorType = q.actorType as ActorType;
  }
  for (const key of ['actorId', 'targetType', 'targetId', 'correlationId'] as const) {
    const v = q[key];
    if (v === undefined) continue;
    if (v === '' || v.length > 255) errors.push({ field: `${at}.${key}`, message: 'must be 1 to 255 characters.' });
    else value[key] = v;
  }
  for (const key of ['createdFrom', 'createdTo'] as const) {
    const v = q[key];
    if (v === undefined) continue;
    const t = parseIsoTimestamp(v);
    if (t === null) errors.push({ field: `${at}.${key}`, message: 'must be an ISO 8601 time with a zone, such as 2026-11-23T12:00:00Z.' });
    else if (t % 1000 !== 0) errors.push({ field: `${at}.${key}`, message: 'is precise to the second: leave out fractions of a second.' });
    else value[key] = t;
  }
  if (value.createdFrom !== undefined && value.createdTo !== undefined && value.createdTo <= value.createdFrom) {
    errors.push({ field: `${at}.createdTo`, message: 'must be later than createdFrom.' });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value };
}

/**
 * The bounds of a type prefix as a range: `api_key.` up to `api_key/` ('/' follows '.'). An index
 * range, with none of LIKE's wildcards (`_` is one) to escape.
 */
export function prefixRange(prefix: string): [string, string] {
  return [`${prefix}.`, `${prefix}/`];
}

/** The filter, or a 400 naming every bad field. */
export function filterErrors(q: AuditFilterQuery, at: string): AuditFilter {
  const r = parseAuditFilter(q, at);
  if (r.ok) return r.value;
  throw new AppError('VALIDATION_FAILED', r.errors.map((e) => `${e.field} ${e.message}`).join(' '), {
    details: r.errors.map((e) => ({ code: 'VALIDATION_FAILED' as const, message: `${e.field} ${e.message}`, field: e.field })),
  });
}

/**
 * The same filters, checked on one event in memory: the live stream's test. Events carry their
 * search words only when a text filter needs them (made once per event by the caller).
 */
export function matchesAuditFilter(f: AuditFilter, e: AuditEvent, searchText?: () => string): boolean {
  if (f.eventType) {
    if ('exact' in f.eventType) {
      if (e.eventType !== f.eventType.exact) return false;
    } else {
      const [lo, hi] = prefixRange(f.eventType.prefix);
      if (!(e.eventType >= lo && e.eventType < hi)) return false;
    }
  }
  if (f.severities && !f.severities.includes(e.severity)) return false;
  if (f.actorType && e.actorType !== f.actorType) return false;
  if (f.actorId && e.actorId !== f.actorId) return false;
  if (f.targetType && e.targetType !== f.targetType) return false;
  if (f.targetId && e.targetId !== f.targetId) return false;
  if (f.correlationId && e.correlationId !== f.correlationId) return false;
  if (f.createdFrom !== undefined && e.createdAt < f.createdFrom) return false;
  if (f.createdTo !== undefined && e.createdAt >= f.createdTo) return false;
  if (f.text && !matchesText(f.text, searchText ? searchText() : auditSearchText(e))) return false;
  return true;
}
