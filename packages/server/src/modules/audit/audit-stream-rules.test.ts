import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareCursors, formatCursor, parseCursor } from './audit-cursor.js';
import SQLite from 'better-sqlite3';
import {
  auditSearchText,
  ftsDocument,
  ftsMatchExpression,
  ftsScope,
  MAX_WORD_LENGTH,
  matchesText,
  monthTerm,
  parseTextQuery,
  tsDocument,
  tsQueryConditions,
  words,
  type FtsEvent,
  type FtsQuery,
} from './audit-search-text.js';
import { monthsBetween } from './audit-search.repository.js';
import { matchesAuditFilter, parseAuditFilter } from './audit-filter.js';
import type { AuditEvent } from './audit-event.js';

describe('audit.cursor', () => {
  const cases: Array<[string, { tx: number; seq: number } | null]> = [
    ['42', { tx: 0, seq: 42 }],
    ['0', { tx: 0, seq: 0 }],
    ['7301-42', { tx: 7301, seq: 42 }],
    [' 12 ', { tx: 0, seq: 12 }],
    ['evt_01abc', null],
    ['-1', null],
    ['1-2-3', null],
    ['1.5', null],
    ['', null],
    ['12345678901234567', null],
  ];
  for (const [text, expected] of cases) {
    it(`parses '${text}' as ${JSON.stringify(expected)}`, () => assert.deepEqual(parseCursor(text), expected));
  }
  it('formats what it parses, SQLite cursors as a bare number', () => {
    for (const c of ['42', '7301-42']) assert.equal(formatCursor(parseCursor(c)!), c);
  });
  it('orders by transaction, then by sequence within it', () => {
    const sorted = ['1-9', '2-1', '2-3', '10-1'].map((c) => parseCursor(c)!);
    assert.deepEqual([...sorted].sort(compareCursors), sorted);
    assert.ok(compareCursors(parseCursor('5')!, parseCursor('1-1')!) < 0, 'tx 0 (SQLite) sorts first');
  });
});

describe('audit.searchText', () => {
  const cases: Array<[string, Parameters<typeof auditSearchText>[0], string]> = [
    ['type and target type split into words', { eventType: 'api_key.rotated', targetType: 'api_key', payload: {} }, 'api key rotated api key'],
    [
      'payload values, not keys',
      { eventType: 'customer.created', targetType: null, payload: { name: 'Zanzibar Trading', externalId: 'acme-7' } },
      'customer created zanzibar trading acme 7',
    ],
    ['nested values, numbers and booleans', { eventType: 'x', targetType: null, payload: { a: { b: ['Deep', 3] }, ok: true, none: null } }, 'x deep 3 true'],
    ['emails and urls split at punctuation', { eventType: 'x', targetType: null, payload: { email: 'Alice@Example.com' } }, 'x alice example com'],
    ['letters of any script', { eventType: 'x', targetType: null, payload: { city: 'Zürich Москва' } }, 'x zürich москва'],
  ];
  for (const [name, e, expected] of cases) it(name, () => assert.equal(auditSearchText(e), expected));
  it('caps the words of a huge payload', () => {
    const text = auditSearchText({ eventType: 'x', targetType: null, payload: { list: Array.from({ length: 5000 }, (_, i) => `w${i}`) } });
    assert.equal(words(text).length, 2000);
  });
});

