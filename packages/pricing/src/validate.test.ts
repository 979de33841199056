import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unitPricingWith } from './unit-pricing.js';
import type { CatalogUnitPricing, Checked, FieldError, PricingModel, TierInput, UnitPricingInput } from './types.js';
import { PRICE_RULES, checkPeriodAmount, checkTiers, checkUnitRate, normaliseOverride, normaliseUnitPricing, prefixFieldErrors } from './validate.js';

/** A unit of the given model with the fields the row adds; metric fields fixed. */
function unit(pricingModel: PricingModel, fields: Partial<UnitPricingInput> = {}): UnitPricingInput {
  return { metricId: 'met_1', metricName: 'api_calls', pricingModel, ...fields };
}

/** For rows that send what the TypeScript types forbid but JSON can carry. */
function loose(fields: Record<string, unknown>): Partial<UnitPricingInput> {
  return fields;
}

/** The normalised unit with every default, plus the row's fields. */
function expected(pricingModel: PricingModel, fields: Partial<CatalogUnitPricing>): CatalogUnitPricing {
  return unitPricingWith({ metricId: 'met_1', metricName: 'api_calls', pricingModel, ...fields });
}

function valueOf<T>(result: Checked<T>): T {
  if (!result.ok) assert.fail(`expected ok, got ${JSON.stringify(result.errors)}`);
  return result.value;
}

/**
 * Each error row expects exactly one error: a broken rule must be reported once, on its own
 * field, without knock-on noise from the rules it blocks.
 */
function expectOneError<T>(result: Checked<T>, field: string, fragment: string): void {
  if (result.ok) assert.fail(`expected an error on ${field}, got ${JSON.stringify(result.value)}`);
  assert.equal(result.errors.length, 1, JSON.stringify(result.errors));
  const [error] = result.errors as [FieldError];
  assert.equal(error.field, field);
  assert.ok(error.message.includes(fragment), `message ${JSON.stringify(error.message)} lacks ${JSON.stringify(fragment)}`);
}

const open = (tierStart: number, rest: Partial<TierInput> = {}): TierInput => ({ tierStart, tierEnd: null, ...rest });
const band = (tierStart: number, tierEnd: number | null, rest: Partial<TierInput> = {}): TierInput => ({ tierStart, tierEnd, ...rest });

describe('normaliseUnitPricing: a minimal valid unit of each model', () => {
  it('PER_UNIT: rate canonical, every default filled in', () => {
    assert.deepEqual(valueOf(normaliseUnitPricing(unit('PER_UNIT', { rate: '0.0020' }), 'USD')), expected('PER_UNIT', { rate: '0.002' }));
  });

  it('FLAT_RATE: rate is the fee per period', () => {
    assert.deepEqual(valueOf(normaliseUnitPricing(unit('FLAT_RATE', { rate: '49.00' }), 'USD')), expected('FLAT_RATE', { rate: '49' }));
  });

  it('PERCENTAGE: rate is a percent', () => {
    assert.deepEqual(valueOf(normaliseUnitPricing(unit('PERCENTAGE', { rate: '2.90' }), 'USD')), expected('PERCENTAGE', { rate: '2.9' }));
  });

  it('INCLUDED_QUOTA: includedFree and blockSize kept', () => {
    const input = unit('INCLUDED_QUOTA', { rate: '0.01', includedFree: 1000, blockSize: 100 });
    assert.deepEqual(valueOf(normaliseUnitPricing(input, 'USD')), expected('INCLUDED_QUOTA', { rate: '0.01', includedFree: 1000, blockSize: 100 }));
  });

  it('GRADUATED: rate omitted -> "0", prices canonical, flatFee absent -> null', () => {
    const input = unit('GRADUATED', { tiers: [band(0, 1000, { unitPrice: '0.010' }), open(1000, { unitPrice: '0.008', flatFee: '5.00' })] });
    assert.deepEqual(
      valueOf(normaliseUnitPricing(input, 'USD')),
      expected('GRADUATED', {
        tiers: [
          { tierStart: 0, tierEnd: 1000, unitPrice: '0.01', flatFee: null },
          { tierStart: 1000, tierEnd: null, unitPrice: '0.008', flatFee: '5' },
        ],
      }),
    );
  });

  it('VOLUME_TIERED: a zero rate in any form -> "0"', () => {
    const input = unit('VOLUME_TIERED', { rate: '0.00', tiers: [open(0, { unitPrice: '0.5' })] });
    assert.deepEqual(
      valueOf(normaliseUnitPricing(input, 'USD')),
      expected('VOLUME_TIERED', { tiers: [{ tierStart: 0, tierEnd: null, unitPrice: '0.5', flatFee: null }] }),
    );
  });

  it('STAIRCASE: flatFee per band, unitPrice null', () => {
    const input = unit('STAIRCASE', { tiers: [band(0, 10, { flatFee: '0' }), open(10, { flatFee: '99.00', unitPrice: null })] });
    assert.deepEqual(
      valueOf(normaliseUnitPricing(input, 'USD')),
      expected('STAIRCASE', {
        tiers: [
          { tierStart: 0, tierEnd: 10, unitPrice: null, flatFee: '0' },
          { tierStart: 10, tierEnd: null, unitPrice: null, flatFee: '99' },
        ],
      }),
    );
  });

  it('OUTCOME_BASED: outcomeWeights omitted -> {}', () => {
    assert.deepEqual(
      valueOf(normaliseUnitPricing(unit('OUTCOME_BASED', { rate: '0.05' }), 'USD')),
      expected('OUTCOME_BASED', { rate: '0.05', outcomeWeights: {} }),
    );
  });
});

