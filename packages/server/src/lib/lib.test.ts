import { hostname } from 'node:os';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ErrorObject } from 'ajv';
import { FrozenClock } from './clock.js';
import { addMonthsUtc, calendarPeriodEnd, calendarPeriodStart, hourStart, type BillingPeriod } from './periods.js';
import { createIdGenerator, idFloor, idPrefixes, idTime, type IdKind } from './ids.js';
import { decimalAdd, ExactSum, formatDecimal, isDecimalString, money, roundTo } from './money.js';
import { stableStringify } from './stable-json.js';
import { findJsonProblem, MAX_JSON_DEPTH } from './json-limits.js';
import { TtlCache } from './ttl-cache.js';
import { ConfigError, loadConfig } from './config.js';
import { createMemoryRateLimiter } from './rate-limiter.js';
import { describeValidationErrors } from '../http/validation.js';

const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0) => Date.UTC(y, mo - 1, d, h, mi, s, ms);
const iso = (ms: number) => new Date(ms).toISOString();

describe('periods.addMonthsUtc', () => {
  const cases: [string, number, number, string][] = [
    ['Jan 31 + 1 month clamps to Feb 28', utc(2026, 1, 31), 1, '2026-02-28T00:00:00.000Z'],
    ['Jan 31 + 1 month in a leap year is Feb 29', utc(2024, 1, 31), 1, '2024-02-29T00:00:00.000Z'],
    ['Mar 31 + 1 month clamps to Apr 30', utc(2026, 3, 31), 1, '2026-04-30T00:00:00.000Z'],
    ['Dec 15 + 1 month is Jan 15 of the next year', utc(2025, 12, 15), 1, '2026-01-15T00:00:00.000Z'],
    ['Nov 30 + 3 months crosses the year and clamps to Feb 28', utc(2025, 11, 30), 3, '2026-02-28T00:00:00.000Z'],
    ['the time of day is kept, to the millisecond', utc(2026, 1, 31, 23, 59, 59, 999), 1, '2026-02-28T23:59:59.999Z'],
    ['Feb 28 + 1 month is Mar 28, not the end of March', utc(2026, 2, 28), 1, '2026-03-28T00:00:00.000Z'],
    ['+ 0 months is the same instant', utc(2026, 5, 17, 8, 30), 0, '2026-05-17T08:30:00.000Z'],
    ['+ 24 months is two years on', utc(2026, 7, 4, 12), 24, '2028-07-04T12:00:00.000Z'],
    ['Jan 15 - 1 month is Dec 15 of the year before', utc(2026, 1, 15), -1, '2025-12-15T00:00:00.000Z'],
    ['Mar 31 - 1 month clamps to Feb 28', utc(2026, 3, 31), -1, '2026-02-28T00:00:00.000Z'],
  ];
  for (const [rule, start, months, expected] of cases) {
    it(rule, () => assert.equal(iso(addMonthsUtc(start, months)), expected));
  }

  it('property: moves exactly n calendar months, keeps the time of day, and clamps the day only to the month length', () => {
    fc.assert(
      fc.property(fc.integer({ min: utc(2000, 1, 1), max: utc(2200, 1, 1) }), fc.integer({ min: -240, max: 240 }), (start, n) => {
        const a = new Date(start);
        const b = new Date(addMonthsUtc(start, n));
        const monthIndex = (d: Date) => d.getUTCFullYear() * 12 + d.getUTCMonth();
        assert.equal(monthIndex(b) - monthIndex(a), n);
        assert.equal(b.getTime() % 86_400_000, a.getTime() % 86_400_000);
        const lastDay = new Date(Date.UTC(b.getUTCFullYear(), b.getUTCMonth() + 1, 0)).getUTCDate();
        assert.equal(b.getUTCDate(), Math.min(a.getUTCDate(), lastDay));
      }),
    );
  });
});

