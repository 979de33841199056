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
 * - each word as `w<scope><word>`, and again joined to its event's category (the type's first
 *   segment, its words run together) as `x<scope><length of the category, 2 digits><category>
 *   <word>`: `rotated` in `api_key.rotated` is also `x<scope>06apikeyrotated`;
 * - the event type as a facet term `t<scope><its words run together>` (`t<scope>apikeyrotated`);
 * - the severity as a facet term `v<scope><severity>`.
 *
 * A search with a type or a type prefix (`api_key.*`) looks its words up among the joined terms,
 * whose lists hold exactly the events of that category with that word: a word that never occurs
 * in the category ends the search at once, where intersecting a common word's list with a common
 * category's reads both to the end (half a second over ten million events). An exact type and the
 * severities are then intersected inside the index too, instead of fetching each matching row to
 * test its columns. The leading letter keeps words and facets apart; the category's length keeps
 * `apikey` + `rot` apart from `apik` + `eyrot`. The terms may match more than the filter
 * (`apikey.x` runs together like `api_key.x`; a prefix of two segments is looked up by its
 * first): the queries still test the columns.
 */
export function documentTerms(scope: string, e: FtsEvent): string[] {
  const indexed = e.text === '' ? [] : e.text.split(' ');
  const inCategory = categoryPrefix(scope, category(e.eventType));
  const terms = [...indexed.map((w) => `w${scope}${w}`), ...indexed.map((w) => `${inCategory}${w}`)];
  terms.push(`t${scope}${words(e.eventType).join('')}`, `v${scope}${e.severity.toLowerCase()}`);
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
 * (audit-search.repository.ts): GIN returns matches in no order, so without it a search
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

/** Categories longer than this are cut: the joined terms keep the category's length in two digits. */
const MAX_CATEGORY_LENGTH = 99;

/**
 * The first segment of a dotted type, its words run together (`api_key.rotated` gives `apikey`),
 * cut to MAX_CATEGORY_LENGTH.
 */
function category(eventType: string): string {
  return words(eventType.split('.')[0] ?? '')
    .join('')
    .slice(0, MAX_CATEGORY_LENGTH);
}

/** What a word is joined to in its category's terms: `x<scope><length, 2 digits><category>`. */
function categoryPrefix(scope: string, cat: string): string {
  return `x${scope}${String(cat.length).padStart(2, '0')}${cat}`;
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
  // With a type, each word is looked up within its category: that term implies the category's.
  const type = q.eventType && ('exact' in q.eventType ? q.eventType.exact : q.eventType.prefix);
  const wordPrefix = type === undefined ? `w${scope}` : categoryPrefix(scope, category(type));
  const out: Condition[] = q.text.terms.map((t) => [{ term: `${wordPrefix}${t.word}`, prefix: t.prefix }]);
  if (q.eventType && 'exact' in q.eventType) out.push([{ term: `t${scope}${words(q.eventType.exact).join('')}`, prefix: false }]);
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
