/**
 * The words full-text search finds an audit event by, and the query made of a user's search
 * text. Pure, and the only tokenizer: the database indexes (SQLite FTS5, PostgreSQL tsvector)
 * receive words already split and lower-cased here, so both find the same events, and the live
 * stream matches its events in memory with the same rule.
 *
 * A word is a run of letters and digits; everything else separates words, so `api_key.rotated`
 * is found by `api`, `key` or `rotated`, and `alice@example.com` by `alice`, `example` or `com`.
 */

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

/** FTS5 query: the tenant's token and every term, each quoted so nothing in it is syntax. */
export function ftsMatchExpression(tenantToken: string, q: TextQuery): string {
  const terms = q.terms.map((t) => `"${t.word}"${t.prefix ? '*' : ''}`).join(' AND ');
  return `tenant : "${tenantToken}" AND body : (${terms})`;
}

/** PostgreSQL to_tsquery text: terms joined by &, prefixes as :*. Words hold no operator characters. */
export function tsQueryExpression(q: TextQuery): string {
  return q.terms.map((t) => (t.prefix ? `${t.word}:*` : t.word)).join(' & ');
}

/**
 * The tenant as one FTS5 word, so a search intersects with the tenant's own events inside the
 * index instead of walking every tenant's matches. Platform events (no tenant) get a word of
 * their own that no workspace id can produce.
 */
export function ftsTenantToken(workspaceId: string | null, environment: string | null): string {
  if (workspaceId === null) return 'platform';
  return `t${words(`${workspaceId}${environment ?? ''}`).join('')}`;
}