describe('periods.calendarPeriodStart and calendarPeriodEnd', () => {
  const cases: [string, number, BillingPeriod, string, string][] = [
    ['MONTHLY mid-January', utc(2026, 1, 15, 12), 'MONTHLY', '2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'],
    ['MONTHLY at the first instant of a month', utc(2026, 3, 1), 'MONTHLY', '2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z'],
    ['MONTHLY one millisecond before a month ends', Date.UTC(2026, 1, 28, 23, 59, 59, 999), 'MONTHLY', '2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z'],
    ['MONTHLY in December ends on January 1st', utc(2026, 12, 31, 6), 'MONTHLY', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['QUARTERLY in February is January to April', utc(2026, 2, 10), 'QUARTERLY', '2026-01-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z'],
    ['QUARTERLY in August is July to October', utc(2026, 8, 31), 'QUARTERLY', '2026-07-01T00:00:00.000Z', '2026-10-01T00:00:00.000Z'],
    ['QUARTERLY in November ends on January 1st', utc(2026, 11, 15), 'QUARTERLY', '2026-10-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['ANNUAL on Feb 29 is the calendar year', utc(2024, 2, 29, 10), 'ANNUAL', '2024-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z'],
  ];
  for (const [rule, t, period, start, end] of cases) {
    it(rule, () => {
      assert.equal(iso(calendarPeriodStart(t, period)), start);
      assert.equal(iso(calendarPeriodEnd(t, period)), end);
    });
  }

  const hours: [string, number, string][] = [
    ['an instant inside an hour', Date.UTC(2026, 0, 15, 11, 59, 59, 999), '2026-01-15T11:00:00.000Z'],
    ['the first millisecond of an hour is its start', Date.UTC(2026, 0, 15, 12), '2026-01-15T12:00:00.000Z'],
    ['an instant at 12:34:56.789', Date.UTC(2026, 0, 15, 12, 34, 56, 789), '2026-01-15T12:00:00.000Z'],
    ['the last millisecond of a month stays in its month', Date.UTC(2026, 0, 31, 23, 59, 59, 999), '2026-01-31T23:00:00.000Z'],
    ['before 1970 rounds down, not toward zero', Date.UTC(1969, 11, 31, 23, 30), '1969-12-31T23:00:00.000Z'],
  ];
  for (const [rule, t, start] of hours) it(`hourStart: ${rule}`, () => assert.equal(iso(hourStart(t)), start));
});

describe('ids.createIdGenerator', () => {
  for (const [kind, prefix] of Object.entries(idPrefixes)) {
    it(`${kind} ids read ${prefix}_ then 26 lowercase Crockford base32 characters`, () => {
      const id = createIdGenerator(new FrozenClock()).next(kind as IdKind);
      assert.match(id, new RegExp(`^${prefix}_[0-9abcdefghjkmnpqrstvwxyz]{26}$`));
    });
  }

  it('the first 10 characters encode the clock millisecond', () => {
    const clock = new FrozenClock(utc(2026, 3, 1, 8, 15, 30, 123));
    const id = createIdGenerator(clock).next('customer');
    assert.equal(idTime(id), clock.now());
  });

  const times: Array<[string, string, number]> = [
    ['an id gives back its millisecond', createIdGenerator(new FrozenClock(utc(2026, 11, 24, 12, 0, 0, 7))).next('auditEvent'), utc(2026, 11, 24, 12, 0, 0, 7)],
    ['a floor gives back its millisecond', idFloor('workspace', utc(2025, 1, 1)), utc(2025, 1, 1)],
    ['the epoch', idFloor('request', 0), 0],
    ['too short', 'evt_01ab', NaN],
    ['not base32 (u)', 'evt_01abcdefgu', NaN],
  ];
  for (const [name, id, ms] of times) it(`idTime: ${name}`, () => assert.equal(idTime(id), ms));

  it('1,000 ids made within one frozen millisecond strictly increase', () => {
    const clock = new FrozenClock();
    const gen = createIdGenerator(clock);
    const made = Array.from({ length: 1000 }, () => gen.next('auditEvent'));
    for (let i = 1; i < made.length; i++) assert.ok(made[i - 1]! < made[i]!, `${made[i - 1]} < ${made[i]}`);
    assert.equal(new Set(made).size, 1000);
  });

  it('ids strictly increase across milliseconds, whatever their random part', () => {
    const clock = new FrozenClock();
    const gen = createIdGenerator(clock);
    const made: string[] = [];
    for (let ms = 0; ms < 50; ms++) {
      for (let i = 0; i < 20; i++) made.push(gen.next('request'));
      clock.advance(1);
    }
    for (let i = 1; i < made.length; i++) assert.ok(made[i - 1]! < made[i]!, `${made[i - 1]} < ${made[i]}`);
  });

  it('two generators on one millisecond make different ids', () => {
    const clock = new FrozenClock();
    assert.notEqual(createIdGenerator(clock).next('product'), createIdGenerator(clock).next('product'));
  });
});

describe('money.isDecimalString', () => {
  const cases: [string, boolean][] = [
    ['0', true],
    ['10', true],
    ['-10', true],
    ['0.5', true],
    ['123.4500', true],
    ['-0.001', true],
    ['', false],
    ['.5', false],
    ['5.', false],
    ['01', false],
    ['+1', false],
    ['1e3', false],
    [' 1', false],
    ['1 ', false],
    ['1,5', false],
    ['1.2.3', false],
    ['NaN', false],
    ['Infinity', false],
    ['0x10', false],
    ['--1', false],
  ];
  for (const [value, ok] of cases) {
    it(`${JSON.stringify(value)} is ${ok ? '' : 'not '}a decimal string`, () => assert.equal(isDecimalString(value), ok));
  }

  it('money() refuses a string that is not a decimal', () => {
    assert.throws(() => money('1e3'), RangeError);
    assert.throws(() => money('abc'), RangeError);
  });
});

describe('money arithmetic and formatDecimal', () => {
  it("money('0.1') + money('0.2') is exactly '0.3'", () => {
    assert.equal(formatDecimal(money('0.1').plus(money('0.2'))), '0.3');
  });

  const formats: [string, string, string][] = [
    ['drops trailing zeros', '1.50', '1.5'],
    ['keeps an integer as is', '100', '100'],
    ['writes a tiny value without an exponent', '0.000000001', '0.000000001'],
    ['writes a huge value without an exponent, exactly', '123456789012345678901234567890.5', '123456789012345678901234567890.5'],
    ['keeps the sign', '-42.10', '-42.1'],
  ];
  for (const [rule, input, expected] of formats) {
    it(`formatDecimal ${rule}: ${input} -> ${expected}`, () => assert.equal(formatDecimal(money(input)), expected));
  }

  it('property: adding amounts in cents as decimal strings equals integer addition', () => {
    const cents = fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n });
    const asDecimal = (c: bigint) => {
      const sign = c < 0n ? '-' : '';
      const abs = c < 0n ? -c : c;
      const frac = (abs % 100n).toString().padStart(2, '0').replace(/0+$/, '');
      return `${sign}${abs / 100n}${frac ? `.${frac}` : ''}`;
    };
    fc.assert(
      fc.property(cents, cents, (a, b) => {
        const sum = formatDecimal(money(asDecimal(a)).plus(money(asDecimal(b))));
        assert.equal(sum, asDecimal(a + b));
      }),
    );
  });
});

