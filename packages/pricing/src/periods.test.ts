import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { roundToMinorUnit } from './currency.js';
import {
  addMonthsClamped,
  billingIntervals,
  comparePerMonth,
  monthsPerPeriod,
  nthPeriod,
  periodAlignments,
  periodContaining,
  periodFraction,
  periodsEndingBetween,
  prorate,
  type BillingInterval,
  type BillingSchedule,
  type PeriodAlignment,
} from './periods.js';

const ms = (iso: string) => Date.parse(iso);
const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
const schedule = (start: string, interval: BillingInterval, alignment: PeriodAlignment = 'anniversary'): BillingSchedule => ({
  start: ms(start),
  interval,
  alignment,
});
/** The first n periods as [start, end) ISO pairs. */
const firstPeriods = (s: BillingSchedule, n: number) => Array.from({ length: n }, (_, i) => nthPeriod(s, i)).map((p) => [iso(p.start), iso(p.end)]);

describe('addMonthsClamped', () => {
  const cases: Array<[string, number, string]> = [
    ['2026-01-31T12:00:00.000Z', 1, '2026-02-28T12:00:00.000Z'],
    ['2028-01-31T12:00:00.000Z', 1, '2028-02-29T12:00:00.000Z'],
    ['2026-01-31T12:00:00.000Z', 2, '2026-03-31T12:00:00.000Z'],
    ['2026-01-31T23:59:59.999Z', 3, '2026-04-30T23:59:59.999Z'],
    ['2026-03-31T00:00:00.000Z', -1, '2026-02-28T00:00:00.000Z'],
    ['2026-12-15T08:30:00.000Z', 1, '2027-01-15T08:30:00.000Z'],
    ['2028-02-29T00:00:00.000Z', 12, '2029-02-28T00:00:00.000Z'],
    ['2028-02-29T00:00:00.000Z', 48, '2032-02-29T00:00:00.000Z'],
    ['2026-05-10T00:00:00.000Z', 0, '2026-05-10T00:00:00.000Z'],
  ];
  for (const [from, months, to] of cases) {
    it(`${from} + ${months} months = ${to}`, () => assert.equal(iso(addMonthsClamped(ms(from), months)), to));
  }
});

describe('anniversary periods', () => {
  it('a month-end anchor lands on the last day of shorter months and returns to the 31st', () => {
    assert.deepEqual(firstPeriods(schedule('2026-01-31T12:00:00.000Z', 'MONTHLY'), 4), [
      ['2026-01-31T12:00:00.000Z', '2026-02-28T12:00:00.000Z'],
      ['2026-02-28T12:00:00.000Z', '2026-03-31T12:00:00.000Z'],
      ['2026-03-31T12:00:00.000Z', '2026-04-30T12:00:00.000Z'],
      ['2026-04-30T12:00:00.000Z', '2026-05-31T12:00:00.000Z'],
    ]);
  });

  it('quarters and years count from the start, at its time of day', () => {
    assert.deepEqual(firstPeriods(schedule('2026-08-31T09:15:00.000Z', 'QUARTERLY'), 3), [
      ['2026-08-31T09:15:00.000Z', '2026-11-30T09:15:00.000Z'],
      ['2026-11-30T09:15:00.000Z', '2027-02-28T09:15:00.000Z'],
      ['2027-02-28T09:15:00.000Z', '2027-05-31T09:15:00.000Z'],
    ]);
    assert.deepEqual(firstPeriods(schedule('2028-02-29T00:00:00.000Z', 'ANNUAL'), 2), [
      ['2028-02-29T00:00:00.000Z', '2029-02-28T00:00:00.000Z'],
      ['2029-02-28T00:00:00.000Z', '2030-02-28T00:00:00.000Z'],
    ]);
  });

  it('every period is whole: its fraction is 1/1', () => {
    assert.deepEqual(periodFraction(nthPeriod(schedule('2026-01-31T12:00:00.000Z', 'MONTHLY'), 1)), { numerator: 1, denominator: 1 });
  });
});

