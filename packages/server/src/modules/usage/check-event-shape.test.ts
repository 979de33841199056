import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkEventShape, isRejection, listEventProblems, MAX_PROBLEMS_PER_EVENT, type RefChecks, type ShapeRules } from './check-event-shape.js';
import { parseIsoTimestamp } from '../../lib/timestamps.js';
import {
  CLOCK_SKEW_MS,
  MAX_EVENT_AGE_MS,
  MAX_METADATA_DEPTH,
  MAX_METADATA_ITEMS,
  MAX_METADATA_KEYS,
  MAX_METADATA_TEXT,
  MAX_METADATA_VALUES,
  type CheckedEvent,
  type MetadataValue,
} from './usage-event.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const AT = 'events[3]';
const INDEX = 3;
const iso = (ms: number) => new Date(ms).toISOString();

const BASE = { customerId: 'cus_123', metricName: 'api_calls', quantity: 1, occurredAt: '2026-01-15T11:00:00Z' } as const;
const withFields = (fields: Record<string, unknown>) => ({ ...BASE, ...fields });
const without = (key: keyof typeof BASE) => {
  const copy: Record<string, unknown> = { ...BASE };
  delete copy[key];
  return copy;
};
const at = (ms: number) => withFields({ occurredAt: iso(ms) });
const metadataWithKeys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
/** `levels` objects deep, metadata itself the first: {l2: {l3: … {leaf: 1}}}. */
const nestedObjects = (levels: number): Record<string, MetadataValue> => (levels === 1 ? { leaf: 1 } : { [`l${levels}`]: nestedObjects(levels - 1) });
/** The path of the innermost object of nestedObjects(levels), from metadata. */
const nestedPath = (levels: number) => ['metadata', ...Array.from({ length: levels - 1 }, (_, i) => `l${levels - i}`)].join('.');
/** n values in all: groups (g0, g1, …) of one object and up to 49 numbers in it. */
function metadataWithValues(n: number): Record<string, MetadataValue> {
  const out: Record<string, MetadataValue> = {};
  for (let left = n, g = 0; left > 0; g++) {
    const take = Math.min(MAX_METADATA_KEYS - 1, left - 1);
    out[`g${g}`] = metadataWithKeys(take);
    left -= take + 1;
  }
  return out;
}
/** Characters of keys and strings in all, as the total bound counts them. */
function textOf(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + textOf(x), 0);
  if (typeof v === 'object' && v !== null) return Object.entries(v).reduce((n, [k, x]) => n + k.length + textOf(x), 0);
  return 0;
}
/** Exactly `chars` characters of keys and strings: groups s0, s1, … of 500-character strings, the last one shorter. */
function metadataWithText(chars: number): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (let g = 0; textOf(out) < chars; g++) {
    const group: Record<string, string> = {};
    out[`s${g}`] = group;
    for (let i = 0; i < 40 && textOf(out) < chars; i++) group[`t${i}`] = 'x'.repeat(Math.max(0, Math.min(500, chars - textOf(out) - `t${i}`.length)));
  }
  return out;
}
const lastStringPath = (m: Record<string, Record<string, string>>) => {
  const g = Object.keys(m).at(-1)!;
  return `metadata.${g}.${Object.keys(m[g]!).at(-1)!}`;
};
const tooMuchText = (() => {
  const m = metadataWithText(MAX_METADATA_TEXT);
  const g = Object.keys(m).at(-1)!;
  const k = Object.keys(m[g]!).at(-1)!;
  m[g]![k] += 'x';
  return m;
})();
/** The flat metadata valid before nesting was allowed, at every one of its limits. */
const largestFlat = Object.fromEntries(Array.from({ length: MAX_METADATA_KEYS }, (_, i) => [`${i}`.padStart(40, 'k'), 'v'.repeat(500)]));

type Expect = { ok: Partial<CheckedEvent> } | { code: string; field: string };
interface Row {
  rule: string;
  raw: unknown;
  expect: Expect;
  rules?: Partial<ShapeRules>;
}

