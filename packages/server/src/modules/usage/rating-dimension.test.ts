import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_DIMENSIONS, dimensionKeyOf, dimensionReaderOf, parseDimensionKey } from './rating-dimension.js';

describe('usage.dimensionKeyOf', () => {
  const cases: Array<[string, Parameters<typeof dimensionKeyOf>[0], string]> = [
    ['no metadata: the empty key', null, ''],
    ['metadata without rating fields: the empty key', { region: 'eu', path: '/v1/x' }, ''],
    ['an execution status', { executionStatus: 'SUCCESS' }, '["SUCCESS",null,null]'],
    ['a tool and an endpoint', { tool: 'search', endpoint: 'POST /v1/chat' }, '[null,"search","POST /v1/chat"]'],
    ['all three, other fields ignored', { executionStatus: 'ERROR', tool: 't', endpoint: 'e', region: 'eu' }, '["ERROR","t","e"]'],
    ['a non-string value counts as absent', { executionStatus: 1, tool: true, endpoint: null }, ''],
  ];
  for (const [rule, metadata, key] of cases) {
    it(rule, () => {
      assert.equal(dimensionKeyOf(metadata), key);
      const parsed = parseDimensionKey(key);
      const str = (v: unknown) => (typeof v === 'string' ? v : null);
      assert.deepEqual(parsed, {
        executionStatus: str(metadata?.executionStatus),
        tool: str(metadata?.tool),
        endpoint: str(metadata?.endpoint),
      });
    });
  }
});

describe('usage.dimensionKeyOf at a metric’s dimension paths', () => {
  const reader = dimensionReaderOf({ executionStatus: 'result.status', tool: 'call.tool', endpoint: 'request.route.name' });
  const cases: Array<[string, Parameters<typeof dimensionKeyOf>[0], string]> = [
    [
      'values at nested paths',
      { result: { status: 'SUCCESS' }, call: { tool: 'search' }, request: { route: { name: 'POST /v1/chat' } } },
      '["SUCCESS","search","POST /v1/chat"]',
    ],
    ['the top-level keys of the default paths are just other keys', { executionStatus: 'ERROR', tool: 't', endpoint: 'e' }, ''],
    ['a path through a string, an array or null finds nothing', { result: 'SUCCESS', call: [{ tool: 'search' }], request: null }, ''],
    ['an object or a number at the path counts as absent', { result: { status: { code: 1 } }, call: { tool: 7 } }, ''],
    ['a key with a dot is not the path', { 'call.tool': 'search' }, ''],
    ['inherited names find nothing', { call: {} as Record<string, never> }, ''],
  ];
  for (const [rule, metadata, key] of cases) it(rule, () => assert.equal(dimensionKeyOf(metadata, reader), key));

  it('constructor and __proto__ as paths read own keys only', () => {
    const odd = dimensionReaderOf({ executionStatus: 'constructor', tool: '__proto__', endpoint: 'a.toString' });
    assert.equal(dimensionKeyOf({ a: {} }, odd), '');
    assert.equal(dimensionKeyOf(JSON.parse('{"__proto__": "t", "constructor": "s"}') as Record<string, string>, odd), '["s","t",null]');
  });

  it('the default reader is the top-level keys', () => {
    assert.equal(dimensionKeyOf({ tool: 'x' }, DEFAULT_DIMENSIONS), dimensionKeyOf({ tool: 'x' }));
  });
});