describe('normaliseUnitPricing: valid variations', () => {
  it('nulls normalise to the defaults (includedFree 0, never null)', () => {
    const input = unit('PER_UNIT', {
      rate: '1',
      includedFree: null,
      blockSize: null,
      minFee: null,
      tiers: null,
      outcomeWeights: null,
      toolMultipliers: null,
      endpointMultipliers: null,
    });
    assert.deepEqual(valueOf(normaliseUnitPricing(input, 'USD')), expected('PER_UNIT', { rate: '1' }));
  });

  it('a non-tiered unit may send tiers: []', () => {
    assert.deepEqual(valueOf(normaliseUnitPricing(unit('PER_UNIT', { rate: '1', tiers: [] }), 'USD')), expected('PER_UNIT', { rate: '1' }));
  });

  it('a unit currency equal to the plan currency is accepted', () => {
    assert.equal(normaliseUnitPricing(unit('PER_UNIT', { rate: '1', currency: 'EUR' }), 'EUR').ok, true);
  });

  it('per-unit prices may carry 12 decimals and 15 significant digits', () => {
    assert.equal(valueOf(normaliseUnitPricing(unit('PER_UNIT', { rate: '0.000000000001' }), 'USD')).rate, '0.000000000001');
    assert.equal(valueOf(normaliseUnitPricing(unit('PER_UNIT', { rate: '123.456789012345' }), 'USD')).rate, '123.456789012345');
  });

  it('trailing zeros after the point do not count as digits', () => {
    assert.equal(valueOf(normaliseUnitPricing(unit('PER_UNIT', { rate: '1.50000000000000000000' }), 'USD')).rate, '1.5');
  });

  it('FLAT_RATE in JPY: a whole amount, trailing zeros ignored', () => {
    assert.equal(valueOf(normaliseUnitPricing(unit('FLAT_RATE', { rate: '1000.00' }), 'JPY')).rate, '1000');
  });

  it('FLAT_RATE in KWD: three decimals fit', () => {
    assert.equal(valueOf(normaliseUnitPricing(unit('FLAT_RATE', { rate: '1.125' }), 'KWD')).rate, '1.125');
  });

  it('PERCENTAGE accepts the bounds 0 and 100 and 6 decimals', () => {
    assert.equal(valueOf(normaliseUnitPricing(unit('PERCENTAGE', { rate: '0' }), 'USD')).rate, '0');
    assert.equal(valueOf(normaliseUnitPricing(unit('PERCENTAGE', { rate: '100.000' }), 'USD')).rate, '100');
    assert.equal(valueOf(normaliseUnitPricing(unit('PERCENTAGE', { rate: '2.123456' }), 'USD')).rate, '2.123456');
  });

  it('STAIRCASE rate "0.00" normalises to "0"', () => {
    const input = unit('STAIRCASE', { rate: '0.00', tiers: [open(0, { flatFee: '10' })] });
    assert.equal(valueOf(normaliseUnitPricing(input, 'USD')).rate, '0');
  });

  it('includedFree 0 is accepted by models that do not use it', () => {
    assert.equal(valueOf(normaliseUnitPricing(unit('FLAT_RATE', { rate: '10', includedFree: 0 }), 'USD')).includedFree, 0);
  });

  it('includedFree may be fractional (quantities are decimal)', () => {
    assert.equal(valueOf(normaliseUnitPricing(unit('PER_UNIT', { rate: '1', includedFree: 0.5 }), 'USD')).includedFree, 0.5);
  });

  it('minFee is canonical text', () => {
    assert.equal(valueOf(normaliseUnitPricing(unit('PER_UNIT', { rate: '1', minFee: '10.00' }), 'USD')).minFee, '10');
  });

  it('OUTCOME_BASED weights from 0 to 1 are kept', () => {
    const outcomeWeights = { SUCCESS: 1, PARTIAL: 0.5, ERROR: 0, TIMEOUT: 0, RATE_LIMITED_2: 0.25 };
    assert.deepEqual(valueOf(normaliseUnitPricing(unit('OUTCOME_BASED', { rate: '0.05', outcomeWeights }), 'USD')).outcomeWeights, outcomeWeights);
  });

  it('multipliers: canonical factors, 0 allowed (a free tool)', () => {
    const input = unit('PER_UNIT', { rate: '1', toolMultipliers: { search: '1.50', ping: '0' }, endpointMultipliers: { '/v1/chat': '2' } });
    assert.deepEqual(valueOf(normaliseUnitPricing(input, 'USD')).multipliers, { tools: { search: '1.5', ping: '0' }, endpoints: { '/v1/chat': '2' } });
  });

  it('a multiplier key of 200 characters is accepted, counted in code points', () => {
    const key = '🔧'.repeat(200); // 400 UTF-16 units, 200 characters
    assert.deepEqual(valueOf(normaliseUnitPricing(unit('PER_UNIT', { rate: '1', toolMultipliers: { [key]: '1' } }), 'USD')).multipliers.tools, { [key]: '1' });
  });

  it('a "__proto__" multiplier key stays a plain own key of the copy', () => {
    const toolMultipliers = JSON.parse('{"__proto__": "2"}') as Record<string, string>;
    const tools = valueOf(normaliseUnitPricing(unit('PER_UNIT', { rate: '1', toolMultipliers }), 'USD')).multipliers.tools;
    assert.equal(Object.getPrototypeOf(tools), Object.prototype);
    assert.deepEqual(Object.entries(tools), [['__proto__', '2']]);
  });

  it('returns fresh copies: changing the output leaves the input alone', () => {
    const tiers = [open(0, { unitPrice: '1' })];
    const toolMultipliers = { search: '2' };
    const outcomeWeights = { SUCCESS: 1 };
    const graduated = valueOf(normaliseUnitPricing(unit('GRADUATED', { tiers, toolMultipliers }), 'USD'));
    assert.notEqual(graduated.tiers, tiers);
    assert.notEqual(graduated.tiers[0], tiers[0]);
    assert.notEqual(graduated.multipliers.tools, toolMultipliers);
    graduated.tiers[0]!.unitPrice = '9';
    graduated.multipliers.tools.search = '9';
    assert.equal(tiers[0]!.unitPrice, '1');
    assert.equal(toolMultipliers.search, '2');
    const outcome = valueOf(normaliseUnitPricing(unit('OUTCOME_BASED', { rate: '1', outcomeWeights }), 'USD'));
    assert.notEqual(outcome.outcomeWeights, outcomeWeights);
  });

  it('extra tier fields are not copied', () => {
    const tiers = [{ ...open(0, { unitPrice: '1' }), note: 'x' }] as unknown as TierInput[];
    assert.deepEqual(valueOf(normaliseUnitPricing(unit('GRADUATED', { tiers }), 'USD')).tiers, [
      { tierStart: 0, tierEnd: null, unitPrice: '1', flatFee: null },
    ]);
  });
});

