import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal } from './decimal.js';
import { burnDown, chargesOverTime, drawOrder, type BurnCharge, type BurnGrant } from './burn-down.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 11, 1);
const day = (n: number) => T0 + n * DAY;

/** A grant with the defaults a case does not care about: priority 0, effective at T0, never expires, any subscription and metric. */
function grant(id: string, remaining: string, over: Partial<BurnGrant> = {}): BurnGrant {
  return { id, remaining, priority: 0, effectiveAt: T0, expiresAt: null, createdAt: T0, subscriptionId: null, metricNames: null, ...over };
}
function charge(at: number, amount: string, over: Partial<BurnCharge> = {}): BurnCharge {
  return { at, amount, subscriptionId: 'sub_1', metricName: 'tokens', ...over };
}
const draws = (r: ReturnType<typeof burnDown>) => r.draws.map((d) => `${d.grantId} ${d.charge} ${d.amount}`);

describe('burnDown: cases computed by hand', () => {
  it('two grants of different priority and expiry, one period of usage', () => {
    // B (priority 0) is drawn before A (priority 1) whatever their expiries; A expires on day 20.
    const r = burnDown(
      'USD',
      [grant('A', '10.00', { priority: 1, expiresAt: day(20) }), grant('B', '25.00')],
      [charge(day(1), '12.00'), charge(day(10), '20.00'), charge(day(25), '5.00')],
    );
    // Day 1: B pays 12.00 (13.00 left). Day 10: B pays its 13.00, A pays 7.00 (3.00 left).
    // Day 25: A has expired and B is empty, so 5.00 is uncovered.
    assert.deepEqual(draws(r), ['B 0 12.00', 'B 1 13.00', 'A 1 7.00']);
    assert.deepEqual(Object.fromEntries(r.remaining), { A: '3.00', B: '0.00' });
    assert.deepEqual(r.uncovered, ['0.00', '0.00', '5.00']);
    assert.equal(r.overage, '5.00');
    assert.equal(r.drawn, '32.00');
  });

  it('at one priority: the soonest expiry first, then the oldest, then the id', () => {
    const r = burnDown(
      'USD',
      [
        grant('Q', '5.00', { createdAt: day(3) }),
        grant('P', '5.00', { expiresAt: day(30), createdAt: day(5) }),
        grant('R', '5.00', { createdAt: day(1) }),
        grant('S', '5.00', { createdAt: day(1) }),
      ],
      [charge(day(6), '17.50')],
    );
    // P expires; R and S are older than Q, and R's id sorts before S's.
    assert.deepEqual(draws(r), ['P 0 5.00', 'R 0 5.00', 'S 0 5.00', 'Q 0 2.50']);
    assert.equal(r.remaining.get('Q'), '2.50');
    assert.equal(r.overage, '0.00');
  });

  it('a grant expiring in the middle of a period: usage before the instant draws from it, from the instant on it does not', () => {
    const noon = day(15) + DAY / 2;
    const r = burnDown('USD', [grant('E', '10.00', { expiresAt: noon })], [charge(noon - 1, '4.00'), charge(noon, '4.00'), charge(noon + DAY, '1.00')]);
    assert.deepEqual(draws(r), ['E 0 4.00']);
    assert.deepEqual(r.uncovered, ['0.00', '4.00', '1.00']);
    assert.equal(r.remaining.get('E'), '6.00');
  });

  it('a grant not yet effective pays nothing before its instant, and from it on', () => {
    const r = burnDown('USD', [grant('F', '3.00', { effectiveAt: day(10) })], [charge(day(10) - 1, '1.00'), charge(day(10), '1.00')]);
    assert.deepEqual(draws(r), ['F 1 1.00']);
    assert.deepEqual(r.uncovered, ['1.00', '0.00']);
  });

  it('a grant limited to one subscription or to some metrics pays only for those', () => {
    const r = burnDown(
      'EUR',
      [grant('SUB2', '100.00', { subscriptionId: 'sub_2' }), grant('CALLS', '100.00', { metricNames: ['calls', 'searches'] })],
      [charge(day(1), '3.00'), charge(day(2), '2.00', { subscriptionId: 'sub_2' }), charge(day(3), '1.50', { metricName: 'calls' })],
    );
    // Both grants are priority 0 and never expire: SUB2 is drawn before CALLS by id only where both apply.
    assert.deepEqual(draws(r), ['SUB2 1 2.00', 'CALLS 2 1.50']);
    assert.deepEqual(r.uncovered, ['3.00', '0.00', '0.00']);
  });

  it('charges given out of time order are paid in time order, and reported by their index', () => {
    const r = burnDown('USD', [grant('G', '5.00')], [charge(day(9), '4.00'), charge(day(2), '3.00')]);
    // Day 2 comes first and takes 3.00; day 9 gets the 2.00 left.
    assert.deepEqual(draws(r), ['G 1 3.00', 'G 0 2.00']);
    assert.deepEqual(r.uncovered, ['2.00', '0.00']);
  });

  it('JPY has no minor unit: whole yen throughout', () => {
    const r = burnDown('JPY', [grant('Y', '1000')], [charge(day(1), '300'), charge(day(2), '800')]);
    assert.deepEqual(draws(r), ['Y 0 300', 'Y 1 700']);
    assert.deepEqual(r.uncovered, ['0', '100']);
    assert.equal(r.remaining.get('Y'), '0');
  });

  it('KWD has three decimals: fils are exact', () => {
    const r = burnDown('KWD', [grant('K', '1.25')], [charge(day(1), '0.125'), charge(day(2), '1.2')]);
    assert.deepEqual(draws(r), ['K 0 0.125', 'K 1 1.125']);
    assert.deepEqual(r.uncovered, ['0.000', '0.075']);
    assert.equal(r.drawn, '1.250');
  });

  it('sums past 2^53 minor units stay exact', () => {
    const r = burnDown('USD', [grant('BIG', '90071992547409.93')], [charge(day(1), '90071992547409.91'), charge(day(2), '0.05')]);
    assert.deepEqual(draws(r), ['BIG 0 90071992547409.91', 'BIG 1 0.02']);
    assert.deepEqual(r.uncovered, ['0.00', '0.03']);
  });

  it('no grants, no charges, empty grants, zero charges', () => {
    assert.deepEqual(burnDown('USD', [], []), { draws: [], remaining: new Map(), uncovered: [], overage: '0.00', drawn: '0.00' });
    const r = burnDown('USD', [grant('Z', '0')], [charge(day(1), '0'), charge(day(1), '1')]);
    assert.deepEqual(r.draws, []);
    assert.deepEqual(r.uncovered, ['0.00', '1.00']);
    assert.equal(r.remaining.get('Z'), '0.00');
  });
});

