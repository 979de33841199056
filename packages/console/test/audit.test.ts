import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { describeFilters, eventTime, filtersFrom, payloadText, searchOf, tailAnnouncement, type AuditFilters } from '../src/audit.js';

describe('filtersFrom and searchOf: the filters to and from the address bar', () => {
  const cases: Array<[string, Array<[string, string]>, AuditFilters, string]> = [
    ['none', [], {}, ''],
    [
      'empty fields mean any',
      [
        ['q', ''],
        ['type', '  '],
      ],
      {},
      '',
    ],
    [
      'unknown names are dropped',
      [
        ['limit', '5'],
        ['type', 'customer.created'],
      ],
      { type: 'customer.created' },
      '?type=customer.created',
    ],
    ['trimmed', [['actorId', ' op_1 ']], { actorId: 'op_1' }, '?actorId=op_1'],
    [
      'one address per search, whatever the order typed',
      [
        ['severity', 'WARN'],
        ['q', 'rot*'],
        ['createdTo', '2026-04-16T00:00:00Z'],
      ],
      { q: 'rot*', severity: 'WARN', createdTo: '2026-04-16T00:00:00Z' },
      '?q=rot*&severity=WARN&createdTo=2026-04-16T00%3A00%3A00Z',
    ],
    ['percent-encoded', [['q', 'a&b=c d']], { q: 'a&b=c d' }, '?q=a%26b%3Dc+d'],
  ];
  for (const [name, entries, filters, search] of cases) {
    it(name, () => {
      assert.deepEqual(filtersFrom(entries), filters);
      assert.equal(searchOf(filters), search);
      assert.deepEqual(filtersFrom(new URLSearchParams(search)), filters, 'the address reads back as the same search');
    });
  }
});

describe('describeFilters', () => {
  const cases: Array<[AuditFilters, string]> = [
    [{}, 'every event'],
    [{ type: 'api_key.*', severity: 'WARN' }, 'type api_key.*; severity ≥ WARN'],
    [{ createdTo: 'x', q: 'y' }, 'words y; until x'],
  ];
  for (const [f, want] of cases) it(want, () => assert.equal(describeFilters(f), want));
});

describe('payloadText: indented, and nothing hidden', () => {
  const cases: Array<[string, unknown, string]> = [
    ['indented JSON', { a: 1, b: ['x'] }, '{\n  "a": 1,\n  "b": [\n    "x"\n  ]\n}'],
    ['markup stays text (the page renders it as text)', { html: '<script>' }, '{\n  "html": "<script>"\n}'],
    ['C0 controls, as JSON escapes them', { s: 'a\u0007b' }, '{\n  "s": "a\\u0007b"\n}'],
    ['a bidirectional override is shown, not obeyed', { s: 'abc\u202Etxt.exe' }, '{\n  "s": "abc\\u202etxt.exe"\n}'],
    ['zero-width and BOM characters are shown', { s: 'a\u200Bb\uFEFF' }, '{\n  "s": "a\\u200bb\\ufeff"\n}'],
    ['other text is kept', { s: 'café ✓ 日本' }, '{\n  "s": "café ✓ 日本"\n}'],
    ['undefined', undefined, 'null'],
  ];
  for (const [name, payload, want] of cases) it(name, () => assert.equal(payloadText(payload), want));
});

describe('tailAnnouncement', () => {
  const cases: Array<[number, string | null, string]> = [
    [0, null, 'Live tail on: new events appear below as they happen.'],
    [1, 'customer.created', '1 new event; the latest: customer.created.'],
    [3, 'api_key.rotated', '3 new events; the latest: api_key.rotated.'],
  ];
  for (const [n, latest, want] of cases) it(want, () => assert.equal(tailAnnouncement(n, latest), want));
});

describe('eventTime: to the second, in UTC', () => {
  const cases: Array<[string, string]> = [
    ['2026-04-16T09:30:05.123Z', '2026-04-16 09:30:05 UTC'],
    ['2026-04-16T09:30:05Z', '2026-04-16 09:30:05 UTC'],
    ['not a time', 'not a time'],
  ];
  for (const [iso, want] of cases) it(iso, () => assert.equal(eventTime(iso), want));
});