describe('normaliseUnitPricing: decimal text', () => {
  it('an exponent is refused', () => {
    expectOneError(normaliseUnitPricing(unit('PER_UNIT', { rate: '1e-3' }), 'USD'), 'rate', 'no exponent');
  });
  it('a sign is refused', () => {
    expectOneError(normaliseUnitPricing(unit('PER_UNIT', { rate: '-1' }), 'USD'), 'rate', 'must be a non-negative decimal');
  });
  it('a bare point is refused', () => {
    expectOneError(normaliseUnitPricing(unit('PER_UNIT', { rate: '.5' }), 'USD'), 'rate', 'got ".5"');
  });
  it('a JSON number instead of text is refused', () => {
    expectOneError(normaliseUnitPricing(unit('PER_UNIT', loose({ rate: 0.5 })), 'USD'), 'rate', 'as text');
  });
  it('a per-unit price has at most 12 decimals', () => {
    expectOneError(
      normaliseUnitPricing(unit('PER_UNIT', { rate: '0.0000000000001' }), 'USD'),
      'rate',
      'has 13 decimal places; PER_UNIT: the price per unit allows at most 12',
    );
  });
  it('a per-unit price has at most 15 significant digits', () => {
    expectOneError(normaliseUnitPricing(unit('OUTCOME_BASED', { rate: '1234567890.123456' }), 'USD'), 'rate', 'has 16 significant digits');
  });
  it('trailing zeros of the integer part count as significant digits', () => {
    expectOneError(normaliseUnitPricing(unit('INCLUDED_QUOTA', { rate: '1000000000000000' }), 'USD'), 'rate', 'has 16 significant digits');
  });
  it('a per-period amount fits the currency minor unit (USD: 2 decimals)', () => {
    expectOneError(normaliseUnitPricing(unit('FLAT_RATE', { rate: '49.999' }), 'USD'), 'rate', 'USD minor unit: at most 2 decimal places');
  });
  it('a per-period amount fits the currency minor unit (JPY: whole amounts)', () => {
    expectOneError(normaliseUnitPricing(unit('FLAT_RATE', { rate: '1000.5' }), 'JPY'), 'rate', 'JPY has no minor unit');
  });
  it('a per-period amount has at most 15 significant digits', () => {
    expectOneError(normaliseUnitPricing(unit('FLAT_RATE', { rate: '1234567890123456' }), 'JPY'), 'rate', 'has 16 significant digits');
  });
});

