import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_PATH_LENGTH,
  JsonPathSyntaxError,
  checkFieldMappings,
  checkMappingSource,
  compileFieldMappings,
  compileSource,
  evaluateJsonPath,
  extractEvent,
  parseWebhookTimestamp,
  selectValue,
  type ExtractedEvent,
  type ExtractionFailure,
  type FieldMappings,
  type MappingError,
  type MappingSource,
} from './field-mapping.js';

const RECEIVED = Date.UTC(2026, 0, 15, 12, 30); // the default occurredAt
const NOON = Date.UTC(2026, 0, 15, 12); // 2026-01-15T12:00:00Z
type Headers = Record<string, string | string[] | undefined>;

/** Every mapping a test extracts with goes through the check first, as the API does. */
function compiled(raw: unknown) {
  const checked = checkFieldMappings(raw, 'fieldMappings');
  assert.ok(checked.ok, `test mapping should be valid: ${JSON.stringify(checked.ok ? null : checked.errors)}`);
  return compileFieldMappings(checked.value);
}

function extract(raw: unknown, document: unknown, headers: Headers = {}) {
  return extractEvent(compiled(raw), document, headers, RECEIVED);
}

function assertErrors(errors: MappingError[], expected: Array<[string, RegExp]>) {
  assert.deepEqual(
    errors.map((e) => e.field),
    expected.map(([f]) => f),
    `fields: ${JSON.stringify(errors)}`,
  );
  for (const [i, [field, pattern]] of expected.entries()) {
    const e = errors[i]!;
    assert.ok(e.message.startsWith(field), `message should name ${field}: ${e.message}`);
    assert.match(e.message, pattern);
  }
}

const base = { quantity: '$.amount', tenant_id: '$.customer', event_id: '$.id' };

describe('checkFieldMappings: valid configurations', () => {
  const longPath = `$.${'a'.repeat(MAX_PATH_LENGTH - 2)}`;
  const name40 = 'p'.repeat(40);
  const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, `$.p${i}`]));
  const cases: Array<[string, unknown, FieldMappings]> = [
    ['three required JSONPath queries', base, base],
    ['constant quantity', { ...base, quantity: 1 }, { ...base, quantity: 1 }],
    ['constant quantity 0 and fractional', { ...base, quantity: 0.5 }, { ...base, quantity: 0.5 }],
    [
      'header sources',
      { ...base, event_id: { header: 'X-GitHub-Delivery' }, tenant_id: { header: 'x-tenant' } },
      { ...base, event_id: { header: 'X-GitHub-Delivery' }, tenant_id: { header: 'x-tenant' } },
    ],
    [
      'header name with every token punctuation',
      { ...base, event_id: { header: "!#$%&'*+-.^_`|~Az09" } },
      { ...base, event_id: { header: "!#$%&'*+-.^_`|~Az09" } },
    ],
    ['header name of 100 characters', { ...base, event_id: { header: 'h'.repeat(100) } }, { ...base, event_id: { header: 'h'.repeat(100) } }],
    [
      'timestamp and properties',
      { ...base, timestamp: '$.created', properties: { plan: '$.plan', ip: { header: 'X-Forwarded-For' } } },
      { ...base, timestamp: '$.created', properties: { plan: '$.plan', ip: { header: 'X-Forwarded-For' } } },
    ],
    ['empty properties', { ...base, properties: {} }, { ...base, properties: {} }],
    [`path of exactly ${MAX_PATH_LENGTH} characters`, { ...base, quantity: longPath }, { ...base, quantity: longPath }],
    ['property name of 40 characters', { ...base, properties: { [name40]: '$.x' } }, { ...base, properties: { [name40]: '$.x' } }],
    ['20 properties', { ...base, properties: twenty }, { ...base, properties: twenty }],
    [
      'filters, wildcards, slices, functions and descendants',
      { ...base, quantity: "$.items[?@.type == 'seat' && length(@.name) > 0].qty", tenant_id: '$..customer', event_id: '$.ids[-1:]' },
      { ...base, quantity: "$.items[?@.type == 'seat' && length(@.name) > 0].qty", tenant_id: '$..customer', event_id: '$.ids[-1:]' },
    ],
    [
      'bracketed names with unicode and escapes',
      { ...base, tenant_id: "$['client id']['\\u00e9t\\u00e9']" },
      { ...base, tenant_id: "$['client id']['\\u00e9t\\u00e9']" },
    ],
  ];
  for (const [name, raw, value] of cases) {
    it(name, () => {
      assert.deepEqual(checkFieldMappings(raw, 'fieldMappings'), { ok: true, value });
    });
  }

  it('a property named __proto__ stays an own data property', () => {
    const r = checkFieldMappings(JSON.parse('{"quantity":1,"tenant_id":"$.t","event_id":"$.i","properties":{"__proto__":"$.p"}}'), 'fieldMappings');
    assert.ok(r.ok);
    assert.ok(Object.hasOwn(r.value.properties!, '__proto__'));
    assert.equal(Object.getPrototypeOf(r.value.properties), Object.prototype);
  });

  it('without a prefix, fields are named bare', () => {
    const r = checkFieldMappings({}, '');
    assert.ok(!r.ok);
    assert.deepEqual(
      r.errors.map((e) => e.field),
      ['quantity', 'tenant_id', 'event_id'],
    );
  });
});

