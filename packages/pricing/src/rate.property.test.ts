import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Decimal } from './decimal.js';
import { rateUnit, usesRatingDimensions } from './rate.js';
import type { Multipliers, PricingModel, RateUnitInput, Tier, UnitOverride, UnitPricing, UsageGroup } from './types.js';
import { pricingModels } from './types.js';

const RUNS = { numRuns: 300 };

// ---- generators -------------------------------------------------------------------------------

/** n units of 10^-scale as plain decimal text ("1234", 2 -> "12.34"). */
function scaled(n: number, scale: number): string {
  const digits = String(n).padStart(scale + 1, '0');
  if (scale === 0) return digits;
  return `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** Non-negative decimal text with up to `maxScale` decimals; `max` bounds the integer of units. */
const decimalText = (max: number, maxScale = 4) => fc.tuple(fc.integer({ min: 0, max }), fc.integer({ min: 0, max: maxScale })).map(([n, s]) => scaled(n, s));

// Small and large quantities, so that usage both stays under and passes the tier boundaries.
const quantityArb = fc.oneof(decimalText(20_000), decimalText(50_000_000));
const priceArb = decimalText(100_000);
const factorArb = decimalText(300, 2);

const currencyArb = fc.constantFrom('USD', 'EUR', 'JPY', 'KWD', 'CLF');

const dimsArb = fc.record({
  executionStatus: fc.constantFrom('SUCCESS', 'PARTIAL', 'ERROR', 'TIMEOUT', 'CANCELLED', null),
  tool: fc.constantFrom('search', 'fetch', 'other', null),
  endpoint: fc.constantFrom('/a', '/b', null),
});

const groupArb: fc.Arbitrary<UsageGroup> = fc.tuple(dimsArb, quantityArb).map(([dims, quantity]) => ({ ...dims, quantity }));

const usageArb = fc.array(groupArb, { maxLength: 6 });

const multipliersArb: fc.Arbitrary<Multipliers> = fc.record({
  tools: fc.record({ search: factorArb, fetch: factorArb }, { requiredKeys: [] }),
  endpoints: fc.record({ '/a': factorArb }, { requiredKeys: [] }),
});

const overrideArb: fc.Arbitrary<UnitOverride> = fc.record({ includedFree: fc.integer({ min: 0, max: 5000 }), rate: priceArb }, { requiredKeys: [] });

const weightArb = fc.integer({ min: 0, max: 100 }).map((n) => n / 100);
const outcomeWeightsArb = fc.record({ SUCCESS: weightArb, PARTIAL: weightArb, ERROR: weightArb, TIMEOUT: weightArb }, { requiredKeys: [] });

/** Valid bands: contiguous from 0, only the last open-ended. */
function tiersArb(staircase: boolean): fc.Arbitrary<Tier[]> {
  const boundaries = fc.uniqueArray(fc.integer({ min: 1, max: 10_000 }), { maxLength: 4 }).map((b) => [...b].sort((x, y) => x - y));
  const prices = fc.array(fc.tuple(priceArb, fc.option(priceArb, { nil: null })), { minLength: 5, maxLength: 5 });
  return fc.tuple(boundaries, prices).map(([ends, price]) =>
    [...ends, null].map((tierEnd, i): Tier => {
      const [unitPrice, flatFee] = price[i]!;
      return {
        tierStart: i === 0 ? 0 : ends[i - 1]!,
        tierEnd,
        unitPrice: staircase ? null : unitPrice,
        flatFee: staircase ? unitPrice : flatFee,
      };
    }),
  );
}

/** A valid pricing of the model: only the fields the model uses are set. */
function pricingArb(model: PricingModel): fc.Arbitrary<UnitPricing> {
  const tiered = model === 'GRADUATED' || model === 'VOLUME_TIERED' || model === 'STAIRCASE';
  const noAllowance = model === 'FLAT_RATE' || model === 'PERCENTAGE' || model === 'STAIRCASE';
  return fc
    .record({
      rate: priceArb,
      includedFree: fc.integer({ min: 0, max: 5000 }),
      blockSize: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null }),
      minFee: fc.option(priceArb, { nil: null }),
      tiers: tiersArb(model === 'STAIRCASE'),
      outcomeWeights: fc.option(outcomeWeightsArb, { nil: null }),
    })
    .map((f) => ({
      metricId: 'met_1',
      metricName: 'calls',
      pricingModel: model,
      rate: tiered ? '0' : f.rate,
      includedFree: noAllowance ? 0 : f.includedFree,
      blockSize: model === 'INCLUDED_QUOTA' ? f.blockSize : null,
      minFee: model === 'FLAT_RATE' ? null : f.minFee,
      tiers: tiered ? f.tiers : [],
      outcomeWeights: model === 'OUTCOME_BASED' ? f.outcomeWeights : null,
    }));
}

function inputArb(models: readonly PricingModel[]): fc.Arbitrary<RateUnitInput> {
  return fc.constantFrom(...models).chain((model) =>
    fc.record({
      pricing: pricingArb(model),
      currency: currencyArb,
      usage: usageArb,
      multipliers: fc.option(multipliersArb, { nil: null }),
      override: fc.option(overrideArb, { nil: null }),
    }),
  );
}

const ALL_MODELS: readonly PricingModel[] = pricingModels;

// ---- an oracle for rounding, independent of decimal.js ---------------------------------------

const DIGITS: Record<string, number> = { USD: 2, EUR: 2, JPY: 0, KWD: 3, CLF: 4 };

/** Half up (ties away from zero) on plain decimal text, with BigInt. */
function roundHalfUpText(text: string, digits: number): string {
  const negative = text.startsWith('-');
  const [int = '0', frac = ''] = (negative ? text.slice(1) : text).split('.');
  let units: bigint;
  if (frac.length <= digits) {
    units = BigInt(int + frac.padEnd(digits, '0'));
  } else {
    const all = BigInt(int + frac);
    const divisor = 10n ** BigInt(frac.length - digits);
    units = all / divisor;
    if ((all % divisor) * 2n >= divisor) units += 1n;
  }
  const body = bigScaled(units, digits);
  return negative && units !== 0n ? `-${body}` : body;
}

function bigScaled(units: bigint, digits: number): string {
  const s = units.toString().padStart(digits + 1, '0');
  return digits === 0 ? s : `${s.slice(0, -digits)}.${s.slice(-digits)}`;
}

function decimalsOf(text: string): number {
  return (text.split('.')[1] ?? '').replace(/0+$/, '').length;
}

// ---- properties ---------------------------------------------------------------------------------

describe('rateUnit properties', () => {
  it('(a) a GRADUATED charge equals the sum of its bands, each band rated alone', () => {
    fc.assert(
      fc.property(inputArb(['GRADUATED']), (input) => {
        const whole = rateUnit(input);
        let alone = new Decimal(0);
        let bandsTotal = new Decimal(0);
        let bandUnits = new Decimal(0);
        for (const tier of input.pricing.tiers) {
          const single = rateUnit({ ...input, pricing: { ...input.pricing, tiers: [tier], minFee: null } });
          alone = alone.plus(single.exactAmount);
          const band = whole.bands.find((b) => b.tierStart === tier.tierStart);
          assert.equal(band?.amount ?? '0', single.exactAmount, `band ${tier.tierStart} rated alone`);
        }
        for (const band of whole.bands) {
          bandsTotal = bandsTotal.plus(band.amount);
          bandUnits = bandUnits.plus(band.quantity);
        }
        assert.ok(alone.eq(whole.exactAmount), `sum of bands alone ${alone.toFixed()} != ${whole.exactAmount}`);
        assert.ok(bandsTotal.eq(whole.exactAmount), `sum of listed bands ${bandsTotal.toFixed()} != ${whole.exactAmount}`);
        // Contiguous bands from 0 with an open end cover the billable quantity exactly once.
        assert.ok(bandUnits.eq(whole.billableQuantity), `band units ${bandUnits.toFixed()} != ${whole.billableQuantity}`);
      }),
      RUNS,
    );
  });

  it('(b) the exact amount never decreases as usage grows (all models but VOLUME_TIERED and STAIRCASE)', () => {
    const monotone = ALL_MODELS.filter((m) => m !== 'VOLUME_TIERED' && m !== 'STAIRCASE');
    fc.assert(
      fc.property(inputArb(monotone), groupArb, fc.nat(), (input, extra, at) => {
        const before = rateUnit(input);
        // Grow usage both ways: one more group, and more quantity on an existing group.
        const added = rateUnit({ ...input, usage: [...input.usage, extra] });
        assert.ok(new Decimal(added.exactAmount).gte(before.exactAmount), `${before.exactAmount} -> ${added.exactAmount} after adding a group`);
        if (input.usage.length > 0) {
          const i = at % input.usage.length;
          const grown = input.usage.map((g, j) => (j === i ? { ...g, quantity: new Decimal(g.quantity).plus(extra.quantity).toFixed() } : g));
          const after = rateUnit({ ...input, usage: grown });
          assert.ok(new Decimal(after.exactAmount).gte(before.exactAmount), `${before.exactAmount} -> ${after.exactAmount} after growing group ${i}`);
        }
      }),
      RUNS,
    );
  });

  it('(c) the result does not depend on the order of the groups, nor on how a group is split', () => {
    // Each generated group comes as parts with the same dimensions; merged, it is one group.
    const splitUsageArb = fc.array(fc.tuple(dimsArb, fc.array(quantityArb, { minLength: 1, maxLength: 4 })), { maxLength: 5 });
    const arb = fc.tuple(inputArb(ALL_MODELS), splitUsageArb).chain(([input, groups]) => {
      const merged: UsageGroup[] = groups.map(([dims, parts]) => ({
        ...dims,
        quantity: parts.reduce((s, p) => s.plus(p), new Decimal(0)).toFixed(),
      }));
      const split: UsageGroup[] = groups.flatMap(([dims, parts]) => parts.map((quantity) => ({ ...dims, quantity })));
      return fc.record({
        input: fc.constant({ ...input, usage: merged }),
        shuffledMerged: fc.shuffledSubarray(merged, { minLength: merged.length, maxLength: merged.length }),
        shuffledSplit: fc.shuffledSubarray(split, { minLength: split.length, maxLength: split.length }),
      });
    });
    fc.assert(
      fc.property(arb, ({ input, shuffledMerged, shuffledSplit }) => {
        const expected = rateUnit(input);
        assert.deepEqual(rateUnit({ ...input, usage: shuffledMerged }), expected, 'shuffled groups');
        assert.deepEqual(rateUnit({ ...input, usage: shuffledSplit }), expected, 'split and shuffled groups');
      }),
      RUNS,
    );
  });

  it('(e) a unit that uses no rating dimension rates its usage the same as one group holding the total', () => {
    fc.assert(
      fc.property(inputArb(ALL_MODELS), fc.constantFrom(null, { tools: {}, endpoints: {} }), (input, multipliers) => {
        const plain = { ...input, multipliers, pricing: { ...input.pricing, outcomeWeights: null } };
        assert.equal(usesRatingDimensions(plain.pricing, plain.multipliers), false);
        const total = plain.usage.reduce((acc, g) => acc.plus(g.quantity), new Decimal(0)).toFixed();
        const merged = { ...plain, usage: [{ quantity: total, executionStatus: null, tool: null, endpoint: null }] };
        assert.deepEqual(rateUnit(merged), rateUnit(plain));
      }),
      RUNS,
    );
  });

  it('(d) amount is exactAmount rounded half up to the minor unit, and total >= minFee', () => {
    fc.assert(
      fc.property(inputArb(ALL_MODELS), (input) => {
        const charge = rateUnit(input);
        const digits = DIGITS[input.currency]!;
        assert.equal(charge.amount, roundHalfUpText(charge.exactAmount, digits), `round ${charge.exactAmount} to ${digits}`);
        const money = digits === 0 ? /^\d+$/ : new RegExp(`^\\d+\\.\\d{${digits}}$`);
        for (const field of ['amount', 'minimumFeeTopUp', 'total'] as const) {
          assert.match(charge[field], money, `${field} ${charge[field]} has exactly ${digits} decimals`);
        }
        assert.ok(new Decimal(charge.total).eq(new Decimal(charge.amount).plus(charge.minimumFeeTopUp)), 'total = amount + top-up');
        const minFee = input.pricing.minFee;
        if (minFee === null) {
          assert.ok(new Decimal(charge.minimumFeeTopUp).isZero(), 'no top-up without a minFee');
        } else {
          assert.ok(new Decimal(charge.total).gte(minFee), `total ${charge.total} < minFee ${minFee}`);
          if (decimalsOf(minFee) <= digits) {
            // A minFee that fits the minor unit is met exactly, never overshot.
            const floor = Decimal.max(charge.amount, minFee);
            assert.ok(new Decimal(charge.total).eq(floor), `total ${charge.total} != max(amount, minFee) ${floor.toFixed()}`);
          }
        }
      }),
      RUNS,
    );
  });
});