describe('burnDown: what it refuses', () => {
  const cases: Array<[string, () => unknown, RegExp]> = [
    ['an unknown currency', () => burnDown('XAU', [], []), /currency/],
    ['a negative grant', () => burnDown('USD', [grant('N', '-1.00')], []), /grant N: remaining must be a decimal amount of at least 0/],
    ['a grant finer than cents', () => burnDown('USD', [grant('C', '1.005')], []), /grant C: remaining has more decimals than USD's minor unit \(2\)/],
    ['a fraction of a yen', () => burnDown('JPY', [], [charge(day(1), '1.5')]), /charge 0: amount has more decimals than JPY's minor unit \(0\)/],
    ['an amount that is not decimal text', () => burnDown('USD', [], [charge(day(1), '1e3')]), /charge 0: amount must be a decimal amount/],
    ['a grant given twice', () => burnDown('USD', [grant('D', '1'), grant('D', '2')], []), /grant D is given twice/],
    [
      'an expiry at or before the effective instant',
      () => burnDown('USD', [grant('X', '1', { effectiveAt: day(2), expiresAt: day(2) })], []),
      /grant X: expiresAt must be after effectiveAt/,
    ],
  ];
  for (const [what, run, message] of cases) it(what, () => assert.throws(run, (e: unknown) => e instanceof RangeError && message.test(e.message)));
});

describe('drawOrder', () => {
  const cases: Array<[string, Partial<BurnGrant>, Partial<BurnGrant>, -1 | 1]> = [
    ['a lower priority number first', { priority: 0 }, { priority: 1 }, -1],
    ['priority before expiry', { priority: 1, expiresAt: day(1) }, { priority: 0 }, 1],
    ['the soonest expiry first', { expiresAt: day(1) }, { expiresAt: day(2) }, -1],
    ['an expiring grant before one that never expires', { expiresAt: day(100) }, { expiresAt: null }, -1],
    ['then the oldest', { createdAt: day(1) }, { createdAt: day(0) }, 1],
    ['then the id', { id: 'a' }, { id: 'b' }, -1],
  ];
  for (const [what, a, b, sign] of cases)
    it(what, () => {
      assert.equal(Math.sign(drawOrder(grant('g1', '1', a), grant('g2', '1', b))), sign);
      assert.equal(Math.sign(drawOrder(grant('g2', '1', b), grant('g1', '1', a))), -sign);
    });
});

describe('chargesOverTime', () => {
  const cases: Array<[string, string, string[], string[]]> = [
    ['a total that only grows: each slice is charged its growth', 'USD', ['1.00', '1.00', '3.50', '4.00'], ['1.00', '0.00', '2.50', '0.50']],
    ['no usage yet, then some', 'USD', ['0.00', '0.00', '2.00'], ['0.00', '0.00', '2.00']],
    // A volume price: the total falls from 10.00 to 8.00 when usage crosses a tier, then grows to 9.00.
    [
      'a total that falls: charged only past its peak, the excess taken back from the latest first',
      'USD',
      ['6.00', '10.00', '8.00', '9.00'],
      ['6.00', '3.00', '0.00', '0.00'],
    ],
    ['a fall deeper than the last charges: taken back further', 'USD', ['5.00', '7.00', '7.50', '2.00'], ['2.00', '0.00', '0.00', '0.00']],
    ['JPY', 'JPY', ['100', '250', '250'], ['100', '150', '0']],
    ['KWD', 'KWD', ['0.125', '0.5'], ['0.125', '0.375']],
    ['no slices', 'USD', [], []],
  ];
  for (const [what, currency, totals, expected] of cases)
    it(what, () => {
      const charges = chargesOverTime(totals, currency);
      assert.deepEqual(charges, expected);
      // They add up to the last total, exactly.
      const sum = charges.reduce((s, c) => s.plus(c), new Decimal(0));
      assert.ok(sum.eq(totals.at(-1) ?? 0), `${sum.toFixed()} against ${totals.at(-1)}`);
    });

  it('refuses a negative or over-precise total, naming it', () => {
    assert.throws(() => chargesOverTime(['1.00', '-1.00'], 'USD'), /totals\[1\] must be a decimal amount of at least 0/);
    assert.throws(() => chargesOverTime(['1.005'], 'USD'), /totals\[0\] has more decimals than USD's minor unit/);
  });
});