describe('checkFieldMappings: refused configurations name every problem', () => {
  const cases: Array<[string, unknown, Array<[string, RegExp]>]> = [
    ['null', null, [['fieldMappings', /must be an object with quantity, tenant_id and event_id.*got null/]]],
    ['an array', [base], [['fieldMappings', /must be an object.*got an array/]]],
    ['a string', '$.amount', [['fieldMappings', /must be an object.*got a string/]]],
    ['a number', 1, [['fieldMappings', /must be an object.*got a number/]]],
    [
      'missing every required key',
      {},
      [
        ['fieldMappings.quantity', /is required: a JSONPath query .*, \{"header": "<name>"\} or a constant number/],
        ['fieldMappings.tenant_id', /is required: a JSONPath query \(a string starting with \$\) or \{"header": "<name>"\}\.$/],
        ['fieldMappings.event_id', /is required/],
      ],
    ],
    ['missing event_id', { quantity: 1, tenant_id: '$.t' }, [['fieldMappings.event_id', /is required/]]],
    [
      'unknown keys',
      { ...base, amount: '$.x', TenantId: '$.y' },
      [
        ['fieldMappings.amount', /is not a known field; expected quantity, tenant_id, event_id, timestamp or properties/],
        ['fieldMappings.TenantId', /is not a known field/],
      ],
    ],
    ['unknown key of absurd length is cut short', { ...base, ['k'.repeat(500)]: 1 }, [[`fieldMappings.${'k'.repeat(40)}…`, /is not a known field/]]],
    [
      `path longer than ${MAX_PATH_LENGTH} characters`,
      { ...base, quantity: `$.${'a'.repeat(MAX_PATH_LENGTH - 1)}` },
      [['fieldMappings.quantity', new RegExp(`is ${MAX_PATH_LENGTH + 1} characters long; a JSONPath query may have at most ${MAX_PATH_LENGTH}`)]],
    ],
    [
      'unclosed bracket, with json-p3 position',
      { ...base, tenant_id: '$.a[' },
      [['fieldMappings.tenant_id', /is not a valid RFC 9535 JSONPath query: unclosed bracketed selection \('\$\.a\[':4\)/]],
    ],
    [
      'no leading $',
      { ...base, tenant_id: 'data.object.customer' },
      [['fieldMappings.tenant_id', /must be a JSONPath query starting with \$ .*got "data\.object\.customer"/]],
    ],
    ['leading whitespace', { ...base, tenant_id: ' $.a' }, [['fieldMappings.tenant_id', /must be a JSONPath query starting with \$/]]],
    ['empty string', { ...base, event_id: '' }, [['fieldMappings.event_id', /must be a JSONPath query starting with \$/]]],
    ['bald descendant segment', { ...base, event_id: '$..' }, [['fieldMappings.event_id', /is not a valid RFC 9535 JSONPath query: bald descendant segment/]]],
    ['trailing garbage', { ...base, event_id: '$.a b' }, [['fieldMappings.event_id', /is not a valid RFC 9535 JSONPath query: .*found 'b'/]]],
    [
      'function unknown to RFC 9535',
      { ...base, event_id: '$[?has(@.a)]' },
      [['fieldMappings.event_id', /is not a valid RFC 9535 JSONPath query: no such function 'has'/]],
    ],
    [
      'ill-typed function call',
      { ...base, event_id: '$[?length(@.a)]' },
      [['fieldMappings.event_id', /is not a valid RFC 9535 JSONPath query: .*must be compared/]],
    ],
    ['non-standard keys selector (strict)', { ...base, event_id: '$.~' }, [['fieldMappings.event_id', /is not a valid RFC 9535 JSONPath query/]]],
    ['index out of the I-JSON range', { ...base, event_id: '$[9007199254740992]' }, [['fieldMappings.event_id', /index out of range/]]],
    [
      'script expression (jsonpath-plus style)',
      { ...base, event_id: '$[(@.length-1)]' },
      [['fieldMappings.event_id', /is not a valid RFC 9535 JSONPath query/]],
    ],
    [
      'empty header name',
      { ...base, event_id: { header: '' } },
      [['fieldMappings.event_id.header', /must be a header name of 1 to 100 token characters.*got ""/]],
    ],
    ['header name with a space', { ...base, event_id: { header: 'X Delivery' } }, [['fieldMappings.event_id.header', /must be a header name/]]],
    ['header name with a colon', { ...base, event_id: { header: 'X-Delivery:' } }, [['fieldMappings.event_id.header', /must be a header name/]]],
    ['header name with non-ASCII', { ...base, event_id: { header: 'X-Ünïcode' } }, [['fieldMappings.event_id.header', /must be a header name/]]],
    ['header name of 101 characters', { ...base, event_id: { header: 'h'.repeat(101) } }, [['fieldMappings.event_id.header', /must be a header name/]]],
    ['header name not a string', { ...base, event_id: { header: 5 } }, [['fieldMappings.event_id.header', /must be a header name.*got a number/]]],
    ['header object without header', { ...base, event_id: {} }, [['fieldMappings.event_id.header', /is required: the name of the request header/]]],
    [
      'header object with an extra key',
      { ...base, event_id: { header: 'X-A', default: 'x' } },
      [['fieldMappings.event_id.default', /is not a known field; a header source is \{"header": "<name>"\}/]],
    ],
    [
      'header key in the wrong case',
      { ...base, event_id: { Header: 'X-A' } },
      [
        ['fieldMappings.event_id.Header', /is not a known field/],
        ['fieldMappings.event_id.header', /is required/],
      ],
    ],
    ['constant tenant_id', { ...base, tenant_id: 42 }, [['fieldMappings.tenant_id', /cannot be a constant number \(only quantity can\)/]]],
    ['constant event_id', { ...base, event_id: 1 }, [['fieldMappings.event_id', /cannot be a constant number/]]],
    ['constant timestamp', { ...base, timestamp: 1736942400 }, [['fieldMappings.timestamp', /cannot be a constant number/]]],
    ['constant property', { ...base, properties: { n: 1 } }, [['fieldMappings.properties.n', /cannot be a constant number/]]],
    ['negative constant quantity', { ...base, quantity: -1 }, [['fieldMappings.quantity', /must be a constant from 0 to 1e15, got -1/]]],
    ['constant quantity above 1e15', { ...base, quantity: 1e16 }, [['fieldMappings.quantity', /must be a constant from 0 to 1e15/]]],
    ['NaN constant quantity', { ...base, quantity: Number.NaN }, [['fieldMappings.quantity', /must be a constant from 0 to 1e15, got NaN/]]],
    ['boolean source', { ...base, quantity: true }, [['fieldMappings.quantity', /must be a JSONPath query .* or a constant number, got a boolean/]]],
    ['array source', { ...base, tenant_id: ['$.a'] }, [['fieldMappings.tenant_id', /must be a JSONPath query .*\{"header": "<name>"\}, got an array/]]],
    ['null timestamp', { ...base, timestamp: null }, [['fieldMappings.timestamp', /got null/]]],
    ['properties an array', { ...base, properties: ['$.a'] }, [['fieldMappings.properties', /must be an object of property names to sources, got an array/]]],
    ['properties null', { ...base, properties: null }, [['fieldMappings.properties', /must be an object.*got null/]]],
    [
      '21 properties',
      { ...base, properties: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`p${i}`, '$.x'])) },
      [['fieldMappings.properties', /has 21 properties; at most 20 are allowed/]],
    ],
    [
      'empty property name',
      { ...base, properties: { '': '$.x' } },
      [['fieldMappings.properties.""', /has a name of 0 characters; a property name must have 1 to 40/]],
    ],
    [
      'property name of 41 characters',
      { ...base, properties: { ['p'.repeat(41)]: '$.x' } },
      [[`fieldMappings.properties.${'p'.repeat(40)}…`, /has a name of 41 characters/]],
    ],
    ['property with a bad query', { ...base, properties: { plan: '$.plan[' } }, [['fieldMappings.properties.plan', /is not a valid RFC 9535 JSONPath query/]]],
    [
      'several problems at once',
      { quantity: 'amount', tenant_id: { header: 'bad name' }, timestamp: 5, properties: { '': 1, ok: '$.ok' }, extra: true },
      [
        ['fieldMappings.extra', /is not a known field/],
        ['fieldMappings.quantity', /starting with \$/],
        ['fieldMappings.tenant_id.header', /must be a header name/],
        ['fieldMappings.event_id', /is required/],
        ['fieldMappings.timestamp', /cannot be a constant number/],
        ['fieldMappings.properties.""', /has a name of 0 characters/],
        ['fieldMappings.properties.""', /cannot be a constant number/],
      ],
    ],
  ];
  for (const [name, raw, expected] of cases) {
    it(name, () => {
      const r = checkFieldMappings(raw, 'fieldMappings');
      assert.ok(!r.ok, 'should be refused');
      assertErrors(r.errors, expected);
    });
  }
});