describe("money.decimalAdd (SQLite's dec_add for usage sums)", () => {
  const cases: [string, string, string, string][] = [
    ['two small integers (the fast path)', '1', '2', '3'],
    ['largest fast-path operands stay exact', '999999999999999', '999999999999999', '1999999999999998'],
    ['sixteen digits take the decimal path and stay exact', '9007199254740993', '1', '9007199254740994'],
    ['fractions take the decimal path', '0.1', '0.2', '0.3'],
    ['an integer and a fraction', '1', '0.25', '1.25'],
    ['a negative integer', '-5', '3', '-2'],
    ['zero', '0', '0', '0'],
  ];
  for (const [rule, a, b, sum] of cases) it(rule, () => assert.equal(decimalAdd(a, b), sum));
  it('agrees with decimal arithmetic for any two integers below 1e15 (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999_999_999_999 }), fc.integer({ min: 0, max: 999_999_999_999_999 }), (a, b) => {
        assert.equal(decimalAdd(String(a), String(b)), money(String(a)).plus(String(b)).toFixed());
      }),
    );
  });
});

describe("money.ExactSum (the usage report's running sums)", () => {
  const cases: [string, string[], string][] = [
    ['nothing added is 0', [], '0'],
    ['whole quantities add as numbers', ['1', '2', '512'], '515'],
    ['a fraction switches to decimal and stays exact', ['1', '0.1', '0.2'], '1.3'],
    ['whole quantities after a fraction stay exact', ['0.5', '2', '3'], '5.5'],
    ['past 2^53 the sum stays exact', ['9007199254740991', '2'], '9007199254740993'],
    ['sixteen digits are read as decimal, not rounded by Number', ['9007199254740993', '1'], '9007199254740994'],
    ['a fraction Number would round to a whole number is kept', ['1.0000000000000001', '1'], '2.0000000000000001'],
  ];
  for (const [rule, texts, sum] of cases) {
    it(rule, () => {
      const s = new ExactSum();
      for (const t of texts) s.add(t);
      assert.equal(s.text(), sum);
    });
  }
});

