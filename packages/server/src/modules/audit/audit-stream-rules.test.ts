import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareCursors, formatCursor, parseCursor } from './audit-cursor.js';
import { auditSearchText, ftsMatchExpression, ftsTenantToken, matchesText, parseTextQuery, tsQueryExpression, words } from './audit-search-text.js';
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
    ['payload values, not keys', { eventType: 'customer.created', targetType: null, payload: { name: 'Zanzibar Trading', externalId: 'acme-7' } }, 'customer created zanzibar trading acme 7'],
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
  const cases: Array<[string, string, { fts: string; ts: string } | null]> = [
    ['one word', 'Rotated', { fts: '"rotated"', ts: 'rotated' }],
    ['two words: both must appear', 'key rotated', { fts: '"key" AND "rotated"', ts: 'key & rotated' }],
    ['a prefix', 'rot*', { fts: '"rot"*', ts: 'rot:*' }],
    ['syntax characters are only separators', 'a" OR b) NEAR(c', { fts: '"a" AND "or" AND "b" AND "near" AND "c"', ts: 'a & or & b & near & c' }],
    ['an id', 'key_01ab', { fts: '"key" AND "01ab"', ts: 'key & 01ab' }],
    ['nothing to search', '*** ---', null],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () => {
      const q = parseTextQuery(text);
      if (expected === null) return assert.equal(q, null);
      assert.ok(q);
      assert.equal(ftsMatchExpression('tws1test', q), `tenant : "tws1test" AND body : (${expected.fts})`);
      assert.equal(tsQueryExpression(q), expected.ts);
    });
  }
  const matching: Array<[string, string, boolean]> = [
    ['rotated', 'api key rotated', true],
    ['rot*', 'api key rotated', true],
    ['rot', 'api key rotated', false],
    ['key created', 'api key rotated', false],
    ['KEY rotated', 'api key rotated', true],
  ];
  for (const [q, text, expected] of matching) it(`'${q}' ${expected ? 'matches' : 'does not match'} '${text}'`, () => assert.equal(matchesText(parseTextQuery(q)!, text), expected));
  it('tenant tokens are one word per workspace and environment, and never the platform word', () => {
    assert.equal(ftsTenantToken('ws_01ab', 'test'), 'tws01abtest');
    assert.notEqual(ftsTenantToken('ws_01ab', 'test'), ftsTenantToken('ws_01ab', 'live'));
    assert.equal(ftsTenantToken(null, null), 'platform');
  });
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
    if (!r.ok) assert.deepEqual(r.errors.map((e) => e.field), ['query.q']);
  });
});
