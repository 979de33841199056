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
/**
 * Longer words are not indexed: they are tokens and encoded blobs nobody types into a search,
 * and PostgreSQL refuses a lexeme over 2,046 bytes (a scoped word of 200 characters is at most
 * 814).
 */
export const MAX_WORD_LENGTH = 200;
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
      if (w.length <= MAX_WORD_LENGTH) out.push(w);
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

/** What an event's search document is made of: its words, and its type and severity as facets. */
export interface FtsEvent {
  /** auditSearchText of the event. */
  text: string;
  eventType: string;
  severity: string;
}

/**
 * The terms an event is indexed by, on both backends (SQLite's FTS5 document, PostgreSQL's
 * tsvector). Every term carries its tenant's scope, so a term's list of rows holds one tenant's
 * events: a search reads only its own tenant's matches, however many other tenants share the
 * database, and never intersects with a list of all the tenant's rows.
 *
 * - each word as `w<scope><word>`;
 * - the event type as a facet term `t<scope><its words run together>` (`api_key.rotated` is
 *   `t<scope>apikeyrotated`), and its first segment as `c<scope><words>` (`c<scope>apikey`), so
 *   an exact type and a type prefix (`api_key.*`) are each one term. A type prefix is not queried
 *   as a prefix term: without a prefix index FTS5 merges the whole list of every matching term
 *   first, 30 to 90 ms for a common category over ten million events;
 * - the severity as `v<scope><severity>`.
 *
 * The facets let the index intersect full text with type and severity, instead of fetching each
 * matching row to test its columns (a few thousand random reads for a common word and a rare
 * type). The leading letter keeps words and facets apart. The facets may match more than the
 * filter (`apikey.x` runs together like `api_key.x`; a prefix of two segments is looked up by
 * its first): the queries still test the columns.
 */
export function documentTerms(scope: string, e: FtsEvent): string[] {
  const terms = e.text === '' ? [] : e.text.split(' ').map((w) => `w${scope}${w}`);
  terms.push(`t${scope}${words(e.eventType).join('')}`, `c${scope}${category(e.eventType)}`, `v${scope}${e.severity.toLowerCase()}`);
  return terms;
}

/** The FTS5 document of an event (SQLite): documentTerms, space-separated. */
export function ftsDocument(scope: string, e: FtsEvent): string {
  return documentTerms(scope, e).join(' ');
}

/**
 * The lexemes of an event's tsvector (PostgreSQL; written with array_to_tsvector, so no text
 * parser touches them): documentTerms, and the UTC month its id was made in, `m<scope><yyyymm>`.
 * The month term lets a search read GIN's matches a month at a time, newest first
 * (audit-text-search.repository.ts): GIN returns matches in no order, so without it a search
 * would fetch every match of the year to sort them.
 */
export function tsDocument(scope: string, e: FtsEvent & { idMs: number }): string[] {
  return [...documentTerms(scope, e), monthTerm(scope, e.idMs)];
}

/** The month term of the UTC month holding `ms`. */
export function monthTerm(scope: string, ms: number): string {
  const d = new Date(ms);
  return `m${scope}${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The first segment of a dotted type, its words run together: `api_key.rotated` gives `apikey`. */
function category(eventType: string): string {
  return words(eventType.split('.')[0] ?? '').join('');
}

/** A search as the indexes see it: the words, and the type and severity filters if given. */
export interface FtsQuery {
  text: TextQuery;
  eventType?: { exact: string } | { prefix: string };
  severities?: string[];
}

/** One condition of a search: any of its terms (a term with `prefix` matches what begins so). */
type Condition = Array<{ term: string; prefix: boolean }>;

/** The conditions a search's events must all meet, scoped as documentTerms scopes them. */
function conditions(scope: string, q: FtsQuery): Condition[] {
  const out: Condition[] = q.text.terms.map((t) => [{ term: `w${scope}${t.word}`, prefix: t.prefix }]);
  if (q.eventType && 'exact' in q.eventType) out.push([{ term: `t${scope}${words(q.eventType.exact).join('')}`, prefix: false }]);
  if (q.eventType && 'prefix' in q.eventType) out.push([{ term: `c${scope}${category(q.eventType.prefix)}`, prefix: false }]);
  if (q.severities && q.severities.length > 0) out.push(q.severities.map((v) => ({ term: `v${scope}${v.toLowerCase()}`, prefix: false })));
  return out;
}

/**
 * FTS5 query for a tenant, each term quoted so nothing the user typed is FTS5 syntax. A prefix
 * stays a prefix: the scope has a fixed width, so `"w<scope>rot"*` matches exactly this tenant's
 * words that begin with rot.
 */
export function ftsMatchExpression(scope: string, q: FtsQuery): string {
  return conditions(scope, q)
    .map((any) => {
      const terms = any.map((t) => `"${t.term}"${t.prefix ? '*' : ''}`);
      return terms.length === 1 ? terms[0]! : `(${terms.join(' OR ')})`;
    })
    .join(' AND ');
}

/**
 * PostgreSQL tsquery texts for a tenant, one per condition, each compared on its own (`search @@
 * $n::tsquery`). GIN takes each comparison as a scan key of its own and intersects the keys by
 * skipping ahead in each posting list, where terms joined with & in one tsquery are walked item
 * by item along the rarest term's whole list. Terms are quoted lexemes: words hold only letters
 * and digits, so nothing the user typed is tsquery syntax.
 */
export function tsQueryConditions(scope: string, q: FtsQuery): string[] {
  return conditions(scope, q).map((any) => any.map((t) => `'${t.term}'${t.prefix ? ':*' : ''}`).join(' | '));
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