describe('money.roundTo (half up, ties away from zero)', () => {
  const cases: [string, number, string][] = [
    ['2.345', 2, '2.35'],
    ['-2.345', 2, '-2.35'],
    ['2.344', 2, '2.34'],
    ['-2.344', 2, '-2.34'],
    ['2.5', 0, '3'],
    ['-2.5', 0, '-3'],
    ['0.005', 2, '0.01'],
    ['1.999', 2, '2'],
    ['1.2', 2, '1.2'],
    ['0.123456789', 6, '0.123457'],
  ];
  for (const [value, digits, expected] of cases) {
    it(`${value} to ${digits} digits is ${expected}`, () => assert.equal(formatDecimal(roundTo(money(value), digits)), expected));
  }
});

describe('findJsonProblem', () => {
  const levels = (n: number): unknown => JSON.parse('['.repeat(n) + ']'.repeat(n));
  const cases: Array<[string, unknown, ReturnType<typeof findJsonProblem>]> = [
    ['a plain batch', { events: [{ customerId: 'c', metadata: { a: 'b' } }] }, null],
    [`${MAX_JSON_DEPTH} levels`, levels(MAX_JSON_DEPTH), null],
    [`${MAX_JSON_DEPTH + 1} levels`, levels(MAX_JSON_DEPTH + 1), { kind: 'too_deep' }],
    ['100,000 levels, without overflowing', levels(100_000), { kind: 'too_deep' }],
    ['NUL in a top-level string', { name: 'a\u0000' }, { kind: 'nul_in_value', field: 'body.name' }],
    ['NUL in an array item', { tags: ['ok', 'b\u0000'] }, { kind: 'nul_in_value', field: 'body.tags.1' }],
    ['NUL in a nested key names its object', { metadata: { 'k\u0000': 'v' } }, { kind: 'nul_in_key', field: 'body.metadata' }],
    ['the first NUL in document order', { a: { b: 'x\u0000' }, c: '\u0000' }, { kind: 'nul_in_value', field: 'body.a.b' }],
    ['a long key is cut in the field name', { ['k'.repeat(100)]: '\u0000' }, { kind: 'nul_in_value', field: `body.${'k'.repeat(40)}…` }],
    ['a string body', '\u0000', { kind: 'nul_in_value', field: 'body' }],
    ['numbers, booleans and null', { a: 1, b: [true, null, 2.5] }, null],
  ];
  for (const [rule, value, expected] of cases) it(rule, () => assert.deepEqual(findJsonProblem(value, 'body'), expected));
});

