import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { burnDown, chargesOverTime, drawOrder, grantCovers, type BurnCharge, type BurnGrant } from './burn-down.js';
import { minorUnitDigits } from './currency.js';

const RUNS = { numRuns: 500 };

/** n minor units of the currency as text with exactly its digits. */
function text(n: bigint, currency: string): string {
  const digits = minorUnitDigits(currency);
  const s = n.toString().padStart(digits + 1, '0');
  return digits === 0 ? s : `${s.slice(0, -digits)}.${s.slice(-digits)}`;
}
/** Decimal text in the currency's minor unit as minor units (the inverse of text, for checking). */
function units(value: string, currency: string): bigint {
  const digits = minorUnitDigits(currency);
  const [whole, fraction = ''] = value.split('.');
  return BigInt(whole! + fraction.padEnd(digits, '0'));
}

const amountArb = fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 5_000n }), fc.bigInt({ min: 1n, max: 10n ** 17n }));
const instantArb = fc.integer({ min: 0, max: 200 });

const grantsArb = (currency: string) =>
  fc
    .uniqueArray(
      fc.record({
        id: fc.string({ minLength: 1, maxLength: 4 }),
        remaining: amountArb.map((n) => text(n, currency)),
        priority: fc.integer({ min: 0, max: 3 }),
        effectiveAt: instantArb,
        life: fc.option(fc.integer({ min: 1, max: 150 }), { nil: null }),
        createdAt: fc.integer({ min: 0, max: 50 }),
        subscriptionId: fc.constantFrom(null, 'sub_1', 'sub_2'),
        metricNames: fc.constantFrom(null, ['a'], ['a', 'b']),
      }),
      { selector: (g) => g.id, maxLength: 7 },
    )
    .map((gs): BurnGrant[] => gs.map(({ life, ...g }) => ({ ...g, expiresAt: life === null ? null : g.effectiveAt + life })));

const chargesArb = (currency: string) =>
  fc.array(
    fc.record({
      at: instantArb,
      amount: amountArb.map((n) => text(n, currency)),
      subscriptionId: fc.constantFrom('sub_1', 'sub_2'),
      metricName: fc.constantFrom('a', 'b', 'c'),
    }),
    { maxLength: 12 },
  );

const caseArb = fc
  .constantFrom('USD', 'JPY', 'KWD')
  .chain((currency) => fc.record({ currency: fc.constant(currency), grants: grantsArb(currency), charges: chargesArb(currency) }));