describe('checkMappingSource (also the event type location)', () => {
  const cases: Array<[string, unknown, boolean, MappingSource | RegExp]> = [
    ['a query', '$.type', false, '$.type'],
    ['a header', { header: 'X-GitHub-Event' }, false, { header: 'X-GitHub-Event' }],
    ['a number where numbers are refused', 1, false, /eventTypeFrom cannot be a constant number/],
    ['a number where allowed', 3, true, 3],
    ['undefined', undefined, false, /eventTypeFrom must be a JSONPath query .*got nothing/],
    ['a syntax error', "$['type'", false, /eventTypeFrom is not a valid RFC 9535 JSONPath query: /],
  ];
  for (const [name, raw, allowNumber, expected] of cases) {
    it(name, () => {
      const r = checkMappingSource(raw, 'eventTypeFrom', allowNumber);
      if (expected instanceof RegExp) {
        assert.ok(!r.ok);
        assert.equal(r.errors.length, 1);
        assert.equal(r.errors[0]!.field, 'eventTypeFrom');
        assert.match(r.errors[0]!.message, expected);
      } else {
        assert.deepEqual(r, { ok: true, value: expected });
      }
    });
  }
});

describe('selectValue', () => {
  const doc = { a: 1, list: [1, 2, 3], n: null };
  const cases: Array<[string, MappingSource, Headers, ReturnType<typeof selectValue>]> = [
    ['one value', '$.a', {}, { kind: 'one', value: 1 }],
    ['null is one value', '$.n', {}, { kind: 'one', value: null }],
    ['nothing', '$.missing', {}, { kind: 'none' }],
    ['several', '$.list[*]', {}, { kind: 'many', count: 3 }],
    ['a filter selecting one', '$.list[?@ > 2]', {}, { kind: 'one', value: 3 }],
    ['the whole document', '$', {}, { kind: 'one', value: doc }],
    ['a constant', 7, {}, { kind: 'one', value: 7 }],
    ['a header, lowercased by node', { header: 'X-Id' }, { 'x-id': 'abc' }, { kind: 'one', value: 'abc' }],
    ['a header, as sent', { header: 'x-id' }, { 'X-Id': 'abc' }, { kind: 'one', value: 'abc' }],
    ['an absent header', { header: 'X-Id' }, { 'x-other': 'abc' }, { kind: 'none' }],
    ['an undefined header', { header: 'X-Id' }, { 'x-id': undefined }, { kind: 'none' }],
    ['a header sent twice', { header: 'X-Id' }, { 'x-id': ['a', 'b'] }, { kind: 'many', count: 2 }],
    ['a header array of one', { header: 'X-Id' }, { 'x-id': ['a'] }, { kind: 'one', value: 'a' }],
    ['a header under two spellings', { header: 'X-Id' }, { 'x-id': 'a', 'X-ID': 'b' }, { kind: 'many', count: 2 }],
  ];
  for (const [name, source, headers, expected] of cases) {
    it(name, () => {
      assert.deepEqual(selectValue(compileSource(source), doc, headers), expected);
    });
  }

  it('does not reach inherited properties', () => {
    assert.deepEqual(selectValue(compileSource('$.constructor'), {}, {}), { kind: 'none' });
    assert.deepEqual(selectValue(compileSource('$.length'), [1, 2], {}), { kind: 'none' });
  });
});