describe('stableStringify', () => {
  it('gives the same text whatever the key order, at every depth', () => {
    assert.equal(stableStringify({ b: 1, a: { d: [1, 2], c: 'x' } }), stableStringify({ a: { c: 'x', d: [1, 2] }, b: 1 }));
    assert.equal(stableStringify({ b: 1, a: 2 }), '{"a":2,"b":1}');
  });

  it('drops undefined properties, as JSON does', () => {
    assert.equal(stableStringify({ a: 1, b: undefined }), stableStringify({ a: 1 }));
    assert.equal(stableStringify({ a: 1, b: undefined }), '{"a":1}');
  });

  it('writes a 100,000-deep value without overflowing the stack (it fingerprints request bodies)', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    assert.equal(stableStringify(deep), '['.repeat(100_000) + ']'.repeat(100_000));
    let nested: unknown = 1;
    for (let i = 0; i < 100_000; i++) nested = { b: nested, a: i % 2 === 0 ? null : 'x' };
    assert.ok(stableStringify(nested).startsWith('{"a":"x","b":{"a":null,"b":{"a":"x",'));
  });

  it('reads back as the value it wrote, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        assert.deepEqual(JSON.parse(stableStringify(v)), JSON.parse(JSON.stringify(v)));
      }),
      { seed: 14, numRuns: 300 },
    );
  });

  it('keeps array order, and writes undefined in an array as null, as JSON does', () => {
    assert.notEqual(stableStringify([1, 2]), stableStringify([2, 1]));
    assert.equal(stableStringify([3, 1, 2]), '[3,1,2]');
    assert.equal(stableStringify([1, undefined]), '[1,null]');
  });

  it('writes scalars as JSON does', () => {
    const cases: [unknown, string][] = [
      [null, 'null'],
      [undefined, 'null'],
      ['a"b', '"a\\"b"'],
      [1.5, '1.5'],
      [true, 'true'],
    ];
    for (const [value, expected] of cases) assert.equal(stableStringify(value), expected);
  });

  it('property: reversing key order never changes the text, which parses back to the same keys', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        const text = stableStringify(obj);
        assert.equal(stableStringify(reversed), text);
        assert.deepEqual(Object.keys(JSON.parse(text)).sort(), Object.keys(obj).sort());
      }),
    );
  });
});

describe('TtlCache', () => {
  it('returns a value until its TTL has passed on the frozen clock, then nothing', () => {
    const clock = new FrozenClock();
    const cache = new TtlCache<string>(clock, 1000);
    cache.set('k', 'v', cache.generation);
    assert.equal(cache.get('k'), 'v');
    clock.advance(999);
    assert.equal(cache.get('k'), 'v');
    clock.advance(1);
    assert.equal(cache.get('k'), undefined);
  });

  it('clear() drops every entry, and a set carrying the generation read before it is ignored', () => {
    const clock = new FrozenClock();
    const cache = new TtlCache<string>(clock, 60_000);
    cache.set('a', 'old', cache.generation);
    const before = cache.generation; // a slow lookup starts here...
    cache.clear(); // ...a revocation happens...
    assert.equal(cache.get('a'), undefined);
    cache.set('b', 'stale', before); // ...and its result arrives late.
    assert.equal(cache.get('b'), undefined);
    cache.set('b', 'fresh', cache.generation);
    assert.equal(cache.get('b'), 'fresh');
  });

  it('at its size bound, evicts the oldest entry to make room', () => {
    const clock = new FrozenClock();
    const cache = new TtlCache<number>(clock, 60_000, 3);
    for (const [i, k] of ['a', 'b', 'c', 'd'].entries()) cache.set(k, i, cache.generation);
    assert.equal(cache.get('a'), undefined);
    assert.equal(cache.get('b'), 1);
    assert.equal(cache.get('c'), 2);
    assert.equal(cache.get('d'), 3);
  });

  it('stores nothing with a TTL of 0', () => {
    const cache = new TtlCache<string>(new FrozenClock(), 0);
    cache.set('k', 'v', cache.generation);
    assert.equal(cache.get('k'), undefined);
  });

  it('counts hits and misses (an expired entry is a miss), for tollgate_cache_*_total', () => {
    const clock = new FrozenClock();
    const cache = new TtlCache<string>(clock, 1000);
    cache.get('k');
    cache.set('k', 'v', cache.generation);
    cache.get('k');
    cache.get('k');
    clock.advance(1000);
    cache.get('k');
    assert.deepEqual({ hits: cache.hits, misses: cache.misses }, { hits: 2, misses: 2 });
  });
});