describe('normaliseUnitPricing: currency', () => {
  it('a unit currency differing from the plan is refused', () => {
    expectOneError(
      normaliseUnitPricing(unit('PER_UNIT', { rate: '1', currency: 'EUR' }), 'USD'),
      'currency',
      'a plan\'s units share its currency; omit currency or send "USD"',
    );
  });
  it('an unknown unit currency is refused', () => {
    expectOneError(normaliseUnitPricing(unit('PER_UNIT', { rate: '1', currency: 'usd' }), 'USD'), 'currency', 'is not a known ISO 4217 code');
  });
  it('an unknown plan currency is reported on currency, and minor-unit checks are skipped', () => {
    expectOneError(normaliseUnitPricing(unit('FLAT_RATE', { rate: '49.999' }), 'XYZ'), 'currency', 'the plan\'s currency "XYZ" is not a known ISO 4217 code');
  });
  it('a code without a minor unit (XAU) is not a plan currency', () => {
    expectOneError(normaliseUnitPricing(unit('PER_UNIT', { rate: '1' }), 'XAU'), 'currency', 'not a known ISO 4217 code');
  });
});

describe('normaliseUnitPricing: rate', () => {
  for (const model of ['PER_UNIT', 'FLAT_RATE', 'PERCENTAGE', 'INCLUDED_QUOTA', 'OUTCOME_BASED'] as const) {
    it(`${model} requires a rate`, () => {
      expectOneError(normaliseUnitPricing(unit(model), 'USD'), 'rate', `rate is required for ${model}`);
    });
  }
  it('an empty rate counts as missing', () => {
    expectOneError(normaliseUnitPricing(unit('FLAT_RATE', { rate: '' }), 'USD'), 'rate', 'rate is required for FLAT_RATE: it is the fee per billing period');
  });
  it('PERCENTAGE is at most 100', () => {
    expectOneError(normaliseUnitPricing(unit('PERCENTAGE', { rate: '100.5' }), 'USD'), 'rate', 'is a percent, from 0 to 100');
  });
  it('PERCENTAGE has at most 6 decimals', () => {
    expectOneError(normaliseUnitPricing(unit('PERCENTAGE', { rate: '2.1234567' }), 'USD'), 'rate', 'has 7 decimal places; a percent allows at most 6');
  });
  it('a non-zero rate on a tiered model is refused', () => {
    const input = unit('GRADUATED', { rate: '0.01', tiers: [open(0, { unitPrice: '0.01' })] });
    expectOneError(normaliseUnitPricing(input, 'USD'), 'rate', 'rate is not used by GRADUATED: prices are on its tiers; omit rate or send "0".');
  });
  it('a signed zero is not a zero form', () => {
    const input = unit('VOLUME_TIERED', { rate: '-0', tiers: [open(0, { unitPrice: '1' })] });
    expectOneError(normaliseUnitPricing(input, 'USD'), 'rate', 'rate is not used by VOLUME_TIERED');
  });
});

describe('normaliseUnitPricing: includedFree', () => {
  it('must be >= 0', () => {
    expectOneError(normaliseUnitPricing(unit('PER_UNIT', { rate: '1', includedFree: -1 }), 'USD'), 'includedFree', 'must be a finite number >= 0');
  });
  it('must be finite', () => {
    expectOneError(normaliseUnitPricing(unit('PER_UNIT', { rate: '1', includedFree: Infinity }), 'USD'), 'includedFree', 'got Infinity');
  });
  it('must be a number', () => {
    expectOneError(normaliseUnitPricing(unit('PER_UNIT', loose({ rate: '1', includedFree: '10' })), 'USD'), 'includedFree', 'got "10"');
  });
  it('FLAT_RATE does not use it', () => {
    expectOneError(normaliseUnitPricing(unit('FLAT_RATE', { rate: '10', includedFree: 10 }), 'USD'), 'includedFree', 'includedFree is not used by FLAT_RATE');
  });
  it('PERCENTAGE does not use it', () => {
    expectOneError(normaliseUnitPricing(unit('PERCENTAGE', { rate: '2', includedFree: 10 }), 'USD'), 'includedFree', 'includedFree is not used by PERCENTAGE');
  });
  it('STAIRCASE does not use it (its first band is the allowance)', () => {
    const input = unit('STAIRCASE', { includedFree: 10, tiers: [open(0, { flatFee: '5' })] });
    expectOneError(normaliseUnitPricing(input, 'USD'), 'includedFree', 'give its first tier a flatFee of "0"');
  });
});

describe('normaliseUnitPricing: blockSize', () => {
  it('must be at least 1', () => {
    expectOneError(normaliseUnitPricing(unit('INCLUDED_QUOTA', { rate: '1', blockSize: 0 }), 'USD'), 'blockSize', 'must be a whole number >= 1');
  });
  it('must be a whole number', () => {
    expectOneError(normaliseUnitPricing(unit('INCLUDED_QUOTA', { rate: '1', blockSize: 2.5 }), 'USD'), 'blockSize', 'got 2.5');
  });
  it('is used only by INCLUDED_QUOTA', () => {
    expectOneError(normaliseUnitPricing(unit('PER_UNIT', { rate: '1', blockSize: 100 }), 'USD'), 'blockSize', 'blockSize is used only by INCLUDED_QUOTA');
  });
});

