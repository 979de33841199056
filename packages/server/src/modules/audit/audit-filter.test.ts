import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseAuditFilter, prefixRange } from './audit-filter.js';

describe('audit.parseAuditFilter', () => {
  const ok: Array<[string, Record<string, string>, unknown]> = [
    ['nothing: no filter', {}, {}],
    ['an exact type', { type: 'api_key.rotated' }, { eventType: { exact: 'api_key.rotated' } }],
    ['a type prefix', { type: 'api_key.*' }, { eventType: { prefix: 'api_key' } }],
    ['a nested prefix', { type: 'webhook_source.secret.*' }, { eventType: { prefix: 'webhook_source.secret' } }],
    ['WARN and above', { severity: 'WARN' }, { severities: ['WARN', 'ERROR', 'CRITICAL'] }],
    ['severity in lower case', { severity: 'critical' }, { severities: ['CRITICAL'] }],
    ['DEBUG is everything', { severity: 'DEBUG' }, { severities: ['DEBUG', 'INFO', 'NOTICE', 'WARN', 'ERROR', 'CRITICAL'] }],
    [
      'actor and target',
      { actorType: 'WORKSPACE_KEY', actorId: 'key_1', targetType: 'api_key', targetId: 'key_2' },
      { actorType: 'WORKSPACE_KEY', actorId: 'key_1', targetType: 'api_key', targetId: 'key_2' },
    ],
    ['a correlation id', { correlationId: 'corr-1' }, { correlationId: 'corr-1' }],
    [
      'a time range to the second',
      { createdFrom: '2026-11-23T12:00:00Z', createdTo: '2026-11-23T12:00:01Z' },
      { createdFrom: Date.UTC(2026, 10, 23, 12), createdTo: Date.UTC(2026, 10, 23, 12, 0, 1) },
    ],
    ['an offset is converted', { createdFrom: '2026-11-23T13:00:00+01:00' }, { createdFrom: Date.UTC(2026, 10, 23, 12) }],
  ];
  for (const [name, query, expected] of ok) {
    it(name, () => {
      const r = parseAuditFilter(query);
      assert.equal(r.ok, true, JSON.stringify(r));
      if (r.ok) assert.deepEqual(r.value, expected);
    });
  }
  const bad: Array<[string, Record<string, string>, string[]]> = [
    ['a type with a wildcard inside', { type: 'api_*.rotated' }, ['query.type']],
    ['a bare star', { type: '*' }, ['query.type']],
    ['an upper-case type', { type: 'API_KEY.rotated' }, ['query.type']],
    ['an unknown severity', { severity: 'LOUD' }, ['query.severity']],
    ['an unknown actor type', { actorType: 'ROBOT' }, ['query.actorType']],
    ['an empty actor id', { actorId: '' }, ['query.actorId']],
    ['a time without a zone', { createdFrom: '2026-11-23T12:00:00' }, ['query.createdFrom']],
    ['fractions of a second', { createdTo: '2026-11-23T12:00:00.500Z' }, ['query.createdTo']],
    ['an empty range', { createdFrom: '2026-11-23T12:00:00Z', createdTo: '2026-11-23T12:00:00Z' }, ['query.createdTo']],
    ['every problem at once', { type: 'x y', severity: 'no', actorType: 'no' }, ['query.type', 'query.severity', 'query.actorType']],
  ];
  for (const [name, query, fields] of bad) {
    it(`refuses ${name}, naming the field`, () => {
      const r = parseAuditFilter(query);
      assert.equal(r.ok, false);
      if (!r.ok)
        assert.deepEqual(
          r.errors.map((e) => e.field),
          fields,
        );
    });
  }
});

describe('audit.prefixRange', () => {
  it('covers exactly the types under the prefix', () => {
    const [lo, hi] = prefixRange('api_key');
    const inside = (t: string) => t >= lo && t < hi;
    assert.deepEqual(['api_key.rotated', 'api_key.created', 'api_key.x.y', 'api_key', 'api_keys.created', 'api_key_other.x', 'apj.x'].map(inside), [
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});