describe('audit.textQuery', () => {
  const cases: Array<[string, string, { fts: string; ts: string[] } | null]> = [
    ['one word', 'Rotated', { fts: '"wSrotated"', ts: ["'wSrotated'"] }],
    ['two words: both must appear', 'key rotated', { fts: '"wSkey" AND "wSrotated"', ts: ["'wSkey'", "'wSrotated'"] }],
    ['a prefix', 'rot*', { fts: '"wSrot"*', ts: ["'wSrot':*"] }],
    [
      'syntax characters are only separators',
      "a' OR b) NEAR(c & !d",
      { fts: '"wSa" AND "wSor" AND "wSb" AND "wSnear" AND "wSc" AND "wSd"', ts: ["'wSa'", "'wSor'", "'wSb'", "'wSnear'", "'wSc'", "'wSd'"] },
    ],
    ['an id', 'key_01ab', { fts: '"wSkey" AND "wS01ab"', ts: ["'wSkey'", "'wS01ab'"] }],
    ['nothing to search', '*** ---', null],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () => {
      const q = parseTextQuery(text);
      if (expected === null) return assert.equal(q, null);
      assert.ok(q);
      assert.equal(ftsMatchExpression('S', { text: q }), expected.fts);
      assert.deepEqual(tsQueryConditions('S', { text: q }), expected.ts);
    });
  }
  const matching: Array<[string, string, boolean]> = [
    ['rotated', 'api key rotated', true],
    ['rot*', 'api key rotated', true],
    ['rot', 'api key rotated', false],
    ['key created', 'api key rotated', false],
    ['KEY rotated', 'api key rotated', true],
  ];
  for (const [q, text, expected] of matching)
    it(`'${q}' ${expected ? 'matches' : 'does not match'} '${text}'`, () => assert.equal(matchesText(parseTextQuery(q)!, text), expected));
  it('scopes are one fixed-width word per workspace and environment, and the platform has its own', () => {
    const scopes = [ftsScope('ws_01ab', 'test'), ftsScope('ws_01ab', 'live'), ftsScope('ws_01ac', 'test'), ftsScope(null, null), ftsScope('ws_01ab', null)];
    for (const s of scopes) assert.match(s, /^[0-9a-f]{12}$/);
    assert.equal(new Set(scopes).size, scopes.length);
    assert.equal(ftsScope('ws_01ab', 'test'), ftsScope('ws_01ab', 'test'));
  });
  const documents: Array<[string, FtsEvent, string]> = [
    [
      'words, the words in their category, then the type and severity facets',
      { text: 'api key rotated', eventType: 'api_key.rotated', severity: 'NOTICE' },
      'wSapi wSkey wSrotated xS06apikeyapi xS06apikeykey xS06apikeyrotated tSapikeyrotated vSnotice',
    ],
    ['no words: the facets only', { text: '', eventType: 'x', severity: 'INFO' }, 'tSx vSinfo'],
    [
      'a category of more than 99 characters is cut there',
      { text: 'w', eventType: `${'a'.repeat(120)}.b`, severity: 'INFO' },
      `wSw xS99${'a'.repeat(99)}w tS${'a'.repeat(120)}b vSinfo`,
    ],
  ];
  for (const [name, e, expected] of documents) it(`ftsDocument: ${name}`, () => assert.equal(ftsDocument('S', e), expected));
  it('tsDocument: the same terms, and the month of the id, in UTC', () => {
    const e = { text: 'api key', eventType: 'api_key.rotated', severity: 'NOTICE', idMs: Date.UTC(2026, 0, 31, 23, 59, 59, 999) };
    assert.deepEqual(tsDocument('S', e), [...ftsDocument('S', e).split(' '), 'mS202601']);
  });
  const months: Array<[string, number, string]> = [
    ['the first millisecond of a month', Date.UTC(2026, 10, 1), 'mS202611'],
    ['the last millisecond of a year', Date.UTC(2025, 11, 31, 23, 59, 59, 999), 'mS202512'],
  ];
  for (const [name, ms, expected] of months) it(`monthTerm: ${name}`, () => assert.equal(monthTerm('S', ms), expected));
  const spans: Array<[string, number, number, string[]]> = [
    ['newest first across a year end', Date.UTC(2026, 1, 3), Date.UTC(2025, 11, 31), ['2026-02', '2026-01', '2025-12']],
    ['oldest first', Date.UTC(2025, 11, 31), Date.UTC(2026, 1, 3), ['2025-12', '2026-01', '2026-02']],
    ['one month', Date.UTC(2026, 4, 20), Date.UTC(2026, 4, 1), ['2026-05']],
  ];
  for (const [name, a, b, expected] of spans) {
    it(`monthsBetween: ${name}`, () =>
      assert.deepEqual(
        monthsBetween(a, b).map((ms) => new Date(ms).toISOString().slice(0, 7)),
        expected,
      ));
  }
  it(`words longer than ${MAX_WORD_LENGTH} characters are not indexed`, () => {
    assert.equal(
      auditSearchText({ eventType: 'x.y', targetType: null, payload: { blob: 'a'.repeat(MAX_WORD_LENGTH + 1), ok: 'b'.repeat(MAX_WORD_LENGTH) } }),
      `x y ${'b'.repeat(MAX_WORD_LENGTH)}`,
    );
  });
  const queries: Array<[string, FtsQuery, string]> = [
    [
      'a type: the word in its category, and the type',
      { text: { terms: [{ word: 'x', prefix: false }] }, eventType: { exact: 'api_key.rotated' } },
      '"xS06apikeyx" AND "tSapikeyrotated"',
    ],
    [
      'a type prefix: the words in the category',
      {
        text: {
          terms: [
            { word: 'x', prefix: false },
            { word: 'ro', prefix: true },
          ],
        },
        eventType: { prefix: 'api_key' },
      },
      '"xS06apikeyx" AND "xS06apikeyro"*',
    ],
    [
      'a prefix of two segments: the category of its first',
      { text: { terms: [{ word: 'x', prefix: false }] }, eventType: { prefix: 'usage.limit' } },
      '"xS05usagex"',
    ],
    ['one severity', { text: { terms: [{ word: 'x', prefix: false }] }, severities: ['CRITICAL'] }, '"wSx" AND "vScritical"'],
    [
      'severities: any of them',
      { text: { terms: [{ word: 'x', prefix: false }] }, severities: ['ERROR', 'CRITICAL'] },
      '"wSx" AND ("vSerror" OR "vScritical")',
    ],
  ];
  for (const [name, q, expected] of queries) it(`ftsMatchExpression: ${name}`, () => assert.equal(ftsMatchExpression('S', q), expected));
  it('tsQueryConditions: one condition per term, severities as one condition of alternatives', () => {
    assert.deepEqual(
      tsQueryConditions('S', {
        text: {
          terms: [
            { word: 'x', prefix: true },
            { word: 'y', prefix: false },
          ],
        },
        eventType: { prefix: 'api_key' },
        severities: ['ERROR', 'CRITICAL'],
      }),
      ["'xS06apikeyx':*", "'xS06apikeyy'", "'vSerror' | 'vScritical'"],
    );
  });
});

