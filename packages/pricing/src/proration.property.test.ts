import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { minorUnitDigits, roundToMinorUnit } from './currency.js';
import { Decimal } from './decimal.js';
import { compareOfferings } from './display.js';
import { billingIntervals, nthPeriod, periodAlignments } from './periods.js';
import { changeKind, prorateChange, type ChangeKindOffering } from './proration.js';
import type { Offering } from './types.js';

const RUNS = { numRuns: 1000 };

// ---- generators -------------------------------------------------------------------------------

const currencyArb = fc.constantFrom('USD', 'EUR', 'JPY', 'KWD', 'CLF');

/** n minor units of the currency as text with exactly its digits ("1234" USD -> "12.34"). */
function minorUnits(n: bigint, currency: string): string {
  const digits = minorUnitDigits(currency);
  const s = n.toString().padStart(digits + 1, '0');
  return digits === 0 ? s : `${s.slice(0, -digits)}.${s.slice(-digits)}`;
}

/** An invoiced price: whole minor units, small or up to 15 significant digits, sometimes 0. */
const unitsArb = fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 100_000n }), fc.bigInt({ min: 1n, max: 999_999_999_999_999n }));

/**
 * A real period of a real schedule (anniversary or calendar, any recurring interval, 1970 to
 * 2100, up to 40 periods in), and a change anywhere in it, its end included.
 */
const periodArb = fc
  .record({
    start: fc.integer({ min: 0, max: Date.UTC(2100, 0, 1) }),
    interval: fc.constantFrom(...billingIntervals.filter((i) => i !== 'ONE_TIME')),
    alignment: fc.constantFrom(...periodAlignments),
    index: fc.integer({ min: 0, max: 40 }),
  })
  .chain(({ index, ...schedule }) => {
    const p = nthPeriod(schedule, index);
    const at = fc.oneof(fc.integer({ min: p.start, max: p.end! }), fc.constantFrom(p.start, p.end!, p.end! - 1, Math.min(p.start + 999, p.end!)));
    return fc.record({ periodStart: fc.constant(p.start), periodEnd: fc.constant(p.end!), changeAt: at });
  })
  // A calendar period that starts in its boundary's last second has no whole second: refused.
  .filter(({ periodStart, periodEnd }) => Math.floor(periodEnd / 1000) > Math.floor(periodStart / 1000));

const changeArb = fc.tuple(currencyArb, periodArb, unitsArb, unitsArb).map(([currency, period, oldUnits, newUnits]) => ({
  ...period,
  currency,
  oldEntryPrice: minorUnits(oldUnits, currency),
  newEntryPrice: minorUnits(newUnits, currency),
}));

const minorUnit = (currency: string) => new Decimal(1).dividedBy(new Decimal(10).pow(minorUnitDigits(currency)));

/** The share of a price for the used time, rounded on its own as a line of its own would be. */
function usedShare(price: string, fraction: { numerator: number; denominator: number }, currency: string): string {
  const used = fraction.denominator - fraction.numerator;
  return roundToMinorUnit(new Decimal(price).times(used).dividedBy(fraction.denominator), currency);
}

// ---- properties ---------------------------------------------------------------------------------