describe('burnDown: properties', () => {
  it('nothing is made or lost: per charge, its draws and what is uncovered add up to it; per grant, its draws and what is left add up to it', () => {
    fc.assert(
      fc.property(caseArb, ({ currency, grants, charges }) => {
        const r = burnDown(currency, grants, charges);
        const paid = charges.map(() => 0n);
        const taken = new Map(grants.map((g) => [g.id, 0n]));
        for (const d of r.draws) {
          assert.ok(units(d.amount, currency) > 0n, 'a draw is never 0');
          paid[d.charge]! += units(d.amount, currency);
          taken.set(d.grantId, taken.get(d.grantId)! + units(d.amount, currency));
        }
        charges.forEach((c, i) => assert.equal(paid[i]! + units(r.uncovered[i]!, currency), units(c.amount, currency)));
        for (const g of grants) assert.equal(taken.get(g.id)! + units(r.remaining.get(g.id)!, currency), units(g.remaining, currency));
        const total = charges.reduce((s, c) => s + units(c.amount, currency), 0n);
        assert.equal(units(r.drawn, currency) + units(r.overage, currency), total);
      }),
      RUNS,
    );
  });

  it('a grant pays only charges it covers (effective, unexpired, in scope), charges in time order, and only once every grant before it in draw order that covers the charge is empty', () => {
    fc.assert(
      fc.property(caseArb, ({ currency, grants, charges }) => {
        const r = burnDown(currency, grants, charges);
        const byId = new Map(grants.map((g) => [g.id, g]));
        const left = new Map(grants.map((g) => [g.id, units(g.remaining, currency)]));
        let lastAt = -Infinity;
        let lastCharge = -1;
        for (const d of r.draws) {
          const grant = byId.get(d.grantId)!;
          const c = charges[d.charge]!;
          assert.ok(grantCovers(grant, c), `${d.grantId} does not cover charge ${d.charge}`);
          assert.ok(c.at >= lastAt, 'charges are paid in time order');
          if (d.charge !== lastCharge) {
            lastAt = c.at;
            lastCharge = d.charge;
          }
          for (const other of grants)
            if (drawOrder(other, grant) < 0 && grantCovers(other, c))
              assert.equal(left.get(other.id), 0n, `${d.grantId} drawn while ${other.id}, before it, had some left`);
          left.set(d.grantId, left.get(d.grantId)! - units(d.amount, currency));
        }
        // A charge left partly unpaid found every grant that covers it empty.
        charges.forEach((c, i) => {
          if (units(r.uncovered[i]!, currency) === 0n) return;
          const after = burnDown(
            currency,
            grants,
            charges.filter((x, j) => x.at < c.at || (x.at === c.at && j <= i)),
          );
          for (const g of grants) if (grantCovers(g, c)) assert.equal(after.remaining.get(g.id), text(0n, currency), `${g.id} had some left`);
        });
      }),
      RUNS,
    );
  });

  it('burning two consecutive stretches one after the other draws what burning them at once does', () => {
    fc.assert(
      fc.property(caseArb, instantArb, ({ currency, grants, charges }, cut) => {
        const first = charges.filter((c) => c.at < cut);
        const second = charges.filter((c) => c.at >= cut);
        const once = burnDown(currency, grants, [...first, ...second]);
        const a = burnDown(currency, grants, first);
        const b = burnDown(
          currency,
          grants.map((g) => ({ ...g, remaining: a.remaining.get(g.id)! })),
          second,
        );
        const shifted = b.draws.map((d) => ({ ...d, charge: d.charge + first.length }));
        assert.deepEqual([...a.draws, ...shifted], once.draws);
        assert.deepEqual(b.remaining, once.remaining);
        assert.deepEqual([...a.uncovered, ...b.uncovered], once.uncovered);
      }),
      RUNS,
    );
  });

  it('the order grants and same-instant charges are given in changes nothing but the charge indices', () => {
    fc.assert(
      fc.property(caseArb, ({ currency, grants, charges }) => {
        const r = burnDown(currency, grants, charges);
        const reversed = burnDown(currency, [...grants].reverse(), charges);
        assert.deepEqual(reversed.draws, r.draws);
        assert.deepEqual(new Map([...reversed.remaining].sort()), new Map([...r.remaining].sort()));
      }),
      RUNS,
    );
  });
});

// The charges a property builds are plain values: a sanity check that the generator makes every kind.
describe('burnDown: the generators', () => {
  it('make grants that expire and grants that do not, scoped and not, and charges at one instant', () => {
    const samples = fc.sample(caseArb, 300);
    const grants = samples.flatMap((s) => s.grants);
    const charges: BurnCharge[] = samples.flatMap((s) => s.charges);
    assert.ok(grants.some((g) => g.expiresAt === null) && grants.some((g) => g.expiresAt !== null));
    assert.ok(grants.some((g) => g.subscriptionId !== null) && grants.some((g) => g.metricNames !== null));
    assert.ok(samples.some((s) => new Set(s.charges.map((c) => c.at)).size < s.charges.length));
    assert.ok(
      charges.some((c) => c.amount.replace(/[0.]/g, '') === ''),
      'some charges are 0',
    );
  });
});

describe('chargesOverTime: properties', () => {
  const totalsArb = fc.constantFrom('USD', 'JPY', 'KWD').chain((currency) =>
    fc.record({
      currency: fc.constant(currency),
      totals: fc.array(
        amountArb.map((n) => text(n, currency)),
        { maxLength: 30 },
      ),
    }),
  );
  it('charges are at least 0, add up to the last total, never run ahead of the totals so far, and are the growth of a total that never falls', () => {
    fc.assert(
      fc.property(totalsArb, ({ currency, totals }) => {
        const charges = chargesOverTime(totals, currency).map((c) => units(c, currency));
        const values = totals.map((t) => units(t, currency));
        let sum = 0n;
        let peak = 0n;
        charges.forEach((c, k) => {
          assert.ok(c >= 0n);
          sum += c;
          peak = values[k]! > peak ? values[k]! : peak;
          assert.ok(sum <= peak, 'what was charged so far is never more than the highest total so far');
        });
        assert.equal(sum, values.at(-1) ?? 0n);
        if (values.every((v, k) => k === 0 || v >= values[k - 1]!))
          assert.deepEqual(
            charges,
            values.map((v, k) => v - (k === 0 ? 0n : values[k - 1]!)),
          );
      }),
      RUNS,
    );
  });
});