// The documents and queries above, run by SQLite's FTS5 itself: what each search finds.
describe('audit.fts5 (documents and queries in a real FTS5 table)', () => {
  const db = new SQLite(':memory:');
  db.exec(`create virtual table fts using fts5(body, content='', contentless_delete=1, tokenize='unicode61')`);
  const a = ftsScope('ws_a', 'test');
  const b = ftsScope('ws_b', 'test');
  const event = (eventType: string, severity: string, payload: Record<string, unknown>): FtsEvent => ({
    text: auditSearchText({ eventType, targetType: null, payload }),
    eventType,
    severity,
  });
  const docs: Array<[rowid: number, scope: string, e: FtsEvent]> = [
    [1, a, event('api_key.rotated', 'NOTICE', { name: 'Nightly job' })],
    [2, a, event('api_key.revoked', 'WARN', { name: 'nightly' })],
    [3, a, event('customer.deleted', 'NOTICE', { reason: 'nightly cleanup' })],
    [4, b, event('api_key.rotated', 'NOTICE', { name: 'nightly' })],
    [5, a, event('apikey.rotated', 'INFO', { name: 'nightly' })],
    [6, a, event('apik.created', 'INFO', { name: 'eyrotated' })],
  ];
  const insert = db.prepare('insert into fts (rowid, body) values (?, ?)');
  for (const [rowid, scope, e] of docs) insert.run(rowid, ftsDocument(scope, e));
  const text = (q: string) => parseTextQuery(q)!;
  const cases: Array<[string, string, FtsQuery, number[]]> = [
    ["a word finds only its own tenant's events", a, { text: text('nightly') }, [1, 2, 3, 5]],
    ['the other tenant', b, { text: text('nightly') }, [4]],
    ['a word prefix', a, { text: text('night*') }, [1, 2, 3, 5]],
    ['type words are words too', a, { text: text('revoked') }, [2]],
    // 5 (apikey.rotated) runs together like api_key.rotated: the facet finds it, and the
    // repository's query, which tests the columns too, leaves it out.
    ['an exact type', a, { text: text('nightly'), eventType: { exact: 'api_key.rotated' } }, [1, 5]],
    ['a type prefix', a, { text: text('nightly'), eventType: { prefix: 'api_key' } }, [1, 2, 5]],
    ['another type prefix', a, { text: text('nightly'), eventType: { prefix: 'customer' } }, [3]],
    ['severities', a, { text: text('nightly'), severities: ['WARN', 'ERROR', 'CRITICAL'] }, [2]],
    ['type and severity', a, { text: text('nightly'), eventType: { prefix: 'api_key' }, severities: ['NOTICE', 'WARN'] }, [1, 2]],
    ['a word spelled like a facet term is only a word', a, { text: text(`t${a}apikeyrotated`) }, []],
    ['a word spelled like a joined term is only a word', a, { text: text(`x${a}06apikeynightly`) }, []],
    ['a word outside the type prefix is not found', a, { text: text('cleanup'), eventType: { prefix: 'api_key' } }, []],
    ['the length of the category keeps apik + eyrotated apart from apikey + rotated', a, { text: text('rotated'), eventType: { prefix: 'api_key' } }, [1, 5]],
    ['and the other way round', a, { text: text('eyrotated'), eventType: { prefix: 'apik' } }, [6]],
    ['a word prefix within a type prefix', a, { text: text('night*'), eventType: { prefix: 'customer' } }, [3]],
  ];
  for (const [name, scope, q, expected] of cases) {
    it(name, () => {
      const rows = db.prepare('select rowid from fts where fts match ? order by rowid').all(ftsMatchExpression(scope, q)) as Array<{ rowid: number }>;
      assert.deepEqual(
        rows.map((r) => r.rowid),
        expected,
      );
    });
  }
});

