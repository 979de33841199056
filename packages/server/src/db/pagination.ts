import type { SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.js';

export interface PageParams {
  limit?: number;
  startingAfter?: string;
  endingBefore?: string;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

/**
 * Newest first, by id (ids are time-sortable). startingAfter walks to older items, endingBefore
 * back to newer ones; one extra row tells whether more exist. The caller's builder already
 * filters by workspace and environment.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any table's builder: the callers' builders differ in their tables and joins
export async function pageById<Row extends { id: string }>(qb: SelectQueryBuilder<Database, any, Row>, table: string, page: PageParams): Promise<Page<Row>> {
  const limit = page.limit ?? 10;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment -- a column named at run time, which Kysely's types cannot check
  const col = `${table}.id` as any;
  let q = qb;
  if (page.endingBefore !== undefined) {
    q = q.where(col, '>', page.endingBefore).orderBy(col, 'asc');
  } else {
    if (page.startingAfter !== undefined) q = q.where(col, '<', page.startingAfter);
    q = q.orderBy(col, 'desc');
  }
  const rows = (await q.limit(limit + 1).execute()) as Row[];
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  if (page.endingBefore !== undefined) items.reverse();
  return { items, hasMore };
}