describe('evaluateJsonPath', () => {
  it('returns the selected values in document order', () => {
    assert.deepEqual(evaluateJsonPath('$.a[*].b', { a: [{ b: 1 }, { b: 2 }, { c: 3 }] }), [1, 2]);
  });
  it('refuses an invalid query with our error, naming the query and json-p3 message', () => {
    assert.throws(
      () => evaluateJsonPath('$.a[', {}),
      (err: unknown) => err instanceof JsonPathSyntaxError && err.expression === '$.a[' && /unclosed bracketed selection/.test(err.message),
    );
  });
  it(`refuses a query longer than ${MAX_PATH_LENGTH} characters`, () => {
    assert.throws(() => evaluateJsonPath(`$.${'a'.repeat(MAX_PATH_LENGTH)}`, {}), JsonPathSyntaxError);
    assert.deepEqual(evaluateJsonPath(`$.${'a'.repeat(MAX_PATH_LENGTH - 2)}`, {}), []);
  });
});

type Expected = ExtractedEvent | { code: ExtractionFailure['code']; field: string; message: string | RegExp };

function assertExtracted(got: ExtractedEvent | ExtractionFailure, expected: Expected) {
  if ('code' in expected) {
    assert.ok('code' in got, `expected a failure, got ${JSON.stringify(got)}`);
    assert.equal(got.code, expected.code);
    assert.equal(got.field, expected.field);
    if (typeof expected.message === 'string') assert.equal(got.message, expected.message);
    else assert.match(got.message, expected.message);
  } else {
    assert.deepEqual(got, expected);
  }
}