describe('normaliseUnitPricing: minFee', () => {
  it('fits the currency minor unit', () => {
    expectOneError(normaliseUnitPricing(unit('PER_UNIT', { rate: '1', minFee: '10.005' }), 'USD'), 'minFee', 'at most 2 decimal places');
  });
  it('is decimal text', () => {
    expectOneError(normaliseUnitPricing(unit('PER_UNIT', { rate: '1', minFee: 'ten' }), 'USD'), 'minFee', 'must be a non-negative decimal');
  });
  it('FLAT_RATE does not use it', () => {
    expectOneError(normaliseUnitPricing(unit('FLAT_RATE', { rate: '10', minFee: '5' }), 'USD'), 'minFee', 'minFee is not used by FLAT_RATE');
  });
});

describe('normaliseUnitPricing: tiers', () => {
  it('GRADUATED needs at least one tier', () => {
    expectOneError(normaliseUnitPricing(unit('GRADUATED'), 'USD'), 'tiers', 'GRADUATED needs at least one tier');
  });
  it('VOLUME_TIERED needs at least one tier (an empty list is none)', () => {
    expectOneError(normaliseUnitPricing(unit('VOLUME_TIERED', { tiers: [] }), 'USD'), 'tiers', 'VOLUME_TIERED needs at least one tier');
  });
  it('at most 50 tiers', () => {
    const tiers = Array.from({ length: 51 }, (_, i) => band(i * 10, i === 50 ? null : (i + 1) * 10, { unitPrice: '1' }));
    expectOneError(normaliseUnitPricing(unit('GRADUATED', { tiers }), 'USD'), 'tiers', 'at most 50');
  });
  it('a model without tiers refuses a non-empty list', () => {
    expectOneError(
      normaliseUnitPricing(unit('PER_UNIT', { rate: '1', tiers: [open(0, { unitPrice: '1' })] }), 'USD'),
      'tiers',
      'tiers are used only by GRADUATED, VOLUME_TIERED, STAIRCASE; PER_UNIT prices with rate',
    );
  });
  it('tierStart is a number >= 0', () => {
    expectOneError(
      normaliseUnitPricing(unit('GRADUATED', { tiers: [open(-1, { unitPrice: '1' })] }), 'USD'),
      'tiers.0.tierStart',
      'must be a finite number >= 0',
    );
  });
  it('tierEnd is a finite number or null', () => {
    const tiers = [band(0, NaN, { unitPrice: '1' }), open(100, { unitPrice: '1' })];
    expectOneError(normaliseUnitPricing(unit('GRADUATED', { tiers }), 'USD'), 'tiers.0.tierEnd', 'or null for the open-ended last band; got NaN');
  });
  it('tiers are sorted by tierStart', () => {
    const tiers = [band(100, 200, { unitPrice: '1' }), band(0, 100, { unitPrice: '1' }), open(200, { unitPrice: '1' })];
    expectOneError(
      normaliseUnitPricing(unit('GRADUATED', { tiers }), 'USD'),
      'tiers',
      'must be sorted by tierStart: tiers.1 starts at 0, before tiers.0 (100)',
    );
  });
  it('the first tier starts at 0', () => {
    expectOneError(
      normaliseUnitPricing(unit('GRADUATED', { tiers: [open(10, { unitPrice: '1' })] }), 'USD'),
      'tiers.0.tierStart',
      'the first tier must start at 0',
    );
  });
  it('a gap between bands is named with its numbers', () => {
    const tiers = [band(0, 100, { unitPrice: '1' }), open(150, { unitPrice: '1' })];
    expectOneError(
      normaliseUnitPricing(unit('GRADUATED', { tiers }), 'USD'),
      'tiers.1.tierStart',
      'gap between tiers: tiers.0 ends at 100 but tiers.1 starts at 150',
    );
  });
  it('an overlap between bands is named with its numbers', () => {
    const tiers = [band(0, 100, { unitPrice: '1' }), open(50, { unitPrice: '1' })];
    expectOneError(
      normaliseUnitPricing(unit('VOLUME_TIERED', { tiers }), 'USD'),
      'tiers.1.tierStart',
      'overlap between tiers: tiers.1 starts at 50 but tiers.0 ends at 100',
    );
  });
  it('tierEnd is greater than tierStart', () => {
    const tiers = [band(0, 100, { unitPrice: '1' }), band(100, 100, { unitPrice: '1' }), open(100, { unitPrice: '1' })];
    expectOneError(
      normaliseUnitPricing(unit('GRADUATED', { tiers }), 'USD'),
      'tiers.1.tierEnd',
      'tiers.1.tierEnd (100) must be greater than its tierStart (100)',
    );
  });
  it('only the last tier may be open-ended', () => {
    const tiers = [open(0, { unitPrice: '1' }), open(100, { unitPrice: '1' })];
    expectOneError(normaliseUnitPricing(unit('GRADUATED', { tiers }), 'USD'), 'tiers.0.tierEnd', 'only the last tier may be open-ended');
  });
  it('the last tier must be open-ended', () => {
    expectOneError(
      normaliseUnitPricing(unit('GRADUATED', { tiers: [band(0, 100, { unitPrice: '1' })] }), 'USD'),
      'tiers.0.tierEnd',
      'the last tier must be open-ended so every quantity lands in a band',
    );
  });
  it('GRADUATED tiers need a unitPrice', () => {
    expectOneError(normaliseUnitPricing(unit('GRADUATED', { tiers: [open(0)] }), 'USD'), 'tiers.0.unitPrice', 'GRADUATED tiers need a unitPrice');
  });
  it('a tier unitPrice is a per-unit price (12 decimals)', () => {
    expectOneError(
      normaliseUnitPricing(unit('VOLUME_TIERED', { tiers: [open(0, { unitPrice: '0.0000000000001' })] }), 'USD'),
      'tiers.0.unitPrice',
      'has 13 decimal places',
    );
  });
  it('a GRADUATED flatFee fits the minor unit', () => {
    expectOneError(
      normaliseUnitPricing(unit('GRADUATED', { tiers: [open(0, { unitPrice: '1', flatFee: '0.001' })] }), 'USD'),
      'tiers.0.flatFee',
      'at most 2 decimal places',
    );
  });
  it('STAIRCASE tiers need a flatFee', () => {
    expectOneError(normaliseUnitPricing(unit('STAIRCASE', { tiers: [open(0)] }), 'USD'), 'tiers.0.flatFee', 'STAIRCASE tiers need a flatFee');
  });
  it('STAIRCASE tiers carry no unitPrice', () => {
    expectOneError(
      normaliseUnitPricing(unit('STAIRCASE', { tiers: [open(0, { flatFee: '5', unitPrice: '0.01' })] }), 'USD'),
      'tiers.0.unitPrice',
      'unitPrice is not used by STAIRCASE',
    );
  });
  it('a STAIRCASE flatFee fits the minor unit', () => {
    expectOneError(normaliseUnitPricing(unit('STAIRCASE', { tiers: [open(0, { flatFee: '9.5' })] }), 'JPY'), 'tiers.0.flatFee', 'JPY has no minor unit');
  });
});