describe('prorateChange properties', () => {
  it('credit + remaining charge equals the full price: exactly for the old line, within half a minor unit per rounded line', () => {
    fc.assert(
      fc.property(changeArb, (input) => {
        const { credit, debit, unusedFraction } = prorateChange(input);
        const unit = minorUnit(input.currency);
        for (const [line, full] of [
          [credit, input.oldEntryPrice],
          [debit, input.newEntryPrice],
        ] as const) {
          // What the customer keeps paying for the used time, as full − line: reconstructs the full price exactly.
          const kept = new Decimal(full).minus(line);
          assert.ok(kept.plus(line).eq(full));
          assert.ok(kept.gte(0), `line ${line} exceeds the full price ${full}`);
          // The used time's share rounded as a line of its own: two roundings, each at most half a unit off.
          const remaining = usedShare(full, unusedFraction, input.currency);
          const off = new Decimal(line).plus(remaining).minus(full).abs();
          assert.ok(off.lte(unit), `${line} + ${remaining} is ${off.toFixed()} off ${full}`);
        }
      }),
      RUNS,
    );
  });

  it('a credit never exceeds what the customer paid for the unused time: each line is its exact share rounded down', () => {
    fc.assert(
      fc.property(changeArb, (input) => {
        const { credit, debit, unusedFraction } = prorateChange(input);
        const { numerator, denominator } = unusedFraction;
        assert.ok(Number.isSafeInteger(numerator) && numerator >= 0 && numerator <= denominator && denominator > 0);
        const share = (price: string) => new Decimal(price).times(numerator).dividedBy(denominator);
        assert.ok(new Decimal(credit).lte(share(input.oldEntryPrice)), `credit ${credit} > the unused share of ${input.oldEntryPrice}`);
        assert.ok(share(input.oldEntryPrice).minus(credit).lt(minorUnit(input.currency)), `credit ${credit} is a minor unit or more below its share`);
        assert.ok(new Decimal(debit).lte(share(input.newEntryPrice)), `debit ${debit} > its share of ${input.newEntryPrice}`);
        assert.ok(share(input.newEntryPrice).minus(debit).lt(minorUnit(input.currency)), `debit ${debit} is a minor unit or more below its share`);
      }),
      RUNS,
    );
  });

  it('net is debit − credit of the rounded lines, in the minor unit, never "-0"', () => {
    fc.assert(
      fc.property(changeArb, (input) => {
        const { credit, debit, net } = prorateChange(input);
        const digits = minorUnitDigits(input.currency);
        assert.ok(new Decimal(net).eq(new Decimal(debit).minus(credit)));
        for (const figure of [credit, debit, net]) assert.match(figure, digits === 0 ? /^-?\d+$/ : new RegExp(`^-?\\d+\\.\\d{${digits}}$`));
        assert.ok(!/^-0(\.0+)?$/.test(net), net);
      }),
      RUNS,
    );
  });

  it('a later change never credits more nor charges more', () => {
    fc.assert(
      fc.property(changeArb, fc.nat(), (input, step) => {
        const later = { ...input, changeAt: Math.min(input.periodEnd, input.changeAt + step) };
        const a = prorateChange(input);
        const b = prorateChange(later);
        assert.ok(new Decimal(b.credit).lte(a.credit) && new Decimal(b.debit).lte(a.debit));
      }),
      RUNS,
    );
  });

  it('on one interval, an UPGRADE never nets a credit and a DOWNGRADE never nets a charge', () => {
    fc.assert(
      fc.property(changeArb, fc.constantFrom('MONTHLY', 'QUARTERLY', 'ANNUAL' as const), (input, interval) => {
        const kind = changeKind(
          { currency: input.currency, entryPrice: input.oldEntryPrice, billingPeriod: interval },
          { currency: input.currency, entryPrice: input.newEntryPrice, billingPeriod: interval },
        );
        const net = new Decimal(prorateChange(input).net);
        if (kind === 'UPGRADE') assert.ok(net.gte(0));
        if (kind === 'DOWNGRADE') assert.ok(net.lte(0));
        if (kind === 'LATERAL') assert.ok(net.isZero());
      }),
      RUNS,
    );
  });
});

describe('changeKind properties', () => {
  const priceArb = fc.oneof(
    fc.constant(null),
    fc.bigInt({ min: 0n, max: 10n ** 15n - 1n }).map((n) => minorUnits(n, 'USD')),
  );
  const offeringArb = fc
    .record({ entryPrice: priceArb, billingPeriod: fc.constantFrom(...billingIntervals) })
    .map((o): ChangeKindOffering => ({ currency: 'USD', ...o }));
  const MIRROR = { UPGRADE: 'DOWNGRADE', DOWNGRADE: 'UPGRADE', LATERAL: 'LATERAL' } as const;

  it('the change back is the mirror kind, and a change to itself is LATERAL', () => {
    fc.assert(
      fc.property(offeringArb, offeringArb, (a, b) => {
        const there = changeKind(a, b);
        assert.equal(changeKind(b, a), there === null ? null : MIRROR[there]);
        assert.equal(changeKind(a, a), a.billingPeriod === 'ONE_TIME' ? null : 'LATERAL');
      }),
      RUNS,
    );
  });

  it('agrees with the storefront order (compareOfferings) wherever both offerings have an entry price', () => {
    const asOffering = (o: ChangeKindOffering, id: string): Offering => ({
      id,
      name: id,
      billingMode: 'POSTPAID',
      currency: o.currency,
      entryPrice: o.entryPrice,
      billingPeriod: o.billingPeriod,
      trialDays: 0,
      ratePlanIds: [],
    });
    fc.assert(
      fc.property(offeringArb, offeringArb, (a, b) => {
        fc.pre(a.entryPrice !== null && b.entryPrice !== null);
        const order = compareOfferings(asOffering(b, 'b'), asOffering(a, 'a'), []);
        const kind = changeKind(a, b);
        assert.equal(kind, order === null ? null : order > 0 ? 'UPGRADE' : order < 0 ? 'DOWNGRADE' : 'LATERAL');
      }),
      RUNS,
    );
  });
});