const accepted = (ok: Partial<CheckedEvent> = {}): Expect => ({ ok });
const refused = (code: string, field: string): Expect => ({ code, field: field ? `${AT}.${field}` : AT });
/** Timestamp forms are about the format, not the age window. */
const anyAge = { enforceMaxAge: false };

const cases: Row[] = [
  // Valid events and the CheckedEvent they become
  {
    rule: 'a minimal event is accepted: metadata and eventId are null when absent',
    raw: BASE,
    expect: accepted({ customerRef: 'cus_123', metricName: 'api_calls', quantity: 1, occurredAt: Date.UTC(2026, 0, 15, 11), metadata: null, eventId: null }),
  },
  {
    rule: 'metadata and eventId are kept as sent',
    raw: withFields({ metadata: { model: 'gpt', tokens: 12, cached: true, note: null }, eventId: 'evt_1' }),
    expect: accepted({
      customerRef: 'cus_123',
      metricName: 'api_calls',
      quantity: 1,
      metadata: { model: 'gpt', tokens: 12, cached: true, note: null },
      eventId: 'evt_1',
    }),
  },
  { rule: 'metadata null is the same as no metadata', raw: withFields({ metadata: null }), expect: accepted({ metadata: null }) },

  // Not an object
  { rule: 'an array is not an event', raw: [BASE], expect: refused('INVALID_EVENT', '') },
  { rule: 'null is not an event', raw: null, expect: refused('INVALID_EVENT', '') },
  { rule: 'a string is not an event', raw: 'cus_123 api_calls 1', expect: refused('INVALID_EVENT', '') },

  // Unknown field
  { rule: 'an unknown field is refused and named', raw: withFields({ customer_id: 'cus_123' }), expect: refused('INVALID_EVENT', 'customer_id') },

  // Required fields
  { rule: 'customerId is required', raw: without('customerId'), expect: refused('INVALID_EVENT', 'customerId') },
  { rule: 'metricName is required', raw: without('metricName'), expect: refused('INVALID_EVENT', 'metricName') },
  { rule: 'quantity is required', raw: without('quantity'), expect: refused('INVALID_QUANTITY', 'quantity') },
  { rule: 'occurredAt is required', raw: without('occurredAt'), expect: refused('INVALID_TIMESTAMP', 'occurredAt') },

  // customerId
  { rule: 'customerId must not be empty', raw: withFields({ customerId: '' }), expect: refused('INVALID_EVENT', 'customerId') },
  { rule: 'customerId of 255 characters is accepted', raw: withFields({ customerId: 'c'.repeat(255) }), expect: accepted({ customerRef: 'c'.repeat(255) }) },
  { rule: 'customerId of 256 characters is too long', raw: withFields({ customerId: 'c'.repeat(256) }), expect: refused('INVALID_EVENT', 'customerId') },
  { rule: 'customerId must be a string', raw: withFields({ customerId: 42 }), expect: refused('INVALID_EVENT', 'customerId') },

  // metricName
  { rule: 'metricName must not be empty', raw: withFields({ metricName: '' }), expect: refused('INVALID_EVENT', 'metricName') },
  { rule: 'metricName of 100 characters is accepted', raw: withFields({ metricName: 'm'.repeat(100) }), expect: accepted({ metricName: 'm'.repeat(100) }) },
  { rule: 'metricName of 101 characters is too long', raw: withFields({ metricName: 'm'.repeat(101) }), expect: refused('INVALID_EVENT', 'metricName') },

  // quantity
  { rule: 'quantity as the string "5" is refused', raw: withFields({ quantity: '5' }), expect: refused('INVALID_QUANTITY', 'quantity') },
  { rule: 'quantity null is refused', raw: withFields({ quantity: null }), expect: refused('INVALID_QUANTITY', 'quantity') },
  { rule: 'quantity as a boolean is refused', raw: withFields({ quantity: true }), expect: refused('INVALID_QUANTITY', 'quantity') },
  { rule: 'quantity Infinity is refused', raw: withFields({ quantity: Infinity }), expect: refused('INVALID_QUANTITY', 'quantity') },
  { rule: 'quantity NaN is refused', raw: withFields({ quantity: NaN }), expect: refused('INVALID_QUANTITY', 'quantity') },
  { rule: 'a negative quantity is refused', raw: withFields({ quantity: -1 }), expect: refused('NEGATIVE_QUANTITY', 'quantity') },
  { rule: 'quantity -0 is accepted as zero', raw: withFields({ quantity: -0 }), expect: accepted({ quantity: 0 }) },
  { rule: 'quantity 0 is accepted', raw: withFields({ quantity: 0 }), expect: accepted({ quantity: 0 }) },
  { rule: 'a tiny quantity 1e-9 is accepted', raw: withFields({ quantity: 1e-9 }), expect: accepted({ quantity: 1e-9 }) },
  { rule: 'quantity 1e15 (the largest) is accepted', raw: withFields({ quantity: 1e15 }), expect: accepted({ quantity: 1e15 }) },
  { rule: 'quantity above 1e15 is refused', raw: withFields({ quantity: 1e15 + 2 }), expect: refused('INVALID_QUANTITY', 'quantity') },
  { rule: 'a huge finite quantity 1e300 is refused', raw: withFields({ quantity: 1e300 }), expect: refused('INVALID_QUANTITY', 'quantity') },

  // occurredAt forms
  { rule: 'occurredAt in UTC (Z)', raw: withFields({ occurredAt: '2026-01-15T10:00:00Z' }), expect: accepted({ occurredAt: Date.UTC(2026, 0, 15, 10) }) },
  {
    rule: 'occurredAt with a +02:00 offset',
    raw: withFields({ occurredAt: '2026-01-15T12:00:00+02:00' }),
    expect: accepted({ occurredAt: Date.UTC(2026, 0, 15, 10) }),
  },
  {
    rule: 'occurredAt with 9 fraction digits is cut to milliseconds',
    raw: withFields({ occurredAt: '2026-01-15T10:00:00.123456789Z' }),
    expect: accepted({ occurredAt: Date.UTC(2026, 0, 15, 10, 0, 0, 123) }),
  },
  {
    rule: 'occurredAt without seconds is accepted',
    raw: withFields({ occurredAt: '2026-01-15T10:00Z' }),
    expect: accepted({ occurredAt: Date.UTC(2026, 0, 15, 10) }),
  },
  {
    rule: 'occurredAt without a time zone is refused',
    raw: withFields({ occurredAt: '2026-01-15T10:00:00' }),
    expect: refused('INVALID_TIMESTAMP', 'occurredAt'),
  },
  { rule: 'occurredAt as a date only is refused', raw: withFields({ occurredAt: '2026-01-15' }), expect: refused('INVALID_TIMESTAMP', 'occurredAt') },
  {
    rule: 'occurredAt on Feb 30 is refused',
    raw: withFields({ occurredAt: '2026-02-30T10:00:00Z' }),
    expect: refused('INVALID_TIMESTAMP', 'occurredAt'),
    rules: anyAge,
  },
  {
    rule: 'occurredAt on Feb 29 of a leap year is accepted',
    raw: withFields({ occurredAt: '2024-02-29T10:00:00Z' }),
    expect: accepted({ occurredAt: Date.UTC(2024, 1, 29, 10) }),
    rules: anyAge,
  },
  {
    rule: 'occurredAt on Feb 29 of a common year is refused',
    raw: withFields({ occurredAt: '2026-02-29T10:00:00Z' }),
    expect: refused('INVALID_TIMESTAMP', 'occurredAt'),
    rules: anyAge,
  },
  { rule: 'occurredAt at hour 24 is refused', raw: withFields({ occurredAt: '2026-01-15T24:00:00Z' }), expect: refused('INVALID_TIMESTAMP', 'occurredAt') },
  { rule: 'occurredAt as a number is refused', raw: withFields({ occurredAt: Date.UTC(2026, 0, 15, 10) }), expect: refused('INVALID_TIMESTAMP', 'occurredAt') },

  // Time window
  {
    rule: 'occurredAt exactly 5 minutes in the future is accepted (clock skew)',
    raw: at(NOW + CLOCK_SKEW_MS),
    expect: accepted({ occurredAt: NOW + CLOCK_SKEW_MS }),
  },
  { rule: 'occurredAt 5 minutes and 1 ms in the future is refused', raw: at(NOW + CLOCK_SKEW_MS + 1), expect: refused('TIMESTAMP_IN_FUTURE', 'occurredAt') },
  { rule: 'occurredAt exactly 35 days old is accepted', raw: at(NOW - MAX_EVENT_AGE_MS), expect: accepted({ occurredAt: NOW - MAX_EVENT_AGE_MS }) },
  { rule: 'occurredAt 35 days and 1 ms old is refused', raw: at(NOW - MAX_EVENT_AGE_MS - 1), expect: refused('TIMESTAMP_TOO_OLD', 'occurredAt') },
  {
    rule: 'occurredAt 35 days and 1 ms old is accepted when the age is not enforced (bulk upload)',
    raw: at(NOW - MAX_EVENT_AGE_MS - 1),
    expect: accepted({ occurredAt: NOW - MAX_EVENT_AGE_MS - 1 }),
    rules: { enforceMaxAge: false },
  },
  {
    rule: 'the future is refused even when the age is not enforced',
    raw: at(NOW + CLOCK_SKEW_MS + 1),
    expect: refused('TIMESTAMP_IN_FUTURE', 'occurredAt'),
    rules: anyAge,
  },

  // metadata
  {
    rule: `metadata with ${MAX_METADATA_KEYS} keys is accepted`,
    raw: withFields({ metadata: metadataWithKeys(MAX_METADATA_KEYS) }),
    expect: accepted({ metadata: metadataWithKeys(MAX_METADATA_KEYS) }),
  },
  {
    rule: `metadata with ${MAX_METADATA_KEYS + 1} keys is refused`,
    raw: withFields({ metadata: metadataWithKeys(MAX_METADATA_KEYS + 1) }),
    expect: refused('INVALID_METADATA', 'metadata'),
  },
  {
    rule: 'a metadata key of 40 characters is accepted',
    raw: withFields({ metadata: { ['k'.repeat(40)]: 1 } }),
    expect: accepted({ metadata: { ['k'.repeat(40)]: 1 } }),
  },
  {
    rule: 'a metadata key of 41 characters is refused',
    raw: withFields({ metadata: { ['k'.repeat(41)]: 1 } }),
    expect: refused('INVALID_METADATA', `metadata.${'k'.repeat(40)}…`),
  },
  {
    rule: 'a metadata string of 500 characters is accepted',
    raw: withFields({ metadata: { note: 'x'.repeat(500) } }),
    expect: accepted({ metadata: { note: 'x'.repeat(500) } }),
  },
  {
    rule: 'a metadata string of 501 characters is refused',
    raw: withFields({ metadata: { note: 'x'.repeat(501) } }),
    expect: refused('INVALID_METADATA', 'metadata.note'),
  },
  {
    rule: 'nested objects and arrays are accepted and kept as sent',
    raw: withFields({ metadata: { request: { method: 'GET', headers: { ua: 'curl' } }, tags: ['a', 1, null, { k: true }, []], 'a.b': 1 } }),
    expect: accepted({ metadata: { request: { method: 'GET', headers: { ua: 'curl' } }, tags: ['a', 1, null, { k: true }, []], 'a.b': 1 } }),
  },
  {
    rule: `objects ${MAX_METADATA_DEPTH} levels deep (metadata the first) are accepted`,
    raw: withFields({ metadata: nestedObjects(MAX_METADATA_DEPTH) }),
    expect: accepted({ metadata: nestedObjects(MAX_METADATA_DEPTH) }),
  },
  {
    rule: `objects ${MAX_METADATA_DEPTH + 1} levels deep are refused, naming the object too deep`,
    raw: withFields({ metadata: nestedObjects(MAX_METADATA_DEPTH + 1) }),
    expect: refused('INVALID_METADATA', nestedPath(MAX_METADATA_DEPTH + 1)),
  },
  {
    rule: `arrays count as levels: ${MAX_METADATA_DEPTH} levels are accepted`,
    raw: withFields({ metadata: { a: [[[['deep']]]] } }),
    expect: accepted({ metadata: { a: [[[['deep']]]] } }),
  },
  {
    rule: `arrays ${MAX_METADATA_DEPTH + 1} levels deep are refused, naming the item by index`,
    raw: withFields({ metadata: { a: [[[[[]]]]] } }),
    expect: refused('INVALID_METADATA', 'metadata.a[0][0][0][0]'),
  },
  {
    rule: `a nested object with ${MAX_METADATA_KEYS} keys is accepted`,
    raw: withFields({ metadata: { request: metadataWithKeys(MAX_METADATA_KEYS) } }),
    expect: accepted({ metadata: { request: metadataWithKeys(MAX_METADATA_KEYS) } }),
  },
  {
    rule: `a nested object with ${MAX_METADATA_KEYS + 1} keys is refused, naming it`,
    raw: withFields({ metadata: { request: { headers: metadataWithKeys(MAX_METADATA_KEYS + 1) } } }),
    expect: refused('INVALID_METADATA', 'metadata.request.headers'),
  },
  {
    rule: `an array of ${MAX_METADATA_ITEMS} items is accepted`,
    raw: withFields({ metadata: { tags: Array.from({ length: MAX_METADATA_ITEMS }, (_, i) => i) } }),
    expect: accepted({ metadata: { tags: Array.from({ length: MAX_METADATA_ITEMS }, (_, i) => i) } }),
  },
  {
    rule: `an array of ${MAX_METADATA_ITEMS + 1} items is refused, naming it`,
    raw: withFields({ metadata: { tags: Array.from({ length: MAX_METADATA_ITEMS + 1 }, (_, i) => i) } }),
    expect: refused('INVALID_METADATA', 'metadata.tags'),
  },
  {
    rule: 'a nested key of 41 characters is refused, naming it cut',
    raw: withFields({ metadata: { request: { ['k'.repeat(41)]: 1 } } }),
    expect: refused('INVALID_METADATA', `metadata.request.${'k'.repeat(40)}…`),
  },
  {
    rule: 'a string of 501 characters in an array is refused, naming its index',
    raw: withFields({ metadata: { request: { tags: ['ok', 'x'.repeat(501)] } } }),
    expect: refused('INVALID_METADATA', 'metadata.request.tags[1]'),
  },
  {
    rule: 'a nested number that is not finite is refused',
    raw: withFields({ metadata: { request: { ms: Infinity } } }),
    expect: refused('INVALID_METADATA', 'metadata.request.ms'),
  },
  {
    rule: `${MAX_METADATA_VALUES} values in all (objects count) are accepted`,
    raw: withFields({ metadata: metadataWithValues(MAX_METADATA_VALUES) }),
    expect: accepted({ metadata: metadataWithValues(MAX_METADATA_VALUES) }),
  },
  {
    rule: `value number ${MAX_METADATA_VALUES + 1} is refused where it is`,
    raw: withFields({ metadata: metadataWithValues(MAX_METADATA_VALUES + 1) }),
    expect: refused('INVALID_METADATA', 'metadata.g5.k5'),
  },
  {
    rule: `${MAX_METADATA_TEXT} characters of keys and strings in all are accepted`,
    raw: withFields({ metadata: metadataWithText(MAX_METADATA_TEXT) }),
    expect: accepted({ metadata: metadataWithText(MAX_METADATA_TEXT) }),
  },
  {
    rule: `one character more is refused at the string that goes past ${MAX_METADATA_TEXT}`,
    raw: withFields({ metadata: tooMuchText }),
    expect: refused('INVALID_METADATA', lastStringPath(tooMuchText)),
  },
  {
    rule: 'the largest flat metadata valid before nesting (50 keys of 40 characters, 500-character strings) is still accepted',
    raw: withFields({ metadata: largestFlat }),
    expect: accepted({ metadata: largestFlat }),
  },
  { rule: 'metadata that is not an object is refused', raw: withFields({ metadata: ['a'] }), expect: refused('INVALID_METADATA', 'metadata') },
  {
    rule: 'null, boolean and number metadata values are accepted',
    raw: withFields({ metadata: { a: null, b: false, c: 3.5 } }),
    expect: accepted({ metadata: { a: null, b: false, c: 3.5 } }),
  },

  // eventId
  { rule: 'an empty eventId is refused', raw: withFields({ eventId: '' }), expect: refused('INVALID_EVENT', 'eventId') },
  { rule: 'an eventId of 256 characters is refused', raw: withFields({ eventId: 'e'.repeat(256) }), expect: refused('INVALID_EVENT', 'eventId') },
  { rule: 'an eventId that is not a string is refused', raw: withFields({ eventId: 7 }), expect: refused('INVALID_EVENT', 'eventId') },
];

