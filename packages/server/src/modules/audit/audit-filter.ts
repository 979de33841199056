import { AppError } from '../../lib/errors.js';
import { parseIsoTimestamp } from '../usage/check-event-shape.js';
import { actorTypes, severities, type ActorType, type Severity } from './audit-event.js';

/**
 * Filters of the audit log, combined with AND. Pure: the list endpoint parses them here, and the
 * search and live stream of the rest of issue 6 are meant to share the same parser.
 */
export interface AuditFilter {
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

export function parseAuditFilter(q: AuditFilterQuery, at = 'query'): { ok: true; value: AuditFilter } | { ok: false; errors: Array<{ field: string; message: string }> } {
  const errors: Array<{ field: string; message: string }> = [];
  const value: AuditFilter = {};
  if (q.type !== undefined) {
    const prefix = q.type.endsWith('.*') ? q.type.slice(0, -2) : null;
    const name = prefix ?? q.type;
    if (!EVENT_TYPE.test(name)) errors.push({ field: `${at}.type`, message: "must be a dotted event type such as api_key.rotated, or a prefix such as api_key.*" });
    else value.eventType = prefix === null ? { exact: name } : { prefix: name };
  }
  if (q.severity !== undefined) {
    const rank = severities.indexOf(q.severity.toUpperCase() as Severity);
    if (rank < 0) errors.push({ field: `${at}.severity`, message: `must be one of ${severities.join(', ')}: that severity and every higher one are listed.` });
    else value.severities = severities.slice(rank);
  }
  if (q.actorType !== undefined) {
    if (!(actorTypes as readonly string[]).includes(q.actorType)) errors.push({ field: `${at}.actorType`, message: `must be one of ${actorTypes.join(', ')}.` });
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