describe('normaliseUnitPricing: outcomeWeights', () => {
  it('keys are execution statuses', () => {
    expectOneError(
      normaliseUnitPricing(unit('OUTCOME_BASED', { rate: '1', outcomeWeights: { success: 1 } }), 'USD'),
      'outcomeWeights.success',
      'is not an execution status',
    );
  });
  it('keys have at most 50 characters', () => {
    const key = `S${'X'.repeat(50)}`;
    expectOneError(
      normaliseUnitPricing(unit('OUTCOME_BASED', { rate: '1', outcomeWeights: { [key]: 1 } }), 'USD'),
      `outcomeWeights.${key}`,
      'at most 50 characters',
    );
  });
  it('at most 50 statuses', () => {
    const outcomeWeights = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`S${i}`, 1]));
    expectOneError(normaliseUnitPricing(unit('OUTCOME_BASED', { rate: '1', outcomeWeights }), 'USD'), 'outcomeWeights', 'at most 50');
  });
  it('a weight is at most 1', () => {
    expectOneError(
      normaliseUnitPricing(unit('OUTCOME_BASED', { rate: '1', outcomeWeights: { SUCCESS: 1.5 } }), 'USD'),
      'outcomeWeights.SUCCESS',
      'must be a number from 0 to 1',
    );
  });
  it('a weight is at least 0', () => {
    expectOneError(normaliseUnitPricing(unit('OUTCOME_BASED', { rate: '1', outcomeWeights: { ERROR: -0.1 } }), 'USD'), 'outcomeWeights.ERROR', 'got -0.1');
  });
  it('other models refuse weights', () => {
    expectOneError(
      normaliseUnitPricing(unit('PER_UNIT', { rate: '1', outcomeWeights: { SUCCESS: 1 } }), 'USD'),
      'outcomeWeights',
      'outcomeWeights is used only by OUTCOME_BASED',
    );
  });
  it('other models refuse even an empty map (null or absent only)', () => {
    expectOneError(normaliseUnitPricing(unit('FLAT_RATE', { rate: '1', outcomeWeights: {} }), 'USD'), 'outcomeWeights', 'omit outcomeWeights or send null');
  });
});