describe('usage.checkEventShape', () => {
  for (const { rule, raw, expect, rules } of cases) {
    it(rule, () => {
      const result = checkEventShape(raw, INDEX, AT, { now: NOW, enforceMaxAge: true, ...rules });
      if ('ok' in expect) {
        assert.equal(isRejection(result), false, `expected acceptance, got ${JSON.stringify(result)}`);
        const event = result as CheckedEvent;
        for (const [key, value] of Object.entries(expect.ok)) {
          // === so that -0 compares equal to 0; objects compare deeply.
          if (typeof value === 'number')
            assert.ok(event[key as keyof CheckedEvent] === value, `${key}: ${JSON.stringify(event[key as keyof CheckedEvent])} !== ${value}`);
          else assert.deepEqual(event[key as keyof CheckedEvent], value, key);
        }
      } else {
        assert.equal(isRejection(result), true, `expected ${expect.code}, got ${JSON.stringify(result)}`);
        if (!isRejection(result)) return;
        assert.equal(result.code, expect.code);
        assert.equal(result.field, expect.field);
        assert.equal(result.index, INDEX);
        assert.ok(result.message.startsWith(`${expect.field} `), `message "${result.message}" should start with "${expect.field} "`);
      }
    });
  }

  it('an accepted event has exactly the CheckedEvent fields', () => {
    const result = checkEventShape(withFields({ eventId: 'evt_9' }), INDEX, AT, { now: NOW, enforceMaxAge: true });
    assert.deepEqual(result, {
      customerRef: 'cus_123',
      metricName: 'api_calls',
      quantity: 1,
      occurredAt: Date.UTC(2026, 0, 15, 11),
      metadata: null,
      eventId: 'evt_9',
    });
  });
});

