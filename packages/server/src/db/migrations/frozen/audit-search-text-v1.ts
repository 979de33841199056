/**
 * FROZEN: a copy of the parts of modules/audit/audit-search-text.ts that migrations 0006, 0007
 * and 0008 (and audit-reindex.ts) write the search index with, as that module stood when they
 * were last changed. Never edit this file. A migration must write tomorrow exactly what it wrote
 * today, so it cannot follow the live tokenizer: when the module's words or terms change, the
 * change ships with a new migration (and, if needed, a new frozen copy, v2) that re-indexes.
 */
import { createHash } from 'node:crypto';

const MAX_INDEXED_WORDS = 2000;
const MAX_WORD_LENGTH = 200;
const MAX_CATEGORY_LENGTH = 99;

const WORD = /[\p{L}\p{N}]+/gu;

export function words(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

export interface SearchableEvent {
  eventType: string;
  targetType: string | null;
  payload: unknown;
}

/** The event's type, its target's type and every value in its payload (keys left out), as words. */
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

export interface FtsEvent {
  /** auditSearchText of the event. */
  text: string;
  eventType: string;
  severity: string;
}

/**
 * Scoped terms: `w<scope><word>`, `x<scope><category length, 2 digits><category><word>`,
 * `t<scope><type's words run together>` and `v<scope><severity>`.
 */
function documentTerms(scope: string, e: FtsEvent): string[] {
  const indexed = e.text === '' ? [] : e.text.split(' ');
  const inCategory = categoryPrefix(scope, category(e.eventType));
  const terms = [...indexed.map((w) => `w${scope}${w}`), ...indexed.map((w) => `${inCategory}${w}`)];
  terms.push(`t${scope}${words(e.eventType).join('')}`, `v${scope}${e.severity.toLowerCase()}`);
  return terms;
}

/** The FTS5 document of an event (SQLite, migration 0007). */
export function ftsDocument(scope: string, e: FtsEvent): string {
  return documentTerms(scope, e).join(' ');
}

/** The tsvector lexemes of an event (PostgreSQL, migration 0008): the terms and `m<scope><yyyymm>`. */
export function tsDocument(scope: string, e: FtsEvent & { idMs: number }): string[] {
  return [...documentTerms(scope, e), monthTerm(scope, e.idMs)];
}

function monthTerm(scope: string, ms: number): string {
  const d = new Date(ms);
  return `m${scope}${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

function category(eventType: string): string {
  return words(eventType.split('.')[0] ?? '')
    .join('')
    .slice(0, MAX_CATEGORY_LENGTH);
}

function categoryPrefix(scope: string, cat: string): string {
  return `x${scope}${String(cat.length).padStart(2, '0')}${cat}`;
}

/** 12 hex digits of a hash of the workspace and environment; platform events hash ''. */
export function ftsScope(workspaceId: string | null, environment: string | null): string {
  const key = workspaceId === null ? '' : `${workspaceId}\u0000${environment ?? ''}`;
  return createHash('sha256').update(key).digest('hex').slice(0, 12);
}