describe('normaliseUnitPricing: multipliers', () => {
  it('a key is not empty', () => {
    expectOneError(
      normaliseUnitPricing(unit('PER_UNIT', { rate: '1', toolMultipliers: { '': '2' } }), 'USD'),
      'toolMultipliers.',
      'tool names of 1 to 200 characters',
    );
  });
  it('a key has at most 200 characters', () => {
    const key = 'k'.repeat(201);
    expectOneError(
      normaliseUnitPricing(unit('PER_UNIT', { rate: '1', endpointMultipliers: { [key]: '2' } }), 'USD'),
      `endpointMultipliers.${key}`,
      'got one of 201',
    );
  });
  it('at most 100 entries per map', () => {
    const toolMultipliers = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`tool${i}`, '1']));
    expectOneError(normaliseUnitPricing(unit('PER_UNIT', { rate: '1', toolMultipliers }), 'USD'), 'toolMultipliers', 'at most 100');
  });
  it('a factor is non-negative decimal text', () => {
    expectOneError(normaliseUnitPricing(unit('PER_UNIT', { rate: '1', toolMultipliers: { search: '-1' } }), 'USD'), 'toolMultipliers.search', 'such as "1.5"');
  });
  it('a factor is a per-unit decimal (12 decimals)', () => {
    expectOneError(
      normaliseUnitPricing(unit('PER_UNIT', { rate: '1', endpointMultipliers: { '/v1/chat': '0.0000000000001' } }), 'USD'),
      'endpointMultipliers./v1/chat',
      'has 13 decimal places',
    );
  });
});

describe('normaliseUnitPricing: every error at once', () => {
  it('an unknown pricingModel stops the model rules', () => {
    expectOneError(normaliseUnitPricing(unit('PER_SEAT' as PricingModel, { rate: '1' }), 'USD'), 'pricingModel', 'use one of PER_UNIT, FLAT_RATE');
  });

  it('reports all broken rules, not the first', () => {
    const input = unit('PER_UNIT', {
      currency: 'EUR',
      blockSize: 10,
      minFee: '1.001',
      tiers: [open(0, { unitPrice: '1' })],
      outcomeWeights: { SUCCESS: 1 },
      toolMultipliers: { search: 'x' },
      endpointMultipliers: { '/a': '1e2' },
    });
    const result = normaliseUnitPricing(input, 'USD');
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual(
      result.errors.map((e) => e.field),
      ['currency', 'rate', 'blockSize', 'minFee', 'tiers', 'outcomeWeights', 'toolMultipliers.search', 'endpointMultipliers./a'],
    );
  });

  it('reports several tier errors together', () => {
    const tiers = [band(5, 100, { unitPrice: 'x' }), band(120, 110, { unitPrice: '1' }), band(110, 200, { unitPrice: '1' })];
    const result = normaliseUnitPricing(unit('GRADUATED', { tiers }), 'USD');
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual(
      result.errors.map((e) => e.field),
      ['tiers.0.unitPrice', 'tiers.1.tierEnd', 'tiers.2.tierEnd', 'tiers'],
    );
  });
});

describe('normaliseOverride', () => {
  const usd = (model: PricingModel, fields: Partial<UnitPricingInput> = {}): CatalogUnitPricing => {
    const tiered = model === 'GRADUATED' || model === 'VOLUME_TIERED' || model === 'STAIRCASE';
    const tiers = tiered ? [open(0, model === 'STAIRCASE' ? { flatFee: '5' } : { unitPrice: '1' })] : null;
    return valueOf(normaliseUnitPricing(unit(model, { rate: tiered ? undefined : '1', tiers, ...fields }), 'USD'));
  };

  it('PER_UNIT: includedFree and a canonical rate', () => {
    assert.deepEqual(valueOf(normaliseOverride({ includedFree: 500, rate: '0.0010' }, usd('PER_UNIT'), 'USD')), { includedFree: 500, rate: '0.001' });
  });
  it('an override with one field returns only that field', () => {
    assert.deepEqual(valueOf(normaliseOverride({ rate: '2.50' }, usd('FLAT_RATE'), 'USD')), { rate: '2.5' });
  });
  it('GRADUATED: includedFree may be overridden', () => {
    assert.deepEqual(valueOf(normaliseOverride({ includedFree: 10 }, usd('GRADUATED'), 'USD')), { includedFree: 10 });
  });
  it('an empty override is refused', () => {
    expectOneError(normaliseOverride({}, usd('PER_UNIT'), 'USD'), '', 'has neither');
  });
  it('includedFree is >= 0', () => {
    expectOneError(normaliseOverride({ includedFree: -5 }, usd('INCLUDED_QUOTA'), 'USD'), 'includedFree', 'must be a finite number >= 0');
  });
  it('FLAT_RATE has no includedFree to override', () => {
    expectOneError(normaliseOverride({ includedFree: 10 }, usd('FLAT_RATE'), 'USD'), 'includedFree', 'includedFree cannot be overridden on FLAT_RATE');
  });
  it('PERCENTAGE has no includedFree to override', () => {
    expectOneError(normaliseOverride({ includedFree: 10 }, usd('PERCENTAGE'), 'USD'), 'includedFree', 'includedFree cannot be overridden on PERCENTAGE');
  });
  it('a tiered model has no rate to override', () => {
    expectOneError(
      normaliseOverride({ rate: '0.01' }, usd('VOLUME_TIERED'), 'USD'),
      'rate',
      'rate cannot be overridden on VOLUME_TIERED: its prices are on its tiers',
    );
  });
  it('STAIRCASE has nothing to override', () => {
    expectOneError(normaliseOverride({ includedFree: 1 }, usd('STAIRCASE'), 'USD'), '', 'STAIRCASE has nothing an override can change');
  });
  it('an empty rate counts as missing', () => {
    expectOneError(normaliseOverride({ rate: '' }, usd('PER_UNIT'), 'USD'), 'rate', 'rate is required for PER_UNIT');
  });
  it('a rate follows the per-unit rules', () => {
    expectOneError(normaliseOverride({ rate: '0.0000000000001' }, usd('OUTCOME_BASED'), 'USD'), 'rate', 'has 13 decimal places');
  });
  it('a PERCENTAGE rate stays within 0..100', () => {
    expectOneError(normaliseOverride({ rate: '101' }, usd('PERCENTAGE'), 'USD'), 'rate', 'from 0 to 100');
  });
  it('a FLAT_RATE rate fits the minor unit', () => {
    expectOneError(normaliseOverride({ rate: '9.999' }, usd('FLAT_RATE'), 'USD'), 'rate', 'at most 2 decimal places');
  });
  it('a FLAT_RATE rate fits the minor unit of the currency given (JPY)', () => {
    expectOneError(normaliseOverride({ rate: '10.5' }, usd('FLAT_RATE'), 'JPY'), 'rate', 'JPY has no minor unit');
  });
  it('a FLAT_RATE rate needs a known currency', () => {
    expectOneError(normaliseOverride({ rate: '10' }, usd('FLAT_RATE'), 'XYZ'), 'rate', 'is not a known ISO 4217 code');
  });
});