describe('calendar-aligned periods', () => {
  it('a start between boundaries gets a partial first period, prorated by its share of the month', () => {
    const s = schedule('2026-04-11T00:00:00.000Z', 'MONTHLY', 'calendar');
    assert.deepEqual(firstPeriods(s, 3), [
      ['2026-04-11T00:00:00.000Z', '2026-05-01T00:00:00.000Z'],
      ['2026-05-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z'],
      ['2026-06-01T00:00:00.000Z', '2026-07-01T00:00:00.000Z'],
    ]);
    const first = nthPeriod(s, 0);
    assert.equal(iso(first.fullStart), '2026-04-01T00:00:00.000Z');
    // 20 of April's 30 days.
    const f = periodFraction(first);
    assert.equal((f.numerator / f.denominator).toFixed(6), (20 / 30).toFixed(6));
    assert.deepEqual(periodFraction(nthPeriod(s, 1)), { numerator: 1, denominator: 1 });
  });

  it('a start on a boundary gets a whole first period', () => {
    const s = schedule('2026-07-01T00:00:00.000Z', 'QUARTERLY', 'calendar');
    assert.deepEqual(firstPeriods(s, 2), [
      ['2026-07-01T00:00:00.000Z', '2026-10-01T00:00:00.000Z'],
      ['2026-10-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ]);
    assert.deepEqual(periodFraction(nthPeriod(s, 0)), { numerator: 1, denominator: 1 });
  });

  it('quarters start in January, April, July and October; years on January 1st', () => {
    assert.deepEqual(firstPeriods(schedule('2026-05-20T10:00:00.000Z', 'QUARTERLY', 'calendar'), 2), [
      ['2026-05-20T10:00:00.000Z', '2026-07-01T00:00:00.000Z'],
      ['2026-07-01T00:00:00.000Z', '2026-10-01T00:00:00.000Z'],
    ]);
    assert.deepEqual(firstPeriods(schedule('2026-05-20T10:00:00.000Z', 'ANNUAL', 'calendar'), 2), [
      ['2026-05-20T10:00:00.000Z', '2027-01-01T00:00:00.000Z'],
      ['2027-01-01T00:00:00.000Z', '2028-01-01T00:00:00.000Z'],
    ]);
  });
});

describe('prorate: a partial period’s share of a per-period amount, rounded once by the line', () => {
  // 20 of April's 30 days; 20 of March's 31; a third.
  const april = { numerator: 20 * 86_400_000, denominator: 30 * 86_400_000 };
  const march = { numerator: 20 * 86_400_000, denominator: 31 * 86_400_000 };
  const cases: Array<[string, { numerator: number; denominator: number }, string, string]> = [
    ['30.00', april, 'USD', '20.00'],
    ['10.00', { numerator: 1, denominator: 3 }, 'USD', '3.33'],
    ['20.00', { numerator: 2, denominator: 3 }, 'USD', '13.33'],
    ['1000', march, 'JPY', '645'],
    ['12.345', march, 'KWD', '7.965'],
    ['49.99', { numerator: 1, denominator: 1 }, 'EUR', '49.99'],
    ['49.99', { numerator: 0, denominator: 5 }, 'EUR', '0.00'],
  ];
  for (const [amount, fraction, currency, line] of cases) {
    it(`${amount} ${currency} × ${fraction.numerator}/${fraction.denominator} = ${line}`, () =>
      assert.equal(roundToMinorUnit(prorate(amount, fraction), currency), line));
  }
  it('an impossible fraction is refused', () => {
    assert.throws(() => prorate('1', { numerator: 1, denominator: 0 }), /denominator above 0/);
    assert.throws(() => prorate('1', { numerator: 0.5, denominator: 2 }), /whole numbers/);
  });
});

describe('comparePerMonth: per-period amounts on one scale, exactly', () => {
  const cases: Array<[string, BillingInterval, string, BillingInterval, number | null]> = [
    ['10.00', 'MONTHLY', '120.00', 'ANNUAL', 0],
    ['30', 'QUARTERLY', '10', 'MONTHLY', 0],
    ['9.99', 'MONTHLY', '120.00', 'ANNUAL', -1],
    ['110.00', 'ANNUAL', '30.00', 'QUARTERLY', -1],
    ['10', 'QUARTERLY', '3.' + '3'.repeat(39), 'MONTHLY', 1],
    ['10', 'MONTHLY', '99', 'ONE_TIME', null],
    ['99', 'ONE_TIME', '99', 'ONE_TIME', null],
  ];
  for (const [a, ia, b, ib, order] of cases) {
    it(`${a} ${ia} against ${b} ${ib}: ${order ?? 'not comparable'}`, () =>
      assert.equal(comparePerMonth({ amount: a, interval: ia }, { amount: b, interval: ib }), order));
  }
  it('months per period: 1, 3, 12, and none for ONE_TIME', () => {
    assert.deepEqual(billingIntervals.map(monthsPerPeriod), [1, 3, 12, null]);
  });
});

describe('ONE_TIME', () => {
  const s = schedule('2026-03-05T00:00:00.000Z', 'ONE_TIME');
  it('has one period that never ends, never renews and is never prorated', () => {
    assert.deepEqual(nthPeriod(s, 0), { index: 0, start: s.start, end: null, fullStart: s.start, fullEnd: null });
    assert.throws(() => nthPeriod(s, 1), /one period only/);
    assert.equal(periodContaining(s, ms('2099-01-01T00:00:00.000Z'))?.index, 0);
    assert.deepEqual(periodsEndingBetween(s, s.start, ms('2099-01-01T00:00:00.000Z')), []);
    assert.deepEqual(periodFraction(nthPeriod(s, 0)), { numerator: 1, denominator: 1 });
  });
});

describe('periodContaining', () => {
  const s = schedule('2026-01-31T12:00:00.000Z', 'MONTHLY');
  const cases: Array<[string, number | null]> = [
    ['2026-01-31T11:59:59.999Z', null],
    ['2026-01-31T12:00:00.000Z', 0],
    ['2026-02-28T11:59:59.999Z', 0],
    ['2026-02-28T12:00:00.000Z', 1],
    ['2026-03-31T11:59:59.999Z', 1],
    ['2026-03-31T12:00:00.000Z', 2],
    ['2027-01-31T12:00:00.000Z', 12],
  ];
  for (const [at, index] of cases) {
    it(`${at} is in period ${index ?? 'none'} (the end is exclusive, to the millisecond)`, () =>
      assert.equal(periodContaining(s, ms(at))?.index ?? null, index));
  }
});

describe('periodsEndingBetween: what a renewal job closes', () => {
  const s = schedule('2026-01-31T12:00:00.000Z', 'MONTHLY');
  it('three missed periods give three, in order; the next run with consecutive bounds gives none again', () => {
    const upTo = ms('2026-05-01T00:00:00.000Z');
    const closed = periodsEndingBetween(s, s.start, upTo);
    assert.deepEqual(
      closed.map((p) => [p.index, iso(p.end)]),
      [
        [0, '2026-02-28T12:00:00.000Z'],
        [1, '2026-03-31T12:00:00.000Z'],
        [2, '2026-04-30T12:00:00.000Z'],
      ],
    );
    assert.deepEqual(periodsEndingBetween(s, upTo, ms('2026-05-30T00:00:00.000Z')), []);
    assert.deepEqual(
      periodsEndingBetween(s, upTo, ms('2026-05-31T12:00:00.000Z')).map((p) => p.index),
      [3],
    );
  });

  it('a period ending exactly at `after` was closed by the previous run', () => {
    const end0 = nthPeriod(s, 0).end!;
    assert.deepEqual(
      periodsEndingBetween(s, end0, nthPeriod(s, 1).end!).map((p) => p.index),
      [1],
    );
    assert.deepEqual(periodsEndingBetween(s, end0, end0), []);
  });
});

describe('invalid schedules are refused, naming the problem', () => {
  it('an unknown interval, an unknown alignment, a bad start or a bad index', () => {
    assert.throws(() => nthPeriod({ start: 0, interval: 'WEEKLY' as BillingInterval, alignment: 'anniversary' }, 0), /billing interval WEEKLY/);
    assert.throws(() => nthPeriod({ start: 0, interval: 'MONTHLY', alignment: 'fiscal' as PeriodAlignment }, 0), /alignment fiscal/);
    assert.throws(() => nthPeriod({ start: 1.5, interval: 'MONTHLY', alignment: 'anniversary' }, 0), /epoch milliseconds/);
    assert.throws(() => nthPeriod(schedule('2026-01-01T00:00:00.000Z', 'MONTHLY'), -1), /index/);
  });
});

describe('properties', () => {
  const RUNS = { numRuns: 300 };
  // 1970 to 2100, any millisecond.
  const instant = fc.integer({ min: 0, max: Date.UTC(2100, 0, 1) });
  const recurring = fc.constantFrom(...billingIntervals.filter((i) => i !== 'ONE_TIME'));
  const alignment = fc.constantFrom(...periodAlignments);

  it('periods tile time: each ends where the next starts, and every instant after the start is in exactly the one periodContaining names', () => {
    fc.assert(
      fc.property(instant, recurring, alignment, fc.integer({ min: 0, max: 400 * 86_400_000 * 3 }), (start, interval, align, offset) => {
        const s: BillingSchedule = { start, interval, alignment: align };
        const t = start + offset;
        const p = periodContaining(s, t)!;
        assert.ok(p.start <= t && t < p.end!, `${iso(t)} outside [${iso(p.start)}, ${iso(p.end)})`);
        assert.deepEqual(p, nthPeriod(s, p.index));
        if (p.index > 0) assert.equal(nthPeriod(s, p.index - 1).end, p.start);
        assert.equal(nthPeriod(s, p.index + 1).start, p.end);
      }),
      RUNS,
    );
  });

  it('anniversary periods start on the anchor day, or the last day of a shorter month, at the anchor time', () => {
    fc.assert(
      fc.property(instant, recurring, fc.integer({ min: 0, max: 60 }), (start, interval, k) => {
        const p = nthPeriod({ start, interval, alignment: 'anniversary' }, k);
        const a = new Date(start);
        const d = new Date(p.start);
        const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
        assert.equal(d.getUTCDate(), Math.min(a.getUTCDate(), lastDay));
        assert.equal(p.start % 86_400_000, start % 86_400_000);
        assert.deepEqual(periodFraction(p), { numerator: 1, denominator: 1 });
      }),
      RUNS,
    );
  });

  it('a renewal job run in any steps closes every period once, in order', () => {
    fc.assert(
      fc.property(
        instant,
        recurring,
        alignment,
        fc.array(fc.integer({ min: 0, max: 200 * 86_400_000 }), { minLength: 1, maxLength: 8 }),
        (start, interval, align, steps) => {
          const s: BillingSchedule = { start, interval, alignment: align };
          let at = start;
          const closed: number[] = [];
          for (const step of steps) {
            const next = at + step;
            closed.push(...periodsEndingBetween(s, at, next).map((p) => p.index));
            at = next;
          }
          const inOneGo = periodsEndingBetween(s, start, at).map((p) => p.index);
          assert.deepEqual(closed, inOneGo);
          assert.deepEqual(
            inOneGo,
            inOneGo.map((_, i) => i),
          );
        },
      ),
      RUNS,
    );
  });
});
