/**
 * The audit log screen's pure parts: the filters of GET /v1/events (the same for saved searches
 * and the live stream) to and from the address bar's query, so a search is a link; how a filter
 * set is worded; and a payload shown as text that hides nothing.
 */
export const FILTER_NAMES = ['q', 'type', 'severity', 'actorType', 'actorId', 'targetType', 'targetId', 'correlationId', 'createdFrom', 'createdTo'] as const;
export type FilterName = (typeof FILTER_NAMES)[number];
export type AuditFilters = Partial<Record<FilterName, string>>;

/** Lowest first, as the API ranks them ("this severity and every higher one"). */
export const SEVERITIES = ['DEBUG', 'INFO', 'NOTICE', 'WARN', 'ERROR', 'CRITICAL'] as const;
export const ACTOR_TYPES = [
  'SYSTEM',
  'OPERATOR',
  'WORKSPACE_KEY',
  'PRODUCT_KEY',
  'CLIENT_CREDENTIAL',
  'STOREFRONT_KEY',
  'WIDGET_SESSION',
  'HUB_SESSION',
  'WEBHOOK_SOURCE',
  'ANONYMOUS',
] as const;

export interface AuditEvent {
  object: 'audit_event';
  eventId: string;
  tenantId: string;
  environment: 'test' | 'live';
  eventType: string;
  source: string;
  severity: string;
  actorType: string;
  actorId: string;
  targetType: string | null;
  targetId: string | null;
  payload: Record<string, unknown>;
  correlationId: string;
  createdAt: string;
}

export interface AuditSearchPreset {
  id: string;
  object: 'audit_search_preset';
  name: string;
  filters: AuditFilters;
  createdAt: string;
}

const isFilterName = (k: string): k is FilterName => (FILTER_NAMES as readonly string[]).includes(k);

/**
 * The filters of a query string or a submitted form: known names only, empty ones left out (an
 * empty field means "any"). Values are kept as typed: the API checks them and says what is wrong.
 */
export function filtersFrom(entries: Iterable<[string, unknown]>): AuditFilters {
  const out: AuditFilters = {};
  for (const [k, v] of entries) if (isFilterName(k) && typeof v === 'string' && v.trim() !== '') out[k] = v.trim();
  return out;
}

/** The query string of a filter set, in FILTER_NAMES order so one search has one address; '' for none. */
export function searchOf(filters: AuditFilters): string {
  const params = new URLSearchParams();
  for (const k of FILTER_NAMES) {
    const v = filters[k];
    if (v !== undefined && v !== '') params.set(k, v);
  }
  const q = params.toString();
  return q === '' ? '' : `?${q}`;
}

const LABELS: Record<FilterName, string> = {
  q: 'words',
  type: 'type',
  severity: 'severity ≥',
  actorType: 'actor type',
  actorId: 'actor',
  targetType: 'target type',
  targetId: 'target',
  correlationId: 'correlation id',
  createdFrom: 'from',
  createdTo: 'until',
};

/** "type api_key.*; severity ≥ WARN", or "every event" for none. */
export function describeFilters(filters: AuditFilters): string {
  const parts = FILTER_NAMES.filter((k) => filters[k] !== undefined && filters[k] !== '').map((k) => `${LABELS[k]} ${filters[k] as string}`);
  return parts.length === 0 ? 'every event' : parts.join('; ');
}

/**
 * Characters that print as nothing, or reorder what follows (bidirectional overrides): shown as
 * \u escapes so a payload cannot hide or disguise text. JSON.stringify escapes only C0 controls.
 */
const INVISIBLE = /[\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff\ufff9-\ufffb]/g;

/** A payload as indented JSON text: escaped for display (rendered as text, never as markup). */
export function payloadText(payload: unknown): string {
  const json = JSON.stringify(payload, null, 2) ?? 'null';
  return json.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * An event's instant to the second, in UTC ("2026-04-16 09:30:05 UTC"): events of one minute are
 * told apart. Text that is not an API instant is shown as sent.
 */
export function eventTime(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

/** What the live tail's status line says. */
export function tailAnnouncement(count: number, latest: string | null): string {
  if (count === 0 || latest === null) return 'Live tail on: new events appear below as they happen.';
  return `${count} new ${count === 1 ? 'event' : 'events'}; the latest: ${latest}.`;
}