describe('loadConfig: metrics and tracing', () => {
  it('METRICS_TOKEN unset leaves /metrics open; set, it must be 16 to 512 printable characters', () => {
    assert.equal(loadConfig({}).metricsToken, null);
    assert.equal(loadConfig({ METRICS_TOKEN: 'x'.repeat(16) }).metricsToken, 'x'.repeat(16));
    assert.throws(() => loadConfig({ METRICS_TOKEN: 'short' }), ConfigError);
    assert.throws(() => loadConfig({ METRICS_TOKEN: 'has a space in it, sixteen+' }), ConfigError);
  });

  it('TOLLGATE_TRACING is off by default, otlp when asked, and nothing else', () => {
    assert.equal(loadConfig({}).tracing, 'off');
    assert.equal(loadConfig({ TOLLGATE_TRACING: 'otlp' }).tracing, 'otlp');
    assert.throws(() => loadConfig({ TOLLGATE_TRACING: 'jaeger' }), /TOLLGATE_TRACING must be off or otlp/);
  });

  it('TOLLGATE_NODE_NAME names the node, the host name otherwise', () => {
    assert.equal(loadConfig({ TOLLGATE_NODE_NAME: 'node-a' }).nodeName, 'node-a');
    assert.equal(loadConfig({}).nodeName, hostname());
  });
});

describe('createMemoryRateLimiter', () => {
  const LIMIT = 300;
  const WINDOW = 60_000;

  it('the first hit opens a 60 s window with limit - 1 remaining', async () => {
    const clock = new FrozenClock();
    const limiter = createMemoryRateLimiter(clock);
    assert.deepEqual(await limiter.hit('ws:a', LIMIT, WINDOW), { allowed: true, limit: LIMIT, remaining: 299, resetAt: clock.now() + WINDOW });
  });

  it('allows 300 hits within the window and refuses the 301st with remaining 0', async () => {
    const clock = new FrozenClock();
    const limiter = createMemoryRateLimiter(clock);
    const opened = clock.now();
    for (let i = 1; i <= LIMIT; i++) {
      const r = await limiter.hit('ws:a', LIMIT, WINDOW);
      assert.equal(r.allowed, true, `hit ${i}`);
      assert.equal(r.remaining, LIMIT - i);
      if (i === 150) clock.advance(WINDOW / 2);
    }
    clock.advance(WINDOW / 2 - 1); // the last millisecond of the window
    const refused = await limiter.hit('ws:a', LIMIT, WINDOW);
    assert.equal(refused.allowed, false);
    assert.equal(refused.remaining, 0);
    assert.equal(refused.resetAt, opened + WINDOW);
  });

  it('a hit at or after resetAt opens a new window', async () => {
    const clock = new FrozenClock();
    const limiter = createMemoryRateLimiter(clock);
    const first = await limiter.hit('ws:a', 2, WINDOW);
    await limiter.hit('ws:a', 2, WINDOW);
    assert.equal((await limiter.hit('ws:a', 2, WINDOW)).allowed, false);
    clock.set(first.resetAt);
    const reopened = await limiter.hit('ws:a', 2, WINDOW);
    assert.deepEqual(reopened, { allowed: true, limit: 2, remaining: 1, resetAt: first.resetAt + WINDOW });
  });

  it('counts each bucket on its own', async () => {
    const limiter = createMemoryRateLimiter(new FrozenClock());
    await limiter.hit('ws:a', 1, WINDOW);
    assert.equal((await limiter.hit('ws:a', 1, WINDOW)).allowed, false);
    assert.equal((await limiter.hit('ws:b', 1, WINDOW)).allowed, true);
  });
});

