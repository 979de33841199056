import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dimensionKeyOf, parseDimensionKey } from './rating-dimension.js';

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
