/**
 * Stripe-style cursor paging over the API's lists ({object: 'list', data, hasMore}; newest first;
 * `startingAfter` walks to older items, `endingBefore` back to newer ones, and `hasMore` speaks of
 * the direction of travel). Pure: which buttons a page enables and which cursor each one sends.
 */
export type Cursor = { startingAfter: string } | { endingBefore: string } | null;

export interface ListPage<T> {
  object: 'list';
  data: T[];
  hasMore: boolean;
}

export interface PageState {
  /** The cursor that fetched this page (null: the first page). */
  cursor: Cursor;
  /** The first and last ids shown. */
  firstId: string | null;
  lastId: string | null;
  hasNext: boolean;
  hasPrevious: boolean;
}

/** What a fetched page allows: Next when older items exist, Previous when newer ones do. */
export function pageState(cursor: Cursor, page: ListPage<{ id: string }>): PageState {
  const firstId = page.data[0]?.id ?? null;
  const lastId = page.data[page.data.length - 1]?.id ?? null;
  if (cursor !== null && 'endingBefore' in cursor) {
    // Walking back: hasMore says newer items remain; older ones exist (we came from them).
    return { cursor, firstId, lastId, hasNext: lastId !== null, hasPrevious: page.hasMore };
  }
  return { cursor, firstId, lastId, hasNext: page.hasMore && lastId !== null, hasPrevious: cursor !== null && firstId !== null };
}

export const nextCursor = (s: PageState): Cursor => (s.hasNext && s.lastId !== null ? { startingAfter: s.lastId } : null);
export const previousCursor = (s: PageState): Cursor => (s.hasPrevious && s.firstId !== null ? { endingBefore: s.firstId } : null);

/** The query of a page request: the cursor's one parameter and the page size. */
export function pageQuery(cursor: Cursor, limit: number): Record<string, string> {
  const q: Record<string, string> = { limit: String(limit) };
  if (cursor && 'startingAfter' in cursor) q.startingAfter = cursor.startingAfter;
  if (cursor && 'endingBefore' in cursor) q.endingBefore = cursor.endingBefore;
  return q;
}