describe('describeValidationErrors', () => {
  const err = (keyword: string, instancePath: string, params: Record<string, unknown>, message?: string): ErrorObject =>
    ({ keyword, instancePath, schemaPath: `#/${keyword}`, params, message }) as ErrorObject;

  const cases: [string, string, ErrorObject, { field: string; message: string }][] = [
    [
      'required names the missing property',
      'body',
      err('required', '', { missingProperty: 'name' }),
      { field: 'body.name', message: 'body.name is required.' },
    ],
    [
      'required inside an object names the full path',
      'body',
      err('required', '/customer', { missingProperty: 'id' }),
      { field: 'body.customer.id', message: 'body.customer.id is required.' },
    ],
    [
      'additionalProperties names the unknown field',
      'body',
      err('additionalProperties', '', { additionalProperty: 'kind' }),
      { field: 'body.kind', message: 'body.kind is not a known field.' },
    ],
    [
      'enum lists the allowed values',
      'body',
      err('enum', '/kind', { allowedValues: ['STANDARD_API', 'AI_AGENT'] }),
      { field: 'body.kind', message: 'body.kind must be one of STANDARD_API, AI_AGENT.' },
    ],
    ['type names the expected type', 'body', err('type', '/name', { type: 'string' }), { field: 'body.name', message: 'body.name must be of type string.' }],
    ['format names the format', 'body', err('format', '/email', { format: 'email' }), { field: 'body.email', message: 'body.email must be a valid email.' }],
    [
      'maxLength gives the limit',
      'body',
      err('maxLength', '/name', { limit: 200 }),
      { field: 'body.name', message: 'body.name must be at most 200 characters long.' },
    ],
    [
      'a query string is named query',
      'querystring',
      err('maximum', '/limit', { comparison: '<=', limit: 100 }),
      { field: 'query.limit', message: 'query.limit must be <= 100.' },
    ],
    ['path parameters are named path', 'params', err('minLength', '/id', { limit: 1 }), { field: 'path.id', message: 'path.id must not be empty.' }],
    [
      'JSON pointer escapes are undone in the field',
      'body',
      err('maxLength', '/metadata/a~1b~0c', { limit: 500 }),
      { field: 'body.metadata.a/b~c', message: 'body.metadata.a/b~c must be at most 500 characters long.' },
    ],
  ];
  for (const [rule, part, e, expected] of cases) {
    it(rule, () => assert.deepEqual(describeValidationErrors(part, [e]), [{ code: 'VALIDATION_FAILED', ...expected }]));
  }

  it('a union of literals gives one error listing every allowed value', () => {
    const kinds = ['STANDARD_API', 'AGENTIC_API', 'AI_AGENT', 'MCP_SERVER'];
    const errors = [...kinds.map((k) => err('const', '/kind', { allowedValue: k })), err('anyOf', '/kind', {})];
    assert.deepEqual(describeValidationErrors('body', errors), [
      { code: 'VALIDATION_FAILED', field: 'body.kind', message: 'body.kind must be one of STANDARD_API, AGENTIC_API, AI_AGENT, MCP_SERVER.' },
    ]);
  });

  it('reports every field at once, each once', () => {
    const errors = [err('type', '/name', { type: 'string' }), err('type', '/name', { type: 'string' }), err('format', '/email', { format: 'email' })];
    assert.deepEqual(
      describeValidationErrors('body', errors).map((d) => d.field),
      ['body.name', 'body.email'],
    );
  });

  it('an unknown keyword falls back to ajv’s own message', () => {
    assert.deepEqual(describeValidationErrors('body', [err('multipleOf', '/n', { multipleOf: 2 }, 'must be multiple of 2')]), [
      { code: 'VALIDATION_FAILED', field: 'body.n', message: 'body.n must be multiple of 2.' },
    ]);
  });

  it('with no usable error, still says which part of the request is invalid', () => {
    assert.deepEqual(describeValidationErrors('body', []), [{ code: 'VALIDATION_FAILED', message: 'The request body is invalid.' }]);
  });
});