describe('checkPeriodAmount', () => {
  it('accepts an amount that fits the minor unit', () => {
    assert.equal(checkPeriodAmount('12.50', 'USD', 'entryPrice'), null);
    assert.equal(checkPeriodAmount('1000', 'JPY', 'entryPrice'), null);
  });
  it('refuses more decimals than the minor unit', () => {
    assert.equal(checkPeriodAmount('12.505', 'USD', 'entryPrice')?.field, 'entryPrice');
  });
  it('refuses an unknown currency', () => {
    assert.match(checkPeriodAmount('1', 'XYZ', 'entryPrice')?.message ?? '', /not a known ISO 4217 code/);
  });
  it('refuses a negative amount', () => {
    assert.match(checkPeriodAmount('-1', 'USD', 'entryPrice')?.message ?? '', /non-negative/);
  });
});

describe('checkUnitRate', () => {
  it('accepts 12 decimals', () => {
    assert.equal(checkUnitRate('0.000000000001', 'price'), null);
  });
  it('refuses 13 decimals', () => {
    assert.deepEqual(checkUnitRate('0.0000000000001', 'price'), {
      field: 'price',
      message: 'price has 13 decimal places; a per-unit price allows at most 12: round it to 12.',
    });
  });
  it('refuses an exponent', () => {
    assert.equal(checkUnitRate('1E3', 'price')?.field, 'price');
  });
});

describe('checkTiers', () => {
  it('normalises valid tiers', () => {
    assert.deepEqual(valueOf(checkTiers([open(0, { flatFee: '5.00' })], 'STAIRCASE', 'USD')), [{ tierStart: 0, tierEnd: null, unitPrice: null, flatFee: '5' }]);
  });
  it('reports an unknown currency on currency', () => {
    expectOneError(checkTiers([open(0, { unitPrice: '1' })], 'GRADUATED', 'XYZ'), 'currency', 'not a known ISO 4217 code');
  });
});

describe('prefixFieldErrors', () => {
  it('places relative fields under a prefix; "" is the object itself', () => {
    assert.deepEqual(
      prefixFieldErrors('body.metrics.2', [
        { field: 'tiers.0.tierEnd', message: 'a' },
        { field: '', message: 'b' },
      ]),
      [
        { field: 'body.metrics.2.tiers.0.tierEnd', message: 'a' },
        { field: 'body.metrics.2', message: 'b' },
      ],
    );
  });
});

describe('PRICE_RULES', () => {
  it('decimalPattern accepts exactly the text the checks accept', () => {
    const pattern = new RegExp(PRICE_RULES.decimalPattern);
    for (const text of ['0', '12.5', '0.002', '100']) {
      assert.equal(pattern.test(text), true, text);
      assert.equal(checkUnitRate(text, 'x'), null, text);
    }
    for (const text of ['-1', '-0', '1e3', '.5', '1.', '01', ' 1', '']) {
      assert.equal(pattern.test(text), false, text);
      assert.notEqual(checkUnitRate(text, 'x'), null, text);
    }
  });
  it('outcomeStatusPattern matches the spec statuses', () => {
    const pattern = new RegExp(PRICE_RULES.outcomeStatusPattern);
    for (const status of ['SUCCESS', 'PARTIAL', 'ERROR', 'TIMEOUT']) assert.equal(pattern.test(status), true);
  });
});
