/**
 * The words full-text search finds an audit event by, and the query made of a user's search
 * text. Pure, and the only tokenizer: the database indexes (SQLite FTS5, PostgreSQL tsvector)
 * receive words already split and lower-cased here, so both find the same events, and the live
 * stream matches its events in memory with the same rule.
 *
 * A word is a run of letters and digits; everything else separates words, so `api_key.rotated`
 * is found by `api`, `key` or `rotated`, and `alice@example.com` by `alice`, `example` or `com`.
 */
import { createHash } from 'node:crypto';

/** Words indexed per event at most: a huge payload does not make a huge index entry. */
export const MAX_INDEXED_WORDS = 2000;
/** Words in one query at most. */
export const MAX_QUERY_WORDS = 16;

const WORD = /[\p{L}\p{N}]+/gu;

export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

export interface SearchableEvent {
  eventType: string;
  targetType: string | null;
  payload: unknown;
}

/**
 * The event's names (its type and its target's type) and every value in its payload, keys left
 * out: a search for "name" should find an event about someone named so, not every event with a
 * name. Actor, target and correlation ids are left out too (every key id would match `key`);
 * their own filters find them through b-tree indexes.
 */
export function auditSearchText(e: SearchableEvent): string {
  const out: string[] = [];
  const add = (s: string) => {
    for (const w of words(s)) {
      if (out.length >= MAX_INDEXED_WORDS) return;
      out.push(w);
    }
  };
  add(e.eventType);
  if (e.targetType) add(e.targetType);
  const walk = (v: unknown, depth: number): void => {
    if (out.length >= MAX_INDEXED_WORDS || depth > 32) return;
    if (typeof v === 'string') add(v);
    else if (typeof v === 'number' || typeof v === 'boolean') add(String(v));
    else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) walk(x, depth + 1);
  };
  walk(e.payload, 0);
  return out.join(' ');
}

/** A parsed search: every term must be present; a prefix term matches any word it begins. */
export interface TextQuery {
  terms: Array<{ word: string; prefix: boolean }>;
}

/**
 * The user's text as terms: words as above, and a word directly followed by `*` is a prefix
 * (`rot*` finds rotated). Null when the text holds no word at all.
 */
export function parseTextQuery(text: string): TextQuery | null {
  const terms: TextQuery['terms'] = [];
  for (const m of text.toLowerCase().matchAll(/([\p{L}\p{N}]+)(\*)?/gu)) {
    if (terms.length >= MAX_QUERY_WORDS) break;
    terms.push({ word: m[1]!, prefix: m[2] === '*' });
  }
  return terms.length > 0 ? { terms } : null;
}

/** The same test the indexes make, for events the live stream has in memory. */
export function matchesText(query: TextQuery, indexedText: string): boolean {
  const have = indexedText.split(' ');
  const set = new Set(have);
  return query.terms.every((t) => (t.prefix ? have.some((w) => w.startsWith(t.word)) : set.has(t.word)));
}

/** What an event's FTS5 document is made of: its words, and its type and severity as facets. */
export interface FtsEvent {
  /** auditSearchText of the event. */
  text: string;
  eventType: string;
  severity: string;
}

/**
 * The FTS5 document of an event (SQLite). Every term carries its tenant's scope, so a term's list
 * of rows holds one tenant's events: a search reads only its own tenant's matches, however many
 * other tenants share the database, and never intersects with a list of all the tenant's rows.
 *
 * - each word as `w<scope><word>`;
 * - the event type as a facet term `t<scope><its words run together>` (`api_key.rotated` is
 *   `t<scope>apikeyrotated`), and its first segment as `c<scope><words>` (`c<scope>apikey`), so
 *   an exact type and a type prefix (`api_key.*`) are each one term. A prefix is not queried as
 *   an FTS5 prefix term: without a prefix index FTS5 merges the whole list of every matching term
 *   first, 30 to 90 ms for a common category over ten million events;
 * - the severity as `v<scope><severity>`.
 *
 * The facets let FTS5 intersect full text with type and severity inside the index, instead of
 * fetching each matching row to test its columns (a few thousand random reads for a common word
 * and a rare type). The leading letter keeps words and facets apart. The facets may match more
 * than the filter (`apikey.x` runs together like `api_key.x`; a prefix of two segments is looked
 * up by its first): the query still tests the columns.
 */
export function ftsDocument(scope: string, e: FtsEvent): string {
  const terms = e.text === '' ? [] : e.text.split(' ').map((w) => `w${scope}${w}`);
  terms.push(`t${scope}${words(e.eventType).join('')}`, `c${scope}${category(e.eventType)}`, `v${scope}${e.severity.toLowerCase()}`);
  return terms.join(' ');
}

/** The first segment of a dotted type, its words run together: `api_key.rotated` gives `apikey`. */
function category(eventType: string): string {
  return words(eventType.split('.')[0] ?? '').join('');
}

/** A search as FTS5 sees it: the words, and the type and severity filters if given. */
export interface FtsQuery {
  text: TextQuery;
  eventType?: { exact: string } | { prefix: string };
  severities?: string[];
}

/**
 * FTS5 query for a tenant, the terms scoped as ftsDocument scopes them, each quoted so nothing
 * the user typed is FTS5 syntax. A prefix stays a prefix: the scope has a fixed width, so
 * `"w<scope>rot"*` matches exactly this tenant's words that begin with rot.
 */
export function ftsMatchExpression(scope: string, q: FtsQuery): string {
  const parts = q.text.terms.map((t) => `"w${scope}${t.word}"${t.prefix ? '*' : ''}`);
  if (q.eventType && 'exact' in q.eventType) parts.push(`"t${scope}${words(q.eventType.exact).join('')}"`);
  if (q.eventType && 'prefix' in q.eventType) parts.push(`"c${scope}${category(q.eventType.prefix)}"`);
  if (q.severities && q.severities.length > 0) {
    const any = q.severities.map((v) => `"v${scope}${v.toLowerCase()}"`);
    parts.push(any.length === 1 ? any[0]! : `(${any.join(' OR ')})`);
  }
  return parts.join(' AND ');
}

/** PostgreSQL to_tsquery text: terms joined by &, prefixes as :*. Words hold no operator characters. */
export function tsQueryExpression(q: TextQuery): string {
  return q.terms.map((t) => (t.prefix ? `${t.word}:*` : t.word)).join(' & ');
}

/**
 * The tenant's scope: 12 hex digits of a hash of the workspace and the environment, a fixed
 * width made only of characters FTS5's tokenizer keeps inside a word. Platform events (no tenant)
 * hash the empty string, which no workspace id produces. Two tenants sharing a scope (one chance
 * in 2^48) would only slow a search: its query still checks the tenant on each row.
 */
export function ftsScope(workspaceId: string | null, environment: string | null): string {
  const key = workspaceId === null ? '' : `${workspaceId}\u0000${environment ?? ''}`;
  return createHash('sha256').update(key).digest('hex').slice(0, 12);
}