describe('extractEvent', () => {
  const ok = (over: Partial<ExtractedEvent> = {}): ExtractedEvent => ({
    quantity: 5,
    tenantId: 'cus_1',
    eventId: 'evt_1',
    occurredAt: RECEIVED,
    properties: null,
    ...over,
  });
  const doc = { amount: 5, customer: 'cus_1', id: 'evt_1' };
  const cases: Array<[string, unknown, unknown, Headers, Expected]> = [
    ['the three required fields', base, doc, {}, ok()],
    // quantity
    [
      'quantity selecting several values',
      { ...base, quantity: '$.items[*].qty' },
      { ...doc, items: [{ qty: 1 }, { qty: 2 }, { qty: 3 }] },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.quantity', message: 'field_mappings.quantity selected 3 values; a mapping must select exactly one' },
    ],
    [
      'quantity selecting nothing',
      base,
      { customer: 'cus_1', id: 'evt_1' },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.quantity', message: 'field_mappings.quantity selected nothing in the payload ($.amount)' },
    ],
    [
      'quantity null',
      base,
      { ...doc, amount: null },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.quantity', message: /selected null; expected a JSON number or a string holding a decimal number/ },
    ],
    [
      'quantity a boolean',
      base,
      { ...doc, amount: true },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.quantity', message: /selected a boolean \(true\); expected a JSON number/ },
    ],
    [
      'quantity an object',
      base,
      { ...doc, amount: { value: 5 } },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.quantity', message: /selected an object;/ },
    ],
    ['quantity an array', base, { ...doc, amount: [5] }, {}, { code: 'MAPPING_FAILED', field: 'field_mappings.quantity', message: /selected an array;/ }],
    [
      'quantity a non-numeric string',
      base,
      { ...doc, amount: '5 units' },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.quantity', message: /selected a string \("5 units"\)/ },
    ],
    [
      'quantity an empty string',
      base,
      { ...doc, amount: '' },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.quantity', message: /selected an empty string/ },
    ],
    ['quantity a hex string', base, { ...doc, amount: '0x10' }, {}, { code: 'MAPPING_FAILED', field: 'field_mappings.quantity', message: /selected a string/ }],
    [
      'quantity a padded string',
      base,
      { ...doc, amount: ' 5' },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.quantity', message: /selected a string/ },
    ],
    [
      'quantity "Infinity"',
      base,
      { ...doc, amount: 'Infinity' },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.quantity', message: /selected a string/ },
    ],
    ['quantity a numeric string', base, { ...doc, amount: '12' }, {}, ok({ quantity: 12 })],
    ['quantity a decimal string', base, { ...doc, amount: '0.25' }, {}, ok({ quantity: 0.25 })],
    ['quantity an exponent string', base, { ...doc, amount: '1.5e3' }, {}, ok({ quantity: 1500 })],
    // The usage event rules refuse these later; extraction reports what was sent.
    ['quantity a negative string passes through', base, { ...doc, amount: '-2' }, {}, ok({ quantity: -2 })],
    ['quantity a negative number passes through', base, { ...doc, amount: -2 }, {}, ok({ quantity: -2 })],
    ['quantity a fraction', base, { ...doc, amount: 0.001 }, {}, ok({ quantity: 0.001 })],
    ['quantity a constant', { ...base, quantity: 1 }, { customer: 'cus_1', id: 'evt_1' }, {}, ok({ quantity: 1 })],
    ['quantity from a header', { ...base, quantity: { header: 'X-Units' } }, doc, { 'x-units': '3' }, ok({ quantity: 3 })],
    [
      'quantity through a filter selecting one',
      { ...base, quantity: "$.lines[?@.kind == 'seat'].qty" },
      {
        ...doc,
        lines: [
          { kind: 'fee', qty: 1 },
          { kind: 'seat', qty: 9 },
        ],
      },
      {},
      ok({ quantity: 9 }),
    ],
    // tenant_id and event_id
    [
      'tenant_id missing',
      { ...base, tenant_id: '$.data.object.customer' },
      { amount: 5, id: 'evt_1', data: { object: {} } },
      {},
      {
        code: 'MAPPING_FAILED',
        field: 'field_mappings.tenant_id',
        message: 'field_mappings.tenant_id selected nothing in the payload ($.data.object.customer)',
      },
    ],
    ['tenant_id an integer', base, { ...doc, customer: 1296269 }, {}, ok({ tenantId: '1296269' })],
    ['tenant_id zero', base, { ...doc, customer: 0 }, {}, ok({ tenantId: '0' })],
    [
      'tenant_id a fraction',
      base,
      { ...doc, customer: 1.5 },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.tenant_id', message: /selected a number \(1\.5\); expected a non-empty string or an integer/ },
    ],
    [
      'tenant_id beyond 2^53',
      base,
      { ...doc, customer: 2 ** 53 + 2 },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.tenant_id', message: /too large to be read exactly/ },
    ],
    [
      'tenant_id empty',
      base,
      { ...doc, customer: '' },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.tenant_id', message: /selected an empty string; expected a non-empty string or an integer/ },
    ],
    ['tenant_id null', base, { ...doc, customer: null }, {}, { code: 'MAPPING_FAILED', field: 'field_mappings.tenant_id', message: /selected null;/ }],
    [
      'tenant_id a boolean',
      base,
      { ...doc, customer: false },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.tenant_id', message: /selected a boolean \(false\)/ },
    ],
    [
      'tenant_id an object',
      base,
      { ...doc, customer: { id: 'cus_1' } },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.tenant_id', message: /selected an object;/ },
    ],
    [
      'tenant_id several',
      { ...base, tenant_id: '$..customer' },
      { ...doc, nested: { customer: 'cus_2' } },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.tenant_id', message: 'field_mappings.tenant_id selected 2 values; a mapping must select exactly one' },
    ],
    [
      'tenant_id by descendant search, found once',
      { ...base, tenant_id: '$..customer' },
      { amount: 5, id: 'evt_1', deep: { er: { customer: 'cus_9' } } },
      {},
      ok({ tenantId: 'cus_9' }),
    ],
    ['event_id an integer', base, { ...doc, id: 42 }, {}, ok({ eventId: '42' })],
    ['event_id from a header', { ...base, event_id: { header: 'X-Request-Id' } }, doc, { 'x-request-id': 'req_1' }, ok({ eventId: 'req_1' })],
    [
      'event_id from an absent header',
      { ...base, event_id: { header: 'X-Request-Id' } },
      doc,
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.event_id', message: 'field_mappings.event_id selected nothing: the request has no X-Request-Id header' },
    ],
    [
      'event_id from a repeated header',
      { ...base, event_id: { header: 'X-Request-Id' } },
      doc,
      { 'x-request-id': ['a', 'b'] },
      { code: 'MAPPING_FAILED', field: 'field_mappings.event_id', message: 'field_mappings.event_id selected 2 values; a mapping must select exactly one' },
    ],
    [
      'event_id from an empty header',
      { ...base, event_id: { header: 'X-Request-Id' } },
      doc,
      { 'x-request-id': '' },
      { code: 'MAPPING_FAILED', field: 'field_mappings.event_id', message: /selected an empty string/ },
    ],
    // timestamp
    ['timestamp mapping absent', base, doc, {}, ok()],
    ['timestamp selecting nothing', { ...base, timestamp: '$.created' }, doc, {}, ok()],
    ['timestamp null', { ...base, timestamp: '$.created' }, { ...doc, created: null }, {}, ok()],
    ['timestamp ISO', { ...base, timestamp: '$.created' }, { ...doc, created: '2026-01-15T12:00:00Z' }, {}, ok({ occurredAt: NOON })],
    ['timestamp epoch seconds', { ...base, timestamp: '$.created' }, { ...doc, created: NOON / 1000 }, {}, ok({ occurredAt: NOON })],
    ['timestamp epoch milliseconds', { ...base, timestamp: '$.created' }, { ...doc, created: NOON + 7 }, {}, ok({ occurredAt: NOON + 7 })],
    ['timestamp from a header', { ...base, timestamp: { header: 'X-Timestamp' } }, doc, { 'x-timestamp': String(NOON / 1000) }, ok({ occurredAt: NOON })],
    ['timestamp from an absent header', { ...base, timestamp: { header: 'X-Timestamp' } }, doc, {}, ok()],
    [
      'timestamp garbage',
      { ...base, timestamp: '$.created' },
      { ...doc, created: 'yesterday' },
      {},
      {
        code: 'INVALID_TIMESTAMP',
        field: 'field_mappings.timestamp',
        message:
          'field_mappings.timestamp selected "yesterday", which is not a timestamp; expected ISO 8601 with a zone (such as 2026-01-15T12:00:00Z) or a Unix epoch in seconds or milliseconds',
      },
    ],
    [
      'timestamp an impossible date',
      { ...base, timestamp: '$.created' },
      { ...doc, created: '2026-02-30T00:00:00Z' },
      {},
      { code: 'INVALID_TIMESTAMP', field: 'field_mappings.timestamp', message: /selected "2026-02-30T00:00:00Z", which is not a timestamp/ },
    ],
    [
      'timestamp a boolean',
      { ...base, timestamp: '$.created' },
      { ...doc, created: true },
      {},
      { code: 'INVALID_TIMESTAMP', field: 'field_mappings.timestamp', message: /selected true, which is not/ },
    ],
    [
      'timestamp an object',
      { ...base, timestamp: '$.created' },
      { ...doc, created: { at: 1 } },
      {},
      { code: 'INVALID_TIMESTAMP', field: 'field_mappings.timestamp', message: /selected \{"at":1\}, which is not/ },
    ],
    [
      'timestamp a long value is cut short',
      { ...base, timestamp: '$.created' },
      { ...doc, created: 'x'.repeat(500) },
      {},
      { code: 'INVALID_TIMESTAMP', field: 'field_mappings.timestamp', message: new RegExp(`selected "${'x'.repeat(59)}…, which is not`) },
    ],
    [
      'timestamp several',
      { ...base, timestamp: '$.times[*]' },
      { ...doc, times: [1, 2] },
      {},
      { code: 'MAPPING_FAILED', field: 'field_mappings.timestamp', message: 'field_mappings.timestamp selected 2 values; a mapping must select exactly one' },
    ],
    // properties
    [
      'properties of every type',
      {
        ...base,
        properties: { s: '$.s', i: '$.i', f: '$.f', t: '$.t', b: '$.b', o: '$.o', a: '$.a', e: '$.e', n: '$.n', gone: '$.gone', h: { header: 'X-Plan' } },
      },
      { ...doc, s: 'pro', i: 3, f: 2.5, t: true, b: false, o: { k: [1, 'x'] }, a: [1, null], e: '', n: null },
      { 'x-plan': 'gold' },
      ok({ properties: { s: 'pro', i: 3, f: 2.5, t: true, b: false, o: '{"k":[1,"x"]}', a: '[1,null]', e: '', h: 'gold' } }),
    ],
    ['properties all absent -> null', { ...base, properties: { plan: '$.plan', ip: { header: 'X-Ip' } } }, doc, {}, ok()],
    ['properties all null -> null', { ...base, properties: { plan: '$.plan' } }, { ...doc, plan: null }, {}, ok()],
    [
      'property selecting several',
      { ...base, properties: { tag: '$.tags[*]' } },
      { ...doc, tags: ['a', 'b'] },
      {},
      {
        code: 'MAPPING_FAILED',
        field: 'field_mappings.properties.tag',
        message: 'field_mappings.properties.tag selected 2 values; a mapping must select exactly one',
      },
    ],
    [
      'property selecting an array as a whole',
      { ...base, properties: { tags: '$.tags' } },
      { ...doc, tags: ['a', 'b'] },
      {},
      ok({ properties: { tags: '["a","b"]' } }),
    ],
  ];
  for (const [name, mapping, document, headers, expected] of cases) {
    it(name, () => {
      assertExtracted(extract(mapping, document, headers), expected);
    });
  }

  it('keeps properties in their configured order', () => {
    const got = extract({ ...base, properties: { z: '$.z', a: '$.a' } }, { ...doc, a: 1, z: 2 });
    assert.ok(!('code' in got));
    assert.deepEqual(Object.keys(got.properties!), ['z', 'a']);
  });

  it('reports a too deep descendant search as a failed mapping', () => {
    let deep: unknown = { customer: 'cus_1' };
    for (let i = 0; i < 200; i++) deep = { d: deep };
    assertExtracted(extract({ ...base, tenant_id: '$..customer' }, { amount: 1, id: 'e', d: deep }), {
      code: 'MAPPING_FAILED',
      field: 'field_mappings.tenant_id',
      message: /field_mappings\.tenant_id could not be evaluated: recursion limit/,
    });
  });

  it('fails, never throws, on a 10,000-deep value in the timestamp or a property (the message shows its start)', () => {
    const deepArray = JSON.parse('['.repeat(10_000) + ']'.repeat(10_000));
    let deepObject: unknown = 1;
    for (let i = 0; i < 10_000; i++) deepObject = { a: deepObject };
    for (const deep of [deepArray, deepObject]) {
      assertExtracted(extract({ ...base, timestamp: '$.t' }, { ...doc, t: deep }), {
        code: 'INVALID_TIMESTAMP',
        field: 'field_mappings.timestamp',
        message: /^field_mappings\.timestamp selected [[{]/,
      });
      assertExtracted(extract({ ...base, properties: { p: '$.p' } }, { ...doc, p: deep }), {
        code: 'MAPPING_FAILED',
        field: 'field_mappings.properties.p',
        message: /field_mappings\.properties\.p selected a value nested too deeply to keep as a property/,
      });
    }
  });

  it('does not change the document or the headers', () => {
    const document = { amount: '2', customer: 7, id: 'e', o: { x: 1 } };
    const headers = { 'x-a': 'b' };
    const before = JSON.stringify([document, headers]);
    extract({ ...base, properties: { o: '$.o', a: { header: 'X-A' } } }, document, headers);
    assert.equal(JSON.stringify([document, headers]), before);
  });
});

describe('parseWebhookTimestamp', () => {
  const cases: Array<[string, unknown, number | null]> = [
    // ISO 8601
    ['ISO with Z', '2026-01-15T12:00:00Z', NOON],
    ['ISO with milliseconds', '2026-01-15T12:00:00.123Z', NOON + 123],
    ['ISO with one fraction digit', '2026-01-15T12:00:00.5Z', NOON + 500],
    ['ISO with nanoseconds (truncated)', '2026-01-15T12:00:00.123456789Z', NOON + 123],
    ['ISO with a positive offset', '2026-01-15T13:00:00+01:00', NOON],
    ['ISO with a negative offset', '2026-01-15T07:00:00-05:00', NOON],
    ['ISO with a half-hour offset and fraction', '2026-01-15T17:30:00.250+05:30', NOON + 250],
    ['ISO on a leap day', '2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['ISO Feb 30', '2026-02-30T00:00:00Z', null],
    ['ISO Feb 29 of a common year', '2026-02-29T00:00:00Z', null],
    ['ISO April 31', '2026-04-31T00:00:00Z', null],
    ['ISO month 13', '2026-13-01T00:00:00Z', null],
    ['ISO hour 24', '2026-01-15T24:00:00Z', null],
    ['ISO without a zone', '2026-01-15T12:00:00', null],
    ['ISO date only', '2026-01-15', null],
    ['ISO with a space for T', '2026-01-15 12:00:00Z', null],
    ['ISO with a bad offset', '2026-01-15T12:00:00+0100', null],
    ['RFC 2822 date', 'Thu, 15 Jan 2026 12:00:00 GMT', null],
    // epoch numbers
    ['seconds', 1768478400, NOON],
    ['milliseconds', 1768478400123, NOON + 123],
    ['fractional seconds', 1768478400.5, NOON + 500],
    ['Slack fractional seconds', 1355517523.000005, 1355517523000],
    ['fractional seconds without float error', 1.001, 1001],
    ['fractional milliseconds (truncated)', 1768478400123.9, NOON + 123],
    ['zero', 0, 0],
    ['tiny fraction in exponent form', 1e-7, 0],
    ['last value read as seconds', 99999999999, 99999999999000],
    ['fraction below the boundary', 99999999999.5, 99999999999500],
    ['boundary 1e11 read as milliseconds', 1e11, 1e11],
    ['just past the boundary', 100000000001, 100000000001],
    ['past the last Date', 8.64e15 + 1, null],
    ['huge', 1e300, null],
    ['negative seconds', -1, null],
    ['negative milliseconds', -1768478400000, null],
    ['NaN', Number.NaN, null],
    ['Infinity', Number.POSITIVE_INFINITY, null],
    // epoch strings
    ['seconds as text', '1768478400', NOON],
    ['milliseconds as text', '1768478400123', NOON + 123],
    ['Slack ts as text', '1355517523.000005', 1355517523000],
    ['fraction as text', '1768478400.999999', NOON + 999],
    ['leading zeros as text', '0001768478400', NOON],
    ['boundary as text', '100000000000', 1e11],
    ['below the boundary as text', '99999999999', 99999999999000],
    ['absurdly long digits', '9'.repeat(40), null],
    ['negative text', '-1768478400', null],
    ['plus sign', '+1768478400', null],
    ['exponent text', '1.7e9', null],
    ['padded text', ' 1768478400', null],
    ['trailing dot', '1768478400.', null],
    ['empty string', '', null],
    ['garbage', 'yesterday', null],
    // other types
    ['true', true, null],
    ['false', false, null],
    ['null', null, null],
    ['undefined', undefined, null],
    ['object', { seconds: 1 }, null],
    ['array', [1768478400], null],
  ];
  for (const [name, value, expected] of cases) {
    it(`${name}: ${typeof value === 'string' ? JSON.stringify(value) : String(value)} -> ${expected}`, () => {
      assert.equal(parseWebhookTimestamp(value), expected);
    });
  }
});

describe('realistic payloads', () => {
  it('Stripe payment_intent.succeeded event', () => {
    const event = {
      id: 'evt_3QhK2xLkdIwHu7ix1AbCdEfG',
      object: 'event',
      api_version: '2024-06-20',
      created: 1736942400,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: 'a1b2c3' },
      type: 'payment_intent.succeeded',
      data: {
        object: {
          id: 'pi_3QhK2xLkdIwHu7ix0XyZ',
          object: 'payment_intent',
          amount: 2000,
          amount_received: 2000,
          currency: 'usd',
          customer: 'cus_NffrFeUfNV2Hib',
          metadata: { plan: 'pro' },
          payment_method_types: ['card'],
          status: 'succeeded',
        },
      },
    };
    const typeFrom = checkMappingSource('$.type', 'eventTypeFrom', false);
    assert.ok(typeFrom.ok);
    assert.deepEqual(selectValue(compileSource(typeFrom.value), event, {}), { kind: 'one', value: 'payment_intent.succeeded' });
    const got = extract(
      {
        quantity: '$.data.object.amount',
        tenant_id: '$.data.object.customer',
        event_id: '$.id',
        timestamp: '$.created',
        properties: { currency: '$.data.object.currency', plan: '$.data.object.metadata.plan', methods: '$.data.object.payment_method_types' },
      },
      event,
      { 'stripe-signature': 't=1736942400,v1=abc' },
    );
    assert.deepEqual(got, {
      quantity: 2000,
      tenantId: 'cus_NffrFeUfNV2Hib',
      eventId: 'evt_3QhK2xLkdIwHu7ix1AbCdEfG',
      occurredAt: Date.UTC(2025, 0, 15, 12),
      properties: { currency: 'usd', plan: 'pro', methods: '["card"]' },
    });
  });

  it('SendGrid event webhook: each array element is one event', () => {
    const body = [
      {
        email: 'example@test.com',
        timestamp: 1513299569,
        'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>',
        event: 'delivered',
        category: ['cat facts'],
        sg_event_id: 'sZROwMGMagFgnOEmSdvhig==',
        sg_message_id: '14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0',
        response: '250 OK',
        tenant_id: 'cus_abc',
      },
      { email: 'example@test.com', timestamp: 1513299570, event: 'open', sg_event_id: 'Gmnw0sGK3hEkNxJxqyJZsw==', sg_message_id: 'm2', tenant_id: 'cus_abc' },
    ];
    const m = compiled({
      quantity: 1,
      tenant_id: '$.tenant_id',
      event_id: '$.sg_event_id',
      timestamp: '$.timestamp',
      properties: { message_id: '$.sg_message_id', category: '$.category' },
    });
    const events = body.map((element) => extractEvent(m, element, {}, RECEIVED));
    assert.deepEqual(events, [
      {
        quantity: 1,
        tenantId: 'cus_abc',
        eventId: 'sZROwMGMagFgnOEmSdvhig==',
        occurredAt: 1513299569000,
        properties: { message_id: '14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0', category: '["cat facts"]' },
      },
      { quantity: 1, tenantId: 'cus_abc', eventId: 'Gmnw0sGK3hEkNxJxqyJZsw==', occurredAt: 1513299570000, properties: { message_id: 'm2' } },
    ]);
    assert.deepEqual(selectValue(compileSource('$.event'), body[0], {}), { kind: 'one', value: 'delivered' });
  });

  it('Slack Events API event_callback', () => {
    const body = {
      token: 'XXYYZZ',
      team_id: 'T123ABC456',
      api_app_id: 'A123ABC456',
      event: {
        type: 'message',
        channel: 'C123ABC456',
        user: 'U123ABC456',
        text: 'Hello world',
        ts: '1355517523.000005',
        event_ts: '1355517523.000005',
        channel_type: 'channel',
      },
      type: 'event_callback',
      authed_users: ['U123ABC456'],
      event_id: 'Ev123ABC456',
      event_time: 1355517523,
    };
    assert.deepEqual(selectValue(compileSource('$.event.type'), body, {}), { kind: 'one', value: 'message' });
    assert.deepEqual(
      extract({ quantity: 1, tenant_id: '$.team_id', event_id: '$.event_id', timestamp: '$.event_time', properties: { channel: '$.event.channel' } }, body),
      {
        quantity: 1,
        tenantId: 'T123ABC456',
        eventId: 'Ev123ABC456',
        occurredAt: 1355517523000,
        properties: { channel: 'C123ABC456' },
      },
    );
    // The message's own ts is a fractional-seconds string.
    const byTs = extract({ quantity: 1, tenant_id: '$.team_id', event_id: '$.event_id', timestamp: '$.event.ts' }, body);
    assert.ok(!('code' in byTs));
    assert.equal(byTs.occurredAt, 1355517523000);
  });

  it('GitHub push with X-GitHub-Delivery and X-GitHub-Event headers', () => {
    const headers = {
      'content-type': 'application/json',
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'x-github-event': 'push',
      'x-github-hook-id': '292430182',
      'x-hub-signature-256': 'sha256=d57c68ca6f92289e6987922ff26938930f6e66a2d161ef06abdf1859230aa23c',
    };
    const body = {
      ref: 'refs/heads/main',
      before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
      after: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c',
      repository: { id: 1296269, full_name: 'octocat/Hello-World', private: false, owner: { login: 'octocat', id: 1 } },
      pusher: { name: 'octocat', email: 'octocat@github.com' },
      sender: { login: 'octocat', id: 1 },
      commits: [
        { id: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c', message: 'Update README', timestamp: '2026-01-15T13:00:00+01:00' },
        { id: '6113728f27ae82c7b1a177c8d03f9e96e0adf246', message: 'Fix typo', timestamp: '2026-01-15T12:59:00+01:00' },
      ],
      head_commit: { id: '0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c', timestamp: '2026-01-15T13:00:00+01:00', author: { name: 'Mona', username: 'octocat' } },
    };
    assert.deepEqual(selectValue(compileSource({ header: 'X-GitHub-Event' }), body, headers), { kind: 'one', value: 'push' });
    assert.deepEqual(
      extract(
        {
          quantity: 1,
          tenant_id: '$.repository.owner.login',
          event_id: { header: 'X-GitHub-Delivery' },
          timestamp: '$.head_commit.timestamp',
          properties: {
            repository: '$.repository.full_name',
            repository_id: '$.repository.id',
            private: '$.repository.private',
            author: '$.head_commit.author',
          },
        },
        body,
        headers,
      ),
      {
        quantity: 1,
        tenantId: 'octocat',
        eventId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        occurredAt: NOON,
        properties: { repository: 'octocat/Hello-World', repository_id: 1296269, private: false, author: '{"name":"Mona","username":"octocat"}' },
      },
    );
    // Numeric GitHub ids become text; a mapping over every commit is ambiguous.
    assert.deepEqual(extract({ quantity: 1, tenant_id: '$.repository.id', event_id: '$.sender.id' }, body, headers), {
      quantity: 1,
      tenantId: '1296269',
      eventId: '1',
      occurredAt: RECEIVED,
      properties: null,
    });
    assertExtracted(extract({ quantity: 1, tenant_id: '$.repository.owner.login', event_id: '$.commits[*].id' }, body, headers), {
      code: 'MAPPING_FAILED',
      field: 'field_mappings.event_id',
      message: 'field_mappings.event_id selected 2 values; a mapping must select exactly one',
    });
  });

  it('Twilio status callback, form-decoded (every value a string)', () => {
    const body = Object.fromEntries(
      new URLSearchParams(
        'AccountSid=ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX&ApiVersion=2010-04-01&From=%2B15017122661&MessageSid=SM1f0e8ae6ade43cb3c0ce4525424e404f' +
          '&MessageStatus=delivered&NumSegments=2&Price=-0.00750&SmsSid=SM1f0e8ae6ade43cb3c0ce4525424e404f&SmsStatus=delivered&To=%2B15558675310',
      ),
    );
    assert.deepEqual(selectValue(compileSource('$.MessageStatus'), body, {}), { kind: 'one', value: 'delivered' });
    assert.deepEqual(
      extract({ quantity: '$.NumSegments', tenant_id: '$.AccountSid', event_id: '$.MessageSid', properties: { price: '$.Price', to: '$.To' } }, body),
      {
        quantity: 2,
        tenantId: 'ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
        eventId: 'SM1f0e8ae6ade43cb3c0ce4525424e404f',
        occurredAt: RECEIVED,
        properties: { price: '-0.00750', to: '+15558675310' },
      },
    );
    assert.deepEqual(extract({ quantity: 1, tenant_id: '$.AccountSid', event_id: '$.MessageSid' }, body), {
      quantity: 1,
      tenantId: 'ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
      eventId: 'SM1f0e8ae6ade43cb3c0ce4525424e404f',
      occurredAt: RECEIVED,
      properties: null,
    });
  });
});
