import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { confineToCustomer } from './upload-usage.js';
import type { UploadLine } from './upload-format.js';

const withExternal = { id: 'cus_1', externalId: 'acme' };
const withoutExternal = { id: 'cus_1', externalId: null };
const ev = (fields: Record<string, unknown>): UploadLine => ({ line: 7, event: { metricName: 'calls', quantity: 1, ...fields } });
const rejected = (yours: string): UploadLine => ({
  line: 7,
  rejection: { code: 'INVALID_EVENT', field: 'line 7.customerId', message: `line 7.customerId must be your own customer (${yours}), or be left out.` },
});

describe('confineToCustomer: a developer-hub upload line, for its own customer only', () => {
  const cases: Array<[string, UploadLine, typeof withExternal | typeof withoutExternal, UploadLine]> = [
    ['no customerId: the session customer is filled in', ev({}), withExternal, ev({ customerId: 'cus_1' })],
    ['the customer by id: kept', ev({ customerId: 'cus_1' }), withExternal, ev({ customerId: 'cus_1' })],
    ['the customer by external id: kept', ev({ customerId: 'acme' }), withExternal, ev({ customerId: 'acme' })],
    ['another customer: rejected on the field', ev({ customerId: 'cus_2' }), withExternal, rejected('cus_1 or acme')],
    ['no external id: only the id is named', ev({ customerId: 'acme' }), withoutExternal, rejected('cus_1')],
    ['a customerId that is not text: rejected, not passed on', ev({ customerId: 42 }), withExternal, rejected('cus_1 or acme')],
    ['null customerId: rejected', ev({ customerId: null }), withExternal, rejected('cus_1 or acme')],
    [
      'a line already rejected: unchanged',
      { line: 7, rejection: { code: 'INVALID_EVENT', field: 'line 7', message: 'x' } },
      withExternal,
      { line: 7, rejection: { code: 'INVALID_EVENT', field: 'line 7', message: 'x' } },
    ],
    ['a line that is no object: left to the usual checks', { line: 7, event: [1] }, withExternal, { line: 7, event: [1] }],
    ['a JSON null line: left to the usual checks', { line: 7, event: null }, withExternal, { line: 7, event: null }],
  ];
  for (const [name, line, customer, want] of cases) {
    it(name, () => assert.deepEqual(confineToCustomer(line, customer), want));
  }
});
