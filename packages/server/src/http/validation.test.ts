import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';
import type { Client } from '../../test/helpers/seed.js';
import { MAX_REPORTED_ERRORS } from '../lib/errors.js';
import { boundsFirst, describeValidationErrors } from './validation.js';

let t: TestApp;
let api: Client;

before(async () => {
  t = await createTestApp();
  const ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
});
after(() => t.close());

describe('validation of huge input', () => {
  it('400 names body.scopes for a 1 MB scopes array of distinct values, in an answer under 1 KB', async () => {
    // Once: allErrors checked all 100,000 items and compared every pair for uniqueItems (50 s, a
    // 144 MB answer, /health blocked for every tenant).
    const scopes = Array.from({ length: 100_000 }, (_, i) => `s${i}`);
    const res = await api.post('/api/v1/api-keys', { kind: 'WORKSPACE', name: 'x', scopes });
    assert.equal(res.status, 400);
    assert.ok(res.raw.rawPayload.length < 1024, `${res.raw.rawPayload.length} bytes`);
    assert.deepEqual(res.body.errors, [{ code: 'VALIDATION_FAILED', field: 'body.scopes', message: 'body.scopes must have at most 6 items.' }]);
  });

  it(`400 lists the first ${MAX_REPORTED_ERRORS} problems and says how many more there are`, async () => {
    const unknown = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`extra${i}`, 1]));
    const res = await api.post('/api/v1/customers', { name: 'x', ...unknown });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors.length, MAX_REPORTED_ERRORS + 1);
    assert.deepEqual(res.body.errors[0], { code: 'VALIDATION_FAILED', field: 'body.extra0', message: 'body.extra0 is not a known field.' });
    assert.deepEqual(res.body.errors[MAX_REPORTED_ERRORS], {
      code: 'VALIDATION_FAILED',
      field: 'body',
      message: `10 more problems were found in body; fix these ${MAX_REPORTED_ERRORS} and send the request again to see them.`,
    });
  });
});

describe('problems found by the operations themselves', () => {
  it(`400 for a webhook source with 100 empty event types lists ${MAX_REPORTED_ERRORS} and counts the rest`, async () => {
    const res = await api.post('/api/v1/webhook-sources', { provider: 'custom', displayName: 'x', eventFilter: Array.from({ length: 100 }, () => '') });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors.length, MAX_REPORTED_ERRORS + 1);
    assert.equal(res.body.errors[0].field, 'body.eventFilter.0');
    assert.match(res.body.errors[MAX_REPORTED_ERRORS].message, /^80 more problems were found in body;/);
  });

  it('400 for a bad field mapping names the field once in its message', async () => {
    const res = await api.post('/api/v1/webhook-sources', { provider: 'custom', displayName: 'x', fieldMappings: { quantity: { head: 'x' } } });
    assert.equal(res.status, 400);
    assert.deepEqual(
      res.body.errors.map((e: { message: string }) => e.message.split(' ')[1]),
      ['is', 'is'],
      JSON.stringify(res.body.errors),
    );
  });

  it(`400 for a rate plan with 50 units of unknown metrics lists ${MAX_REPORTED_ERRORS} and counts the rest`, async () => {
    const metrics = Array.from({ length: 50 }, (_, i) => ({ metricName: `nope${i}`, pricingModel: 'PER_UNIT', rate: '1' }));
    const res = await api.post('/api/v1/rate-plans', { name: 'x', currency: 'USD', billingPeriod: 'MONTHLY', metrics });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors.length, MAX_REPORTED_ERRORS + 1);
    assert.match(res.body.errors[MAX_REPORTED_ERRORS].message, /^30 more problems were found in body;/);
  });
});

describe('maps of your own keys', () => {
  it('400 names body.metadata for a metadata key over 40 characters (documented, once not checked)', async () => {
    const res = await api.post('/api/v1/customers', { name: 'x', metadata: { ['k'.repeat(41)]: 'v' } });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.errors, [
      { code: 'VALIDATION_FAILED', field: 'body.metadata', message: `body.metadata has a key of 41 characters ('${'k'.repeat(41)}'); a key has at most 40.` },
    ]);
  });
});

describe('describeValidationErrors', () => {
  it('keeps at most the cap, plus one line counting the rest', () => {
    const errors = Array.from({ length: 50 }, (_, i) => ({
      keyword: 'type',
      instancePath: `/items/${i}`,
      schemaPath: '#/properties/items/items/type',
      params: { type: 'string' },
    }));
    const out = describeValidationErrors('body', errors);
    assert.equal(out.length, MAX_REPORTED_ERRORS + 1);
    assert.equal(out[MAX_REPORTED_ERRORS - 1]!.field, `body.items.${MAX_REPORTED_ERRORS - 1}`);
    assert.match(out[MAX_REPORTED_ERRORS]!.message, /^30 more problems were found in body/);
  });
});

describe('boundsFirst', () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const check = (schema: object, data: unknown) => {
    const validate = ajv.compile(boundsFirst(schema));
    validate(data);
    return (validate.errors ?? []).filter((e) => e.keyword !== 'if').map((e) => `${e.instancePath} ${e.keyword}`);
  };
  const cases: Array<[string, object, unknown, string[]]> = [
    ['an array over its maxItems reports that alone', { type: 'array', maxItems: 2, uniqueItems: true, items: { type: 'string' } }, [1, 1, 1], [' maxItems']],
    [
      'an array within it has its items checked',
      { type: 'array', maxItems: 5, uniqueItems: true, items: { type: 'string' } },
      ['a', 1, 'a'],
      ['/1 type', ' uniqueItems'],
    ],
    ['a string over its maxLength skips its pattern', { type: 'string', maxLength: 3, pattern: '^a+$' }, 'bbbb', [' maxLength']],
    ['a string within it has its pattern checked', { type: 'string', maxLength: 3, pattern: '^a+$' }, 'bb', [' pattern']],
    [
      'an object over maxProperties skips its entries',
      { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } },
      { a: 1, b: 2 },
      [' maxProperties'],
    ],
    [
      'nested schemas are guarded too',
      { type: 'object', properties: { list: { type: 'array', maxItems: 1, items: { type: 'integer' } } } },
      { list: ['a', 'b'] },
      ['/list maxItems'],
    ],
    ['a valid value passes', { type: 'array', maxItems: 2, items: { type: 'string', maxLength: 2, pattern: '^a' } }, ['a', 'aa'], []],
  ];
  for (const [rule, schema, data, expected] of cases) it(rule, () => assert.deepEqual(check(schema, data), expected));

  it('leaves the schema it is given unchanged (the OpenAPI document is built from it)', () => {
    const schema = { type: 'array', maxItems: 2, items: { type: 'string' } };
    boundsFirst(schema);
    assert.deepEqual(schema, { type: 'array', maxItems: 2, items: { type: 'string' } });
  });
});