describe('audit.matchesAuditFilter (the live stream applies the search filters in memory)', () => {
  const event: AuditEvent = {
    eventId: 'evt_1',
    tenantId: 'ws_1',
    environment: 'test',
    eventType: 'api_key.rotated',
    source: 'api',
    severity: 'WARN',
    actorType: 'WORKSPACE_KEY',
    actorId: 'key_a',
    targetType: 'api_key',
    targetId: 'key_b',
    payload: { reason: 'Scheduled rotation' },
    correlationId: 'corr-1',
    createdAt: Date.UTC(2026, 10, 23, 12, 0, 0),
  };
  const cases: Array<[Record<string, string>, boolean]> = [
    [{}, true],
    [{ type: 'api_key.rotated' }, true],
    [{ type: 'api_key.*' }, true],
    [{ type: 'api.*' }, false],
    [{ type: 'api_key.revoked' }, false],
    [{ severity: 'INFO' }, true],
    [{ severity: 'WARN' }, true],
    [{ severity: 'ERROR' }, false],
    [{ actorType: 'WORKSPACE_KEY', actorId: 'key_a' }, true],
    [{ actorId: 'key_b' }, false],
    [{ targetType: 'api_key', targetId: 'key_b' }, true],
    [{ targetId: 'key_a' }, false],
    [{ correlationId: 'corr-1' }, true],
    [{ correlationId: 'corr-2' }, false],
    [{ createdFrom: '2026-11-23T12:00:00Z' }, true],
    [{ createdTo: '2026-11-23T12:00:00Z' }, false],
    [{ createdFrom: '2026-11-23T11:00:00Z', createdTo: '2026-11-23T12:00:01Z' }, true],
    [{ q: 'scheduled' }, true],
    [{ q: 'sched* rotated' }, true],
    [{ q: 'key_a' }, false],
    [{ q: 'reason' }, false],
    [{ type: 'api_key.*', severity: 'WARN', q: 'rotation' }, true],
    [{ type: 'api_key.*', severity: 'CRITICAL', q: 'rotation' }, false],
  ];
  for (const [query, expected] of cases) {
    it(`${JSON.stringify(query)} ${expected ? 'matches' : 'does not match'}`, () => {
      const f = parseAuditFilter(query);
      assert.ok(f.ok);
      if (f.ok) assert.equal(matchesAuditFilter(f.value, event), expected);
    });
  }
  it('refuses a q without a word, naming the field', () => {
    const r = parseAuditFilter({ q: '***' });
    assert.equal(r.ok, false);
    if (!r.ok)
      assert.deepEqual(
        r.errors.map((e) => e.field),
        ['query.q'],
      );
  });
});