describe('usage.listEventProblems', () => {
  const rules: ShapeRules = { now: NOW, enforceMaxAge: true };
  const refs: RefChecks = {
    customer: (ref) => (ref === 'cus_123' ? null : `'${ref}' is no customer.`),
    metric: (name) => (name === 'api_calls' ? null : `'${name}' is no metric.`),
  };
  const old = iso(NOW - MAX_EVENT_AGE_MS - 1);
  const listCases: Array<{ rule: string; raw: unknown; refs?: RefChecks | null; expect: Array<[string, string]> }> = [
    { rule: 'a valid event has no problem', raw: BASE, expect: [] },
    { rule: 'a valid event naming a known customer and metric has no problem', raw: BASE, refs, expect: [] },
    {
      rule: 'an unknown customer, quantity -1 and an old date are three problems, in field order',
      raw: withFields({ customerId: 'ghost', quantity: -1, occurredAt: old }),
      refs,
      expect: [
        ['UNKNOWN_CUSTOMER', 'customerId'],
        ['NEGATIVE_QUANTITY', 'quantity'],
        ['TIMESTAMP_TOO_OLD', 'occurredAt'],
      ],
    },
    {
      rule: 'without look-ups, an unknown customer is not a problem of shape',
      raw: withFields({ customerId: 'ghost', quantity: -1 }),
      expect: [['NEGATIVE_QUANTITY', 'quantity']],
    },
    {
      rule: 'an unknown customer and an unknown metric are both named',
      raw: withFields({ customerId: 'ghost', metricName: 'x' }),
      refs,
      expect: [
        ['UNKNOWN_CUSTOMER', 'customerId'],
        ['UNKNOWN_METRIC', 'metricName'],
      ],
    },
    {
      rule: 'a malformed customerId is a shape problem and is not looked up',
      raw: withFields({ customerId: 42 }),
      refs,
      expect: [['INVALID_EVENT', 'customerId']],
    },
    {
      rule: 'unknown fields come first, then every missing required field',
      raw: { cost: 1 },
      expect: [
        ['INVALID_EVENT', 'cost'],
        ['INVALID_EVENT', 'customerId'],
        ['INVALID_EVENT', 'metricName'],
        ['INVALID_QUANTITY', 'quantity'],
        ['INVALID_TIMESTAMP', 'occurredAt'],
      ],
    },
    {
      rule: 'each bad metadata value is its own problem, at any depth, and a bad eventId after them',
      raw: withFields({ metadata: { a: { s: 'x'.repeat(501) }, ok: {}, b: [1, 'y'.repeat(501)], ['k'.repeat(41)]: 1, c: [[[[[1]]]]] }, eventId: '' }),
      expect: [
        ['INVALID_METADATA', 'metadata.a.s'],
        ['INVALID_METADATA', 'metadata.b[1]'],
        ['INVALID_METADATA', `metadata.${'k'.repeat(40)}…`],
        ['INVALID_METADATA', 'metadata.c[0][0][0][0]'],
        ['INVALID_EVENT', 'eventId'],
      ],
    },
    {
      rule: 'too many values in all is one problem, whatever follows',
      raw: withFields({ metadata: { ...metadataWithValues(MAX_METADATA_VALUES + 20), z: 'x'.repeat(501) } }),
      expect: [['INVALID_METADATA', 'metadata.g5.k5']],
    },
    {
      rule: 'too many metadata keys is one problem',
      raw: withFields({ metadata: metadataWithKeys(MAX_METADATA_KEYS + 5) }),
      expect: [['INVALID_METADATA', 'metadata']],
    },
    {
      rule: 'a future date and a quantity string',
      raw: withFields({ quantity: '5', occurredAt: iso(NOW + CLOCK_SKEW_MS + 1) }),
      expect: [
        ['INVALID_QUANTITY', 'quantity'],
        ['TIMESTAMP_IN_FUTURE', 'occurredAt'],
      ],
    },
    { rule: 'a value that is not an object is one problem', raw: [BASE], refs, expect: [['INVALID_EVENT', '']] },
    {
      rule: `at most ${MAX_PROBLEMS_PER_EVENT} problems are listed`,
      raw: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x${i}`, i])),
      expect: Array.from({ length: MAX_PROBLEMS_PER_EVENT }, (_, i): [string, string] => ['INVALID_EVENT', `x${i}`]),
    },
  ];
  for (const c of listCases) {
    it(c.rule, () => {
      const problems = listEventProblems(c.raw, INDEX, AT, rules, c.refs ?? null);
      assert.deepEqual(
        problems.map((p) => [p.code, p.field]),
        c.expect.map(([code, field]) => [code, field ? `${AT}.${field}` : AT]),
      );
      for (const p of problems) {
        assert.equal(p.index, INDEX);
        assert.ok(p.message.startsWith(`${p.field} `), p.message);
      }
    });
  }

  it('the first problem listed is the one checkEventShape returns, for every refused case above', () => {
    for (const { rule, raw, expect, rules: over } of cases) {
      if ('ok' in expect) continue;
      const r = { now: NOW, enforceMaxAge: true, ...over };
      assert.deepEqual(listEventProblems(raw, INDEX, AT, r, null)[0], checkEventShape(raw, INDEX, AT, r), rule);
    }
  });
});

describe('usage.parseIsoTimestamp', () => {
  const cases: [string, string, number | null][] = [
    ['UTC with milliseconds', '2026-01-15T10:00:00.250Z', Date.UTC(2026, 0, 15, 10, 0, 0, 250)],
    ['a negative offset moves the instant later', '2026-01-15T10:00:00-05:30', Date.UTC(2026, 0, 15, 15, 30)],
    ['Dec 31 at 23:59:59 is the last second of the year', '2025-12-31T23:59:59Z', Date.UTC(2025, 11, 31, 23, 59, 59)],
    ['minute 60 is refused', '2026-01-15T10:60:00Z', null],
    ['second 60 is refused', '2026-01-15T10:00:60Z', null],
    ['month 13 is refused', '2026-13-01T10:00:00Z', null],
    ['day 0 is refused', '2026-01-00T10:00:00Z', null],
    ['April 31 is refused', '2026-04-31T10:00:00Z', null],
    ['an offset hour of 24 is refused', '2026-01-15T10:00:00+24:00', null],
    ['an offset minute of 60 is refused', '2026-01-15T10:00:00+01:60', null],
    ['ten fraction digits are refused', '2026-01-15T10:00:00.1234567890Z', null],
    ['a space instead of T is refused', '2026-01-15 10:00:00Z', null],
    ['surrounding text is refused', ' 2026-01-15T10:00:00Z', null],
    ['minutes only, no seconds', '2026-01-15T10:05Z', Date.UTC(2026, 0, 15, 10, 5)],
    ['one fraction digit is tenths', '2026-01-15T10:00:00.5Z', Date.UTC(2026, 0, 15, 10, 0, 0, 500)],
    ['February 29 of a leap year', '2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['February 29 of 1900 (not a leap year) is refused', '1900-02-29T00:00:00Z', null],
    ['February 29 of 2000 (a leap year)', '2000-02-29T00:00:00Z', Date.UTC(2000, 1, 29)],
    ['year 0099 stays year 99', '0099-06-01T00:00:00Z', new Date('0099-06-01T00:00:00Z').getTime()],
    ['a fraction without seconds is refused', '2026-01-15T10:00.5Z', null],
    ['a dot without digits is refused', '2026-01-15T10:00:00.Z', null],
    ['no zone is refused', '2026-01-15T10:00:00', null],
    ['a lowercase z is refused', '2026-01-15T10:00:00z', null],
    ['an offset without a colon is refused', '2026-01-15T10:00:00+0100', null],
    ['text after the zone is refused', '2026-01-15T10:00:00Zx', null],
    ['a one-digit hour is refused', '2026-01-15T1:00:00Z', null],
  ];
  for (const [rule, text, expected] of cases) {
    it(rule, () => assert.equal(parseIsoTimestamp(text), expected));
  }
});

describe('usage.parseIsoTimestamp agrees with Date for every valid form', () => {
  const pad = (n: number, w: number) => String(n).padStart(w, '0');
  it('matches Date.UTC over random dates, precisions and offsets (property)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(Date.UTC(1, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }),
        fc.constantFrom('minutes', 'seconds', 'ms', 'ns'),
        fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
        (date, precision, offsetMinutes) => {
          const d = new Date(date.getTime() - (date.getTime() % (precision === 'minutes' ? 60_000 : precision === 'seconds' ? 1000 : 1)));
          const local = new Date(d.getTime() + offsetMinutes * 60_000);
          const zone =
            offsetMinutes === 0
              ? 'Z'
              : `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offsetMinutes) / 60), 2)}:${pad(Math.abs(offsetMinutes) % 60, 2)}`;
          const year = local.getUTCFullYear();
          if (year < 0 || year > 9999) return;
          let text = `${pad(year, 4)}-${pad(local.getUTCMonth() + 1, 2)}-${pad(local.getUTCDate(), 2)}T${pad(local.getUTCHours(), 2)}:${pad(local.getUTCMinutes(), 2)}`;
          if (precision !== 'minutes') text += `:${pad(local.getUTCSeconds(), 2)}`;
          if (precision === 'ms') text += `.${pad(local.getUTCMilliseconds(), 3)}`;
          if (precision === 'ns') text += `.${pad(local.getUTCMilliseconds(), 3)}456789`;
          assert.equal(parseIsoTimestamp(text + zone), d.getTime(), text + zone);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
