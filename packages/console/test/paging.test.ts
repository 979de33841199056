import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nextCursor, pageQuery, pageState, previousCursor, type Cursor } from '../src/paging.js';

const page = (ids: string[], hasMore: boolean) => ({ object: 'list' as const, data: ids.map((id) => ({ id })), hasMore });

describe('pageState: which way a list can go from the page shown', () => {
  const cases: Array<[string, Cursor, ReturnType<typeof page>, { next: Cursor; previous: Cursor }]> = [
    ['first page, more behind', null, page(['c3', 'c2'], true), { next: { startingAfter: 'c2' }, previous: null }],
    ['first page, all of it', null, page(['c3', 'c2'], false), { next: null, previous: null }],
    ['empty list', null, page([], false), { next: null, previous: null }],
    ['after Next, more behind', { startingAfter: 'c4' }, page(['c3', 'c2'], true), { next: { startingAfter: 'c2' }, previous: { endingBefore: 'c3' } }],
    ['after Next, the last page', { startingAfter: 'c4' }, page(['c3'], false), { next: null, previous: { endingBefore: 'c3' } }],
    ['after Previous, newer ones left', { endingBefore: 'c2' }, page(['c4', 'c3'], true), { next: { startingAfter: 'c3' }, previous: { endingBefore: 'c4' } }],
    ['after Previous, back at the newest', { endingBefore: 'c2' }, page(['c4', 'c3'], false), { next: { startingAfter: 'c3' }, previous: null }],
    ['after Previous, nothing newer remains', { endingBefore: 'c2' }, page([], false), { next: null, previous: null }],
  ];
  for (const [name, cursor, p, want] of cases) {
    it(name, () => {
      const s = pageState(cursor, p);
      assert.deepEqual({ next: nextCursor(s), previous: previousCursor(s) }, want);
    });
  }
});

describe('pageQuery: one cursor parameter and the page size', () => {
  const cases: Array<[Cursor, Record<string, string>]> = [
    [null, { limit: '20' }],
    [{ startingAfter: 'cus_2' }, { limit: '20', startingAfter: 'cus_2' }],
    [{ endingBefore: 'cus_9' }, { limit: '20', endingBefore: 'cus_9' }],
  ];
  for (const [cursor, want] of cases) it(JSON.stringify(cursor), () => assert.deepEqual(pageQuery(cursor, 20), want));
});
