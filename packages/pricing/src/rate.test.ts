// Every expected value in this file was worked out by hand from the rules at the top of rate.ts
// and is written as a literal; none is computed by the code under test.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bandFor, blocksFor, rateUnit, usesRatingDimensions } from './rate.js';
import { unitPricingWith } from './unit-pricing.js';
import type { Multipliers, Tier, UnitCharge, UnitOverride, UnitPricing, UsageGroup } from './types.js';

interface GroupDims {
  status?: string | null;
  tool?: string | null;
  endpoint?: string | null;
}

function g(quantity: string, dims: GroupDims = {}): UsageGroup {
  return { quantity, executionStatus: dims.status ?? null, tool: dims.tool ?? null, endpoint: dims.endpoint ?? null };
}

interface Row {
  rule: string;
  pricing?: Partial<UnitPricing>;
  currency?: string;
  /** Plain strings are groups without dimensions. */
  usage: (string | UsageGroup)[];
  multipliers?: Multipliers;
  override?: UnitOverride;
  expect: Partial<UnitCharge>;
}

function unitPricing(fields: Partial<UnitPricing> & Pick<UnitPricing, 'pricingModel'>): UnitPricing {
  return unitPricingWith({ metricId: 'met_1', metricName: 'api_calls', ...fields });
}

/** One `it` per row; compares only the fields the row states, so each row shows its rule. */
function table(base: UnitPricing, rows: Row[]): void {
  for (const row of rows) {
    it(row.rule, () => {
      const charge = rateUnit({
        pricing: { ...base, ...row.pricing },
        currency: row.currency ?? 'USD',
        usage: row.usage.map((u) => (typeof u === 'string' ? g(u) : u)),
        multipliers: row.multipliers ?? null,
        override: row.override ?? null,
      });
      const picked = Object.fromEntries(Object.keys(row.expect).map((k) => [k, charge[k as keyof UnitCharge]]));
      assert.deepEqual(picked, row.expect, row.rule);
    });
  }
}

const M: Multipliers = {
  tools: { search: '2', free: '0' },
  endpoints: { '/v1/embed': '1.5' },
};

const NOTHING = { bands: [], exactAmount: '0', amount: '0.00', minimumFeeTopUp: '0.00', total: '0.00' };

describe('PER_UNIT', () => {
  const base = unitPricing({ pricingModel: 'PER_UNIT', rate: '0.10', includedFree: 100 });
  table(base, [
    { rule: 'zero usage, no groups: nothing to pay', usage: [], expect: { quantity: '0', freeUnits: '0', billableQuantity: '0', blocks: null, ...NOTHING } },
    { rule: 'zero usage, a group of 0: nothing to pay', usage: ['0'], expect: { quantity: '0', freeUnits: '0', billableQuantity: '0', ...NOTHING } },
    { rule: 'usage inside the free allowance is free', usage: ['40'], expect: { freeUnits: '40', billableQuantity: '0', ...NOTHING } },
    { rule: 'usage exactly at the allowance is free', usage: ['100'], expect: { freeUnits: '100', billableQuantity: '0', ...NOTHING } },
    {
      rule: 'one unit over the allowance bills one unit',
      usage: ['101'],
      expect: {
        metricName: 'api_calls',
        pricingModel: 'PER_UNIT',
        quantity: '101',
        freeUnits: '100',
        billableQuantity: '1',
        blocks: null,
        rate: '0.10',
        includedFree: 100,
        bands: [],
        exactAmount: '0.1',
        amount: '0.10',
        minimumFeeTopUp: '0.00',
        total: '0.10',
      },
    },
    { rule: 'groups are summed before the allowance', usage: ['60', '41'], expect: { quantity: '101', billableQuantity: '1', amount: '0.10' } },
    { rule: 'fractional quantity over the allowance', usage: ['100.25'], expect: { billableQuantity: '0.25', exactAmount: '0.025', amount: '0.03' } },
    { rule: 'fractional quantity inside the allowance', usage: ['99.9999'], expect: { freeUnits: '99.9999', billableQuantity: '0', amount: '0.00' } },
    {
      rule: 'a tie at the minor unit rounds up: 0.005 -> 0.01',
      pricing: { includedFree: 0, rate: '0.001' },
      usage: ['5'],
      expect: { exactAmount: '0.005', amount: '0.01', total: '0.01' },
    },
    {
      rule: 'just below a tie rounds down: 0.004999 -> 0.00',
      pricing: { includedFree: 0, rate: '0.001' },
      usage: ['4.999'],
      expect: { exactAmount: '0.004999', amount: '0.00' },
    },
    {
      rule: 'JPY (0 digits): a tie rounds up, 2.5 -> 3',
      currency: 'JPY',
      pricing: { includedFree: 0, rate: '0.5' },
      usage: ['5'],
      expect: { exactAmount: '2.5', amount: '3', minimumFeeTopUp: '0', total: '3' },
    },
    {
      rule: 'JPY (0 digits): 0.4 -> 0',
      currency: 'JPY',
      pricing: { includedFree: 0, rate: '0.5' },
      usage: ['0.8'],
      expect: { exactAmount: '0.4', amount: '0', minimumFeeTopUp: '0', total: '0' },
    },
    {
      rule: 'BHD (3 digits): a tie rounds up, 0.0015 -> 0.002',
      currency: 'BHD',
      pricing: { includedFree: 0, rate: '0.0005' },
      usage: ['3'],
      expect: { exactAmount: '0.0015', amount: '0.002', minimumFeeTopUp: '0.000', total: '0.002' },
    },
    {
      rule: 'BHD (3 digits) keeps the third decimal',
      currency: 'BHD',
      pricing: { includedFree: 0, rate: '0.125' },
      usage: ['1'],
      expect: { exactAmount: '0.125', amount: '0.125', total: '0.125' },
    },
    {
      rule: 'minFee with zero usage: the whole minimum',
      pricing: { includedFree: 0, minFee: '5.00' },
      usage: [],
      expect: { amount: '0.00', minimumFeeTopUp: '5.00', total: '5.00' },
    },
    {
      rule: 'minFee above the charge: tops up to the minimum',
      pricing: { includedFree: 0, minFee: '5.00' },
      usage: ['20'],
      expect: { exactAmount: '2', amount: '2.00', minimumFeeTopUp: '3.00', total: '5.00' },
    },
    {
      rule: 'minFee equal to the charge: no top-up',
      pricing: { includedFree: 0, minFee: '5.00' },
      usage: ['50'],
      expect: { amount: '5.00', minimumFeeTopUp: '0.00', total: '5.00' },
    },
    {
      rule: 'minFee below the charge: no top-up',
      pricing: { includedFree: 0, minFee: '5.00' },
      usage: ['70'],
      expect: { amount: '7.00', minimumFeeTopUp: '0.00', total: '7.00' },
    },
    {
      rule: 'minFee compares with the rounded amount (4.996 -> 5.00)',
      pricing: { includedFree: 0, minFee: '5.00' },
      usage: ['49.96'],
      expect: { exactAmount: '4.996', amount: '5.00', minimumFeeTopUp: '0.00', total: '5.00' },
    },
    {
      rule: 'minFee tops up the rounded amount (4.994 -> 4.99 + 0.01)',
      pricing: { includedFree: 0, minFee: '5.00' },
      usage: ['49.94'],
      expect: { exactAmount: '4.994', amount: '4.99', minimumFeeTopUp: '0.01', total: '5.00' },
    },
    {
      rule: 'override includedFree replaces the plan allowance',
      override: { includedFree: 10 },
      usage: ['40'],
      expect: { includedFree: 10, freeUnits: '10', billableQuantity: '30', exactAmount: '3', amount: '3.00' },
    },
    {
      rule: 'override includedFree 0 removes the allowance',
      override: { includedFree: 0 },
      usage: ['5'],
      expect: { includedFree: 0, freeUnits: '0', billableQuantity: '5', amount: '0.50' },
    },
    {
      rule: 'override rate replaces the plan rate',
      override: { rate: '0.25' },
      usage: ['104'],
      expect: { rate: '0.25', billableQuantity: '4', exactAmount: '1', amount: '1.00' },
    },
    {
      rule: 'override of both includedFree and rate',
      override: { includedFree: 0, rate: '0.02' },
      usage: ['104'],
      expect: { rate: '0.02', includedFree: 0, exactAmount: '2.08', amount: '2.08' },
    },
    {
      rule: 'override rate "0" makes the unit free',
      override: { rate: '0' },
      usage: ['1000'],
      expect: { rate: '0', billableQuantity: '900', exactAmount: '0', amount: '0.00' },
    },
    {
      rule: 'tool and endpoint multipliers on one group both apply (10 x 2 x 1.5)',
      pricing: { includedFree: 0 },
      multipliers: M,
      usage: [g('10', { tool: 'search', endpoint: '/v1/embed' })],
      expect: { quantity: '30', billableQuantity: '30', exactAmount: '3', amount: '3.00' },
    },
    {
      rule: 'tool multiplier alone',
      pricing: { includedFree: 0 },
      multipliers: M,
      usage: [g('10', { tool: 'search' })],
      expect: { quantity: '20', amount: '2.00' },
    },
    {
      rule: 'endpoint multiplier alone',
      pricing: { includedFree: 0 },
      multipliers: M,
      usage: [g('10', { endpoint: '/v1/embed' })],
      expect: { quantity: '15', amount: '1.50' },
    },
    {
      rule: 'an unlisted tool or endpoint, and a null one, weigh 1',
      pricing: { includedFree: 0 },
      multipliers: M,
      usage: [g('10', { tool: 'other', endpoint: '/v1/other' }), g('5')],
      expect: { quantity: '15', amount: '1.50' },
    },
    {
      rule: 'a tool named like an Object.prototype member weighs 1',
      pricing: { includedFree: 0 },
      multipliers: M,
      usage: [g('10', { tool: 'constructor', endpoint: 'toString' })],
      expect: { quantity: '10', amount: '1.00' },
    },
    {
      rule: 'a multiplier of 0 makes the usage free',
      pricing: { includedFree: 0 },
      multipliers: M,
      usage: [g('10', { tool: 'free' })],
      expect: { quantity: '0', amount: '0.00' },
    },
    {
      rule: 'multipliers apply before the allowance',
      multipliers: M,
      usage: [g('60', { tool: 'search' })],
      expect: { quantity: '120', freeUnits: '100', billableQuantity: '20', exactAmount: '2', amount: '2.00' },
    },
    {
      rule: 'fractional multiplier on a fractional quantity (0.3 x 1.5 x 0.10 = 0.045 -> 0.05)',
      pricing: { includedFree: 0 },
      multipliers: M,
      usage: [g('0.3', { endpoint: '/v1/embed' })],
      expect: { quantity: '0.45', exactAmount: '0.045', amount: '0.05' },
    },
    {
      rule: 'no multipliers given: every factor is 1',
      pricing: { includedFree: 0 },
      usage: [g('10', { tool: 'search', endpoint: '/v1/embed' })],
      expect: { quantity: '10', amount: '1.00' },
    },
  ]);
});

describe('FLAT_RATE', () => {
  const base = unitPricing({ pricingModel: 'FLAT_RATE', rate: '29.00' });
  table(base, [
    {
      rule: 'zero usage still pays the fee',
      usage: [],
      expect: {
        metricName: 'api_calls',
        pricingModel: 'FLAT_RATE',
        quantity: '0',
        freeUnits: '0',
        billableQuantity: '0',
        blocks: null,
        rate: '29.00',
        includedFree: 0,
        bands: [],
        exactAmount: '29',
        amount: '29.00',
        minimumFeeTopUp: '0.00',
        total: '29.00',
      },
    },
    {
      rule: 'usage does not change the fee',
      usage: ['1000'],
      expect: { quantity: '1000', billableQuantity: '1000', exactAmount: '29', amount: '29.00', total: '29.00' },
    },
    { rule: 'fractional usage does not change the fee', usage: ['0.5'], expect: { quantity: '0.5', amount: '29.00' } },
    {
      rule: 'the fee rounds half up at the minor unit (9.995 -> 10.00)',
      pricing: { rate: '9.995' },
      usage: [],
      expect: { exactAmount: '9.995', amount: '10.00', total: '10.00' },
    },
    {
      rule: 'JPY (0 digits): the fee has no decimals',
      currency: 'JPY',
      pricing: { rate: '2980' },
      usage: ['3'],
      expect: { amount: '2980', minimumFeeTopUp: '0', total: '2980' },
    },
    {
      rule: 'JPY (0 digits): a tie rounds up (2980.5 -> 2981)',
      currency: 'JPY',
      pricing: { rate: '2980.5' },
      usage: [],
      expect: { amount: '2981', total: '2981' },
    },
    {
      rule: 'BHD (3 digits): a tie rounds up (1.2345 -> 1.235)',
      currency: 'BHD',
      pricing: { rate: '1.2345' },
      usage: [],
      expect: { exactAmount: '1.2345', amount: '1.235', minimumFeeTopUp: '0.000', total: '1.235' },
    },
    { rule: 'override rate replaces the fee', override: { rate: '19' }, usage: ['4'], expect: { rate: '19', exactAmount: '19', amount: '19.00' } },
    { rule: 'minFee above the fee: tops up', pricing: { minFee: '50.00' }, usage: [], expect: { amount: '29.00', minimumFeeTopUp: '21.00', total: '50.00' } },
    { rule: 'minFee equal to the fee: no top-up', pricing: { minFee: '29.00' }, usage: [], expect: { minimumFeeTopUp: '0.00', total: '29.00' } },
    { rule: 'minFee below the fee: no top-up', pricing: { minFee: '10' }, usage: [], expect: { minimumFeeTopUp: '0.00', total: '29.00' } },
    {
      rule: 'an includedFree still counts free units (same formula), inside it',
      pricing: { includedFree: 5 },
      usage: ['3'],
      expect: { freeUnits: '3', billableQuantity: '0', amount: '29.00' },
    },
    {
      rule: 'an includedFree still counts free units (same formula), past it',
      pricing: { includedFree: 5 },
      usage: ['8'],
      expect: { freeUnits: '5', billableQuantity: '3', amount: '29.00' },
    },
    {
      rule: 'multipliers change the reported quantity, not the fee',
      multipliers: M,
      usage: [g('10', { tool: 'search', endpoint: '/v1/embed' })],
      expect: { quantity: '30', amount: '29.00' },
    },
  ]);
});

describe('PERCENTAGE', () => {
  const base = unitPricing({ pricingModel: 'PERCENTAGE', rate: '2.9' });
  table(base, [
    { rule: 'zero usage: nothing to pay', usage: [], expect: { quantity: '0', billableQuantity: '0', ...NOTHING } },
    {
      rule: '2.9% of 100 is 2.90',
      usage: ['100'],
      expect: {
        metricName: 'api_calls',
        pricingModel: 'PERCENTAGE',
        quantity: '100',
        freeUnits: '0',
        billableQuantity: '100',
        blocks: null,
        rate: '2.9',
        includedFree: 0,
        bands: [],
        exactAmount: '2.9',
        amount: '2.90',
        minimumFeeTopUp: '0.00',
        total: '2.90',
      },
    },
    { rule: 'transaction values of the groups add up', usage: ['60', '40'], expect: { quantity: '100', amount: '2.90' } },
    { rule: 'fractional value: 2.9% of 10.50 = 0.3045 -> 0.30', usage: ['10.50'], expect: { quantity: '10.5', exactAmount: '0.3045', amount: '0.30' } },
    { rule: 'below a tie rounds down: 2.9% of 17.25 = 0.50025 -> 0.50', usage: ['17.25'], expect: { exactAmount: '0.50025', amount: '0.50' } },
    { rule: 'a tie rounds up: 2.5% of 0.2 = 0.005 -> 0.01', pricing: { rate: '2.5' }, usage: ['0.2'], expect: { exactAmount: '0.005', amount: '0.01' } },
    {
      rule: 'JPY (0 digits): 3.6% of 1250 = 45',
      currency: 'JPY',
      pricing: { rate: '3.6' },
      usage: ['1250'],
      expect: { exactAmount: '45', amount: '45', total: '45' },
    },
    {
      rule: 'JPY (0 digits): a tie rounds up, 3.6% of 125 = 4.5 -> 5',
      currency: 'JPY',
      pricing: { rate: '3.6' },
      usage: ['125'],
      expect: { exactAmount: '4.5', amount: '5' },
    },
    {
      rule: 'KWD (3 digits): a tie rounds up, 1.5% of 0.1 = 0.0015 -> 0.002',
      currency: 'KWD',
      pricing: { rate: '1.5' },
      usage: ['0.1'],
      expect: { exactAmount: '0.0015', amount: '0.002', total: '0.002' },
    },
    {
      rule: 'minFee above the charge: 0.145 -> 0.15, topped up to 0.30',
      pricing: { minFee: '0.30' },
      usage: ['5'],
      expect: { exactAmount: '0.145', amount: '0.15', minimumFeeTopUp: '0.15', total: '0.30' },
    },
    {
      rule: 'minFee equal to the charge: no top-up',
      pricing: { minFee: '0.29' },
      usage: ['10'],
      expect: { amount: '0.29', minimumFeeTopUp: '0.00', total: '0.29' },
    },
    {
      rule: 'minFee below the charge: no top-up',
      pricing: { minFee: '0.30' },
      usage: ['100'],
      expect: { amount: '2.90', minimumFeeTopUp: '0.00', total: '2.90' },
    },
    {
      rule: 'minFee with zero usage: the whole minimum',
      pricing: { minFee: '0.30' },
      usage: [],
      expect: { amount: '0.00', minimumFeeTopUp: '0.30', total: '0.30' },
    },
    { rule: 'override rate replaces the percentage', override: { rate: '1.5' }, usage: ['200'], expect: { rate: '1.5', exactAmount: '3', amount: '3.00' } },
    {
      rule: 'override includedFree exempts that much value',
      override: { includedFree: 50 },
      usage: ['200'],
      expect: { includedFree: 50, freeUnits: '50', billableQuantity: '150', exactAmount: '4.35', amount: '4.35' },
    },
    {
      rule: 'an includedFree in the plan applies by the same formula',
      pricing: { includedFree: 10 },
      usage: ['110'],
      expect: { freeUnits: '10', billableQuantity: '100', amount: '2.90' },
    },
    {
      rule: 'tool and endpoint multipliers on one group (10 x 2 x 1.5 = 30)',
      multipliers: M,
      usage: [g('10', { tool: 'search', endpoint: '/v1/embed' })],
      expect: { quantity: '30', exactAmount: '0.87', amount: '0.87' },
    },
  ]);
});

describe('INCLUDED_QUOTA, overage per unit', () => {
  const base = unitPricing({ pricingModel: 'INCLUDED_QUOTA', rate: '0.02', includedFree: 1000 });
  table(base, [
    { rule: 'zero usage: nothing to pay', usage: [], expect: { quantity: '0', freeUnits: '0', billableQuantity: '0', blocks: null, ...NOTHING } },
    { rule: 'usage inside the quota is free', usage: ['500'], expect: { freeUnits: '500', billableQuantity: '0', blocks: null, ...NOTHING } },
    { rule: 'usage exactly at the quota is free', usage: ['1000'], expect: { freeUnits: '1000', billableQuantity: '0', ...NOTHING } },
    {
      rule: 'one unit over the quota bills one unit of overage',
      usage: ['1001'],
      expect: {
        metricName: 'api_calls',
        pricingModel: 'INCLUDED_QUOTA',
        quantity: '1001',
        freeUnits: '1000',
        billableQuantity: '1',
        blocks: null,
        rate: '0.02',
        includedFree: 1000,
        bands: [],
        exactAmount: '0.02',
        amount: '0.02',
        minimumFeeTopUp: '0.00',
        total: '0.02',
      },
    },
    { rule: 'fractional overage', usage: ['1000.5'], expect: { billableQuantity: '0.5', exactAmount: '0.01', amount: '0.01' } },
    { rule: 'overage of 250 units', usage: ['1250'], expect: { billableQuantity: '250', exactAmount: '5', amount: '5.00' } },
    {
      rule: 'below a tie rounds down: 0.0125 -> 0.01',
      pricing: { rate: '0.0125', includedFree: 0 },
      usage: ['1'],
      expect: { exactAmount: '0.0125', amount: '0.01' },
    },
    { rule: 'a tie rounds up: 0.025 -> 0.03', pricing: { rate: '0.0125', includedFree: 0 }, usage: ['2'], expect: { exactAmount: '0.025', amount: '0.03' } },
    {
      rule: 'override rate replaces the overage rate',
      override: { rate: '0.05' },
      usage: ['1100'],
      expect: { rate: '0.05', exactAmount: '5', amount: '5.00' },
    },
    {
      rule: 'override includedFree replaces the quota',
      override: { includedFree: 2000 },
      usage: ['1500'],
      expect: { includedFree: 2000, freeUnits: '1500', billableQuantity: '0', amount: '0.00' },
    },
    {
      rule: 'minFee above the charge: tops up',
      pricing: { minFee: '1.00' },
      usage: ['1001'],
      expect: { amount: '0.02', minimumFeeTopUp: '0.98', total: '1.00' },
    },
    {
      rule: 'minFee with usage inside the quota: the whole minimum',
      pricing: { minFee: '1.00' },
      usage: ['10'],
      expect: { amount: '0.00', minimumFeeTopUp: '1.00', total: '1.00' },
    },
  ]);
});

describe('INCLUDED_QUOTA, overage in blocks', () => {
  const base = unitPricing({ pricingModel: 'INCLUDED_QUOTA', rate: '4.00', includedFree: 1000, blockSize: 500 });
  table(base, [
    { rule: 'zero usage: 0 blocks', usage: [], expect: { quantity: '0', billableQuantity: '0', blocks: '0', ...NOTHING } },
    { rule: 'usage inside the quota: 0 blocks', usage: ['999'], expect: { billableQuantity: '0', blocks: '0', ...NOTHING } },
    { rule: 'usage exactly at the quota: 0 blocks', usage: ['1000'], expect: { billableQuantity: '0', blocks: '0', ...NOTHING } },
    {
      rule: 'one unit over the quota starts a whole block',
      usage: ['1001'],
      expect: {
        metricName: 'api_calls',
        pricingModel: 'INCLUDED_QUOTA',
        quantity: '1001',
        freeUnits: '1000',
        billableQuantity: '1',
        blocks: '1',
        rate: '4.00',
        includedFree: 1000,
        bands: [],
        exactAmount: '4',
        amount: '4.00',
        minimumFeeTopUp: '0.00',
        total: '4.00',
      },
    },
    {
      rule: 'overage of exactly 2 blocks bills 2 blocks',
      usage: ['2000'],
      expect: { billableQuantity: '1000', blocks: '2', exactAmount: '8', amount: '8.00' },
    },
    {
      rule: 'overage of 2 blocks + 1 unit bills 3 blocks',
      usage: ['2001'],
      expect: { billableQuantity: '1001', blocks: '3', exactAmount: '12', amount: '12.00' },
    },
    { rule: 'a fractional overage starts a whole block', usage: ['1000.25'], expect: { billableQuantity: '0.25', blocks: '1', amount: '4.00' } },
    {
      rule: 'a fractional overage just under a block boundary: 1 block',
      usage: ['1499.9999'],
      expect: { billableQuantity: '499.9999', blocks: '1', amount: '4.00' },
    },
    {
      rule: 'a fractional overage just over a block boundary: 2 blocks',
      usage: ['1500.0001'],
      expect: { billableQuantity: '500.0001', blocks: '2', amount: '8.00' },
    },
    {
      rule: 'override includedFree 0: exactly 1 block',
      override: { includedFree: 0 },
      usage: ['500'],
      expect: { freeUnits: '0', billableQuantity: '500', blocks: '1', amount: '4.00' },
    },
    { rule: 'override includedFree 0: 1 block + 1 unit is 2 blocks', override: { includedFree: 0 }, usage: ['501'], expect: { blocks: '2', amount: '8.00' } },
    {
      rule: 'override rate replaces the price per block',
      override: { rate: '3.5' },
      usage: ['1600'],
      expect: { rate: '3.5', billableQuantity: '600', blocks: '2', exactAmount: '7', amount: '7.00' },
    },
    {
      rule: 'minFee above the charge: tops up',
      pricing: { minFee: '10.00' },
      usage: ['1001'],
      expect: { amount: '4.00', minimumFeeTopUp: '6.00', total: '10.00' },
    },
    {
      rule: 'minFee equal to the charge: no top-up',
      pricing: { minFee: '8' },
      usage: ['2000'],
      expect: { amount: '8.00', minimumFeeTopUp: '0.00', total: '8.00' },
    },
    {
      rule: 'minFee below the charge: no top-up',
      pricing: { minFee: '10' },
      usage: ['2001'],
      expect: { amount: '12.00', minimumFeeTopUp: '0.00', total: '12.00' },
    },
    {
      rule: 'JPY (0 digits): 150 over in blocks of 100 is 2 blocks',
      currency: 'JPY',
      pricing: { rate: '1000', blockSize: 100 },
      usage: ['1150'],
      expect: { blocks: '2', exactAmount: '2000', amount: '2000', total: '2000' },
    },
    {
      rule: 'a block price tie rounds up: 1 block x 0.335 -> 0.34',
      pricing: { rate: '0.335', includedFree: 0 },
      usage: ['500'],
      expect: { blocks: '1', exactAmount: '0.335', amount: '0.34' },
    },
    {
      rule: 'multipliers apply before the quota (750 x 2 = 1500)',
      multipliers: M,
      usage: [g('750', { tool: 'search' })],
      expect: { quantity: '1500', billableQuantity: '500', blocks: '1', amount: '4.00' },
    },
  ]);
});

// Bands: (0, 100] at 0.10; (100, 1000] at 0.08 plus 5.00 when entered; (1000, ...) at 0.05.
const GRADUATED_TIERS: Tier[] = [
  { tierStart: 0, tierEnd: 100, unitPrice: '0.10', flatFee: null },
  { tierStart: 100, tierEnd: 1000, unitPrice: '0.08', flatFee: '5.00' },
  { tierStart: 1000, tierEnd: null, unitPrice: '0.05', flatFee: null },
];

describe('GRADUATED', () => {
  const base = unitPricing({ pricingModel: 'GRADUATED', tiers: GRADUATED_TIERS });
  table(base, [
    { rule: 'zero usage: no band entered', usage: [], expect: { quantity: '0', billableQuantity: '0', ...NOTHING } },
    {
      rule: 'inside the first band',
      usage: ['50'],
      expect: { bands: [{ tierStart: 0, tierEnd: 100, quantity: '50', amount: '5' }], exactAmount: '5', amount: '5.00' },
    },
    {
      rule: 'exactly at tierStart of the middle band: the middle band is not entered',
      usage: ['100'],
      expect: { bands: [{ tierStart: 0, tierEnd: 100, quantity: '100', amount: '10' }], exactAmount: '10', amount: '10.00' },
    },
    {
      rule: 'a fraction into the middle band enters it with its flat fee',
      usage: ['100.5'],
      expect: {
        bands: [
          { tierStart: 0, tierEnd: 100, quantity: '100', amount: '10' },
          { tierStart: 100, tierEnd: 1000, quantity: '0.5', amount: '5.04' },
        ],
        exactAmount: '15.04',
        amount: '15.04',
      },
    },
    {
      rule: 'one unit into the middle band',
      usage: ['101'],
      expect: {
        bands: [
          { tierStart: 0, tierEnd: 100, quantity: '100', amount: '10' },
          { tierStart: 100, tierEnd: 1000, quantity: '1', amount: '5.08' },
        ],
        exactAmount: '15.08',
      },
    },
    {
      rule: 'exactly at tierEnd of the middle band: the last band is not entered',
      usage: ['1000'],
      expect: {
        bands: [
          { tierStart: 0, tierEnd: 100, quantity: '100', amount: '10' },
          { tierStart: 100, tierEnd: 1000, quantity: '900', amount: '77' },
        ],
        exactAmount: '87',
        amount: '87.00',
      },
    },
    {
      rule: 'one unit into the open last band',
      usage: ['1001'],
      expect: {
        bands: [
          { tierStart: 0, tierEnd: 100, quantity: '100', amount: '10' },
          { tierStart: 100, tierEnd: 1000, quantity: '900', amount: '77' },
          { tierStart: 1000, tierEnd: null, quantity: '1', amount: '0.05' },
        ],
        exactAmount: '87.05',
        amount: '87.05',
      },
    },
    {
      rule: 'deep into the last band',
      usage: ['2500'],
      expect: {
        metricName: 'api_calls',
        pricingModel: 'GRADUATED',
        quantity: '2500',
        freeUnits: '0',
        billableQuantity: '2500',
        blocks: null,
        rate: '0',
        includedFree: 0,
        bands: [
          { tierStart: 0, tierEnd: 100, quantity: '100', amount: '10' },
          { tierStart: 100, tierEnd: 1000, quantity: '900', amount: '77' },
          { tierStart: 1000, tierEnd: null, quantity: '1500', amount: '75' },
        ],
        exactAmount: '162',
        amount: '162.00',
        minimumFeeTopUp: '0.00',
        total: '162.00',
      },
    },
    {
      rule: 'a tie rounds up: 0.05 x 0.10 = 0.005 -> 0.01',
      usage: ['0.05'],
      expect: { bands: [{ tierStart: 0, tierEnd: 100, quantity: '0.05', amount: '0.005' }], exactAmount: '0.005', amount: '0.01' },
    },
    { rule: 'KWD (3 digits): 0.0015 -> 0.002', currency: 'KWD', usage: ['0.015'], expect: { exactAmount: '0.0015', amount: '0.002', total: '0.002' } },
    {
      rule: 'JPY (0 digits): a tie rounds up, 10 + 0.5 + 5 = 15.5 -> 16',
      currency: 'JPY',
      usage: ['106.25'],
      expect: { exactAmount: '15.5', amount: '16', total: '16' },
    },
    {
      rule: 'allowance first: usage inside it enters no band',
      pricing: { includedFree: 50 },
      usage: ['30'],
      expect: { freeUnits: '30', billableQuantity: '0', ...NOTHING },
    },
    {
      rule: 'allowance first: usage exactly at it enters no band',
      pricing: { includedFree: 50 },
      usage: ['50'],
      expect: { freeUnits: '50', billableQuantity: '0', ...NOTHING },
    },
    {
      rule: "allowance first: one unit over is the first band's first unit",
      pricing: { includedFree: 50 },
      usage: ['51'],
      expect: { billableQuantity: '1', bands: [{ tierStart: 0, tierEnd: 100, quantity: '1', amount: '0.1' }], amount: '0.10' },
    },
    {
      rule: 'allowance first: bands apply to the billable quantity',
      pricing: { includedFree: 50 },
      usage: ['150'],
      expect: { billableQuantity: '100', bands: [{ tierStart: 0, tierEnd: 100, quantity: '100', amount: '10' }], amount: '10.00' },
    },
    {
      rule: 'override includedFree replaces the allowance',
      pricing: { includedFree: 50 },
      override: { includedFree: 100 },
      usage: ['150'],
      expect: { includedFree: 100, billableQuantity: '50', amount: '5.00' },
    },
    { rule: 'override rate is reported; the tier prices decide the charge', override: { rate: '9' }, usage: ['50'], expect: { rate: '9', amount: '5.00' } },
    {
      rule: 'minFee above the charge: tops up',
      pricing: { minFee: '20' },
      usage: ['50'],
      expect: { amount: '5.00', minimumFeeTopUp: '15.00', total: '20.00' },
    },
    {
      rule: 'minFee equal to the charge: no top-up',
      pricing: { minFee: '87' },
      usage: ['1000'],
      expect: { amount: '87.00', minimumFeeTopUp: '0.00', total: '87.00' },
    },
    {
      rule: 'minFee below the charge: no top-up',
      pricing: { minFee: '10' },
      usage: ['1001'],
      expect: { amount: '87.05', minimumFeeTopUp: '0.00', total: '87.05' },
    },
    {
      rule: 'multipliers apply before the bands (60 x 2 = 120)',
      multipliers: M,
      usage: [g('60', { tool: 'search' })],
      expect: {
        quantity: '120',
        bands: [
          { tierStart: 0, tierEnd: 100, quantity: '100', amount: '10' },
          { tierStart: 100, tierEnd: 1000, quantity: '20', amount: '6.6' },
        ],
        exactAmount: '16.6',
        amount: '16.60',
      },
    },
  ]);
});

// Bands: (0, 100] at 0.10; (100, 1000] at 0.08 plus 2.00; (1000, ...) at 0.05. All units at one price.
const VOLUME_TIERS: Tier[] = [
  { tierStart: 0, tierEnd: 100, unitPrice: '0.10', flatFee: null },
  { tierStart: 100, tierEnd: 1000, unitPrice: '0.08', flatFee: '2.00' },
  { tierStart: 1000, tierEnd: null, unitPrice: '0.05', flatFee: null },
];

describe('VOLUME_TIERED', () => {
  const base = unitPricing({ pricingModel: 'VOLUME_TIERED', tiers: VOLUME_TIERS });
  table(base, [
    { rule: 'zero usage: charge 0 and no band entered', usage: [], expect: { quantity: '0', billableQuantity: '0', ...NOTHING } },
    {
      rule: 'inside the first band',
      usage: ['50'],
      expect: { bands: [{ tierStart: 0, tierEnd: 100, quantity: '50', amount: '5' }], exactAmount: '5', amount: '5.00' },
    },
    {
      rule: 'exactly at tierStart of band 2 lands in band 1',
      usage: ['100'],
      expect: { bands: [{ tierStart: 0, tierEnd: 100, quantity: '100', amount: '10' }], exactAmount: '10', amount: '10.00' },
    },
    {
      rule: 'a fraction past band 1 bills all units at band 2, plus its flat fee',
      usage: ['100.5'],
      expect: { bands: [{ tierStart: 100, tierEnd: 1000, quantity: '100.5', amount: '10.04' }], exactAmount: '10.04', amount: '10.04' },
    },
    { rule: 'one unit past band 1', usage: ['101'], expect: { bands: [{ tierStart: 100, tierEnd: 1000, quantity: '101', amount: '10.08' }], amount: '10.08' } },
    {
      rule: 'exactly at tierEnd of the middle band lands in the middle band',
      usage: ['1000'],
      expect: {
        metricName: 'api_calls',
        pricingModel: 'VOLUME_TIERED',
        quantity: '1000',
        freeUnits: '0',
        billableQuantity: '1000',
        blocks: null,
        rate: '0',
        includedFree: 0,
        bands: [{ tierStart: 100, tierEnd: 1000, quantity: '1000', amount: '82' }],
        exactAmount: '82',
        amount: '82.00',
        minimumFeeTopUp: '0.00',
        total: '82.00',
      },
    },
    {
      rule: 'a fraction past the middle band lands in the last band',
      usage: ['1000.0001'],
      expect: { bands: [{ tierStart: 1000, tierEnd: null, quantity: '1000.0001', amount: '50.000005' }], exactAmount: '50.000005', amount: '50.00' },
    },
    {
      rule: 'one unit past the middle band',
      usage: ['1001'],
      expect: { bands: [{ tierStart: 1000, tierEnd: null, quantity: '1001', amount: '50.05' }], amount: '50.05' },
    },
    { rule: 'a tie rounds up: 0.05 x 0.10 = 0.005 -> 0.01', usage: ['0.05'], expect: { exactAmount: '0.005', amount: '0.01' } },
    { rule: 'JPY (0 digits): a tie rounds up, 25 x 0.10 = 2.5 -> 3', currency: 'JPY', usage: ['25'], expect: { exactAmount: '2.5', amount: '3', total: '3' } },
    { rule: 'BHD (3 digits): 0.015 x 0.10 = 0.0015 -> 0.002', currency: 'BHD', usage: ['0.015'], expect: { exactAmount: '0.0015', amount: '0.002' } },
    {
      rule: 'usage inside the allowance: billable 0 enters no band',
      pricing: { includedFree: 10 },
      usage: ['8'],
      expect: { freeUnits: '8', billableQuantity: '0', ...NOTHING },
    },
    {
      rule: 'usage exactly at the allowance: billable 0 enters no band',
      pricing: { includedFree: 10 },
      usage: ['10'],
      expect: { freeUnits: '10', billableQuantity: '0', ...NOTHING },
    },
    {
      rule: 'one unit over the allowance',
      pricing: { includedFree: 10 },
      usage: ['11'],
      expect: { billableQuantity: '1', bands: [{ tierStart: 0, tierEnd: 100, quantity: '1', amount: '0.1' }], amount: '0.10' },
    },
    {
      rule: 'the band is chosen by the billable quantity, after the allowance',
      pricing: { includedFree: 10 },
      usage: ['110'],
      expect: { billableQuantity: '100', bands: [{ tierStart: 0, tierEnd: 100, quantity: '100', amount: '10' }], amount: '10.00' },
    },
    {
      rule: 'override includedFree 0 replaces the allowance',
      pricing: { includedFree: 10 },
      override: { includedFree: 0 },
      usage: ['101'],
      expect: { includedFree: 0, billableQuantity: '101', amount: '10.08' },
    },
    {
      rule: 'minFee above the charge: tops up',
      pricing: { minFee: '15' },
      usage: ['100'],
      expect: { amount: '10.00', minimumFeeTopUp: '5.00', total: '15.00' },
    },
    {
      rule: 'minFee equal to the charge: no top-up',
      pricing: { minFee: '10.04' },
      usage: ['100.5'],
      expect: { amount: '10.04', minimumFeeTopUp: '0.00', total: '10.04' },
    },
    {
      rule: 'minFee below the charge: no top-up',
      pricing: { minFee: '5' },
      usage: ['1001'],
      expect: { amount: '50.05', minimumFeeTopUp: '0.00', total: '50.05' },
    },
    {
      rule: 'minFee with zero usage: the whole minimum',
      pricing: { minFee: '5' },
      usage: [],
      expect: { amount: '0.00', minimumFeeTopUp: '5.00', total: '5.00' },
    },
    {
      rule: 'multipliers decide the band (60 x 2 = 120 lands in band 2)',
      multipliers: M,
      usage: [g('60', { tool: 'search' })],
      expect: { quantity: '120', bands: [{ tierStart: 100, tierEnd: 1000, quantity: '120', amount: '11.6' }], amount: '11.60' },
    },
    {
      rule: 'past a closed last band (an invalid catalog) the last band applies',
      pricing: {
        tiers: [
          { tierStart: 0, tierEnd: 100, unitPrice: '0.10', flatFee: null },
          { tierStart: 100, tierEnd: 200, unitPrice: '0.08', flatFee: null },
        ],
      },
      usage: ['300'],
      expect: { bands: [{ tierStart: 100, tierEnd: 200, quantity: '300', amount: '24' }], amount: '24.00' },
    },
  ]);
});

// Bands: (0, 10] costs 10.00; (10, 100] costs 50.00; (100, ...) costs 200.00. The band is the charge.
const STAIRCASE_TIERS: Tier[] = [
  { tierStart: 0, tierEnd: 10, unitPrice: null, flatFee: '10.00' },
  { tierStart: 10, tierEnd: 100, unitPrice: null, flatFee: '50.00' },
  { tierStart: 100, tierEnd: null, unitPrice: null, flatFee: '200.00' },
];

describe('STAIRCASE', () => {
  const base = unitPricing({ pricingModel: 'STAIRCASE', tiers: STAIRCASE_TIERS });
  table(base, [
    {
      rule: 'zero usage lands in the first band',
      usage: [],
      expect: {
        metricName: 'api_calls',
        pricingModel: 'STAIRCASE',
        quantity: '0',
        freeUnits: '0',
        billableQuantity: '0',
        blocks: null,
        rate: '0',
        includedFree: 0,
        bands: [{ tierStart: 0, tierEnd: 10, quantity: '0', amount: '10' }],
        exactAmount: '10',
        amount: '10.00',
        minimumFeeTopUp: '0.00',
        total: '10.00',
      },
    },
    { rule: 'inside the first band', usage: ['5'], expect: { bands: [{ tierStart: 0, tierEnd: 10, quantity: '5', amount: '10' }], amount: '10.00' } },
    {
      rule: 'exactly at tierStart of the middle band lands in the first band',
      usage: ['10'],
      expect: { bands: [{ tierStart: 0, tierEnd: 10, quantity: '10', amount: '10' }], amount: '10.00' },
    },
    {
      rule: 'a fraction past the first band lands in the middle band',
      usage: ['10.5'],
      expect: { bands: [{ tierStart: 10, tierEnd: 100, quantity: '10.5', amount: '50' }], amount: '50.00' },
    },
    {
      rule: 'one unit past the first band',
      usage: ['11'],
      expect: { bands: [{ tierStart: 10, tierEnd: 100, quantity: '11', amount: '50' }], amount: '50.00' },
    },
    {
      rule: 'exactly at tierEnd of the middle band lands in the middle band',
      usage: ['100'],
      expect: { bands: [{ tierStart: 10, tierEnd: 100, quantity: '100', amount: '50' }], amount: '50.00' },
    },
    {
      rule: 'a fraction past the middle band lands in the last band',
      usage: ['100.01'],
      expect: { bands: [{ tierStart: 100, tierEnd: null, quantity: '100.01', amount: '200' }], amount: '200.00' },
    },
    {
      rule: 'deep into the last band: the same step',
      usage: ['5000'],
      expect: { bands: [{ tierStart: 100, tierEnd: null, quantity: '5000', amount: '200' }], exactAmount: '200', amount: '200.00' },
    },
    {
      rule: 'a step fee rounds half up (9.995 -> 10.00)',
      pricing: { tiers: [{ tierStart: 0, tierEnd: null, unitPrice: null, flatFee: '9.995' }] },
      usage: ['1'],
      expect: { exactAmount: '9.995', amount: '10.00' },
    },
    {
      rule: 'JPY (0 digits): a whole step fee',
      currency: 'JPY',
      pricing: {
        tiers: [
          { tierStart: 0, tierEnd: 10, unitPrice: null, flatFee: '1500' },
          { tierStart: 10, tierEnd: null, unitPrice: null, flatFee: '4000' },
        ],
      },
      usage: ['20'],
      expect: { amount: '4000', minimumFeeTopUp: '0', total: '4000' },
    },
    {
      rule: 'JPY (0 digits): a tie rounds up (4000.5 -> 4001)',
      currency: 'JPY',
      pricing: { tiers: [{ tierStart: 0, tierEnd: null, unitPrice: null, flatFee: '4000.5' }] },
      usage: ['20'],
      expect: { amount: '4001', total: '4001' },
    },
    {
      rule: 'KWD (3 digits): a tie rounds up (1.2345 -> 1.235)',
      currency: 'KWD',
      pricing: { tiers: [{ tierStart: 0, tierEnd: null, unitPrice: null, flatFee: '1.2345' }] },
      usage: ['1'],
      expect: { amount: '1.235', total: '1.235' },
    },
    { rule: 'minFee above the step: tops up', pricing: { minFee: '75' }, usage: ['50'], expect: { amount: '50.00', minimumFeeTopUp: '25.00', total: '75.00' } },
    { rule: 'minFee equal to the step: no top-up', pricing: { minFee: '50.00' }, usage: ['50'], expect: { minimumFeeTopUp: '0.00', total: '50.00' } },
    { rule: 'minFee below the step: no top-up', pricing: { minFee: '20' }, usage: ['50'], expect: { minimumFeeTopUp: '0.00', total: '50.00' } },
    {
      rule: 'an includedFree applies by the same formula, usage inside it lands in the first band',
      pricing: { includedFree: 5 },
      usage: ['3'],
      expect: { freeUnits: '3', billableQuantity: '0', bands: [{ tierStart: 0, tierEnd: 10, quantity: '0', amount: '10' }], amount: '10.00' },
    },
    {
      rule: 'an includedFree applies by the same formula, the band is chosen after it',
      pricing: { includedFree: 5 },
      usage: ['15'],
      expect: { freeUnits: '5', billableQuantity: '10', bands: [{ tierStart: 0, tierEnd: 10, quantity: '10', amount: '10' }], amount: '10.00' },
    },
    {
      rule: 'override includedFree changes the band landed in',
      override: { includedFree: 90 },
      usage: ['100.5'],
      expect: { includedFree: 90, billableQuantity: '10.5', bands: [{ tierStart: 10, tierEnd: 100, quantity: '10.5', amount: '50' }], amount: '50.00' },
    },
    {
      rule: 'multipliers decide the band (8 x 2 = 16)',
      multipliers: M,
      usage: [g('8', { tool: 'search' })],
      expect: { quantity: '16', bands: [{ tierStart: 10, tierEnd: 100, quantity: '16', amount: '50' }], amount: '50.00' },
    },
  ]);
});

describe('OUTCOME_BASED', () => {
  const base = unitPricing({
    pricingModel: 'OUTCOME_BASED',
    rate: '0.50',
    outcomeWeights: { SUCCESS: 1, PARTIAL: 0.5, ERROR: 0, TIMEOUT: 0.25 },
  });
  // Raw 34 units; outcome-weighted 10 + 2 + 0 + 2 + 3 (null status) + 2 (unlisted status) = 19.
  const mixed = [
    g('10', { status: 'SUCCESS' }),
    g('4', { status: 'PARTIAL' }),
    g('7', { status: 'ERROR' }),
    g('8', { status: 'TIMEOUT' }),
    g('3', { status: null }),
    g('2', { status: 'CANCELLED' }),
  ];
  table(base, [
    { rule: 'zero usage: nothing to pay', usage: [], expect: { quantity: '0', freeUnits: '0', billableQuantity: '0', ...NOTHING } },
    { rule: 'SUCCESS weighs 1', usage: [g('10', { status: 'SUCCESS' })], expect: { quantity: '10', billableQuantity: '10', amount: '5.00' } },
    { rule: 'PARTIAL weighs 0.5', usage: [g('4', { status: 'PARTIAL' })], expect: { quantity: '4', billableQuantity: '2', amount: '1.00' } },
    {
      rule: 'ERROR weighs 0: counted in quantity, not billed',
      usage: [g('7', { status: 'ERROR' })],
      expect: { quantity: '7', billableQuantity: '0', exactAmount: '0', amount: '0.00' },
    },
    { rule: 'TIMEOUT weighs 0.25', usage: [g('8', { status: 'TIMEOUT' })], expect: { quantity: '8', billableQuantity: '2', amount: '1.00' } },
    { rule: 'an unlisted status weighs 1', usage: [g('2', { status: 'CANCELLED' })], expect: { billableQuantity: '2', amount: '1.00' } },
    { rule: 'a null status weighs 1', usage: [g('3')], expect: { billableQuantity: '3', amount: '1.50' } },
    {
      rule: 'a status named like an Object.prototype member weighs 1',
      usage: [g('2', { status: 'constructor' })],
      expect: { billableQuantity: '2', amount: '1.00' },
    },
    {
      rule: 'every status together: quantity before weights, billable after',
      usage: mixed,
      expect: {
        metricName: 'api_calls',
        pricingModel: 'OUTCOME_BASED',
        quantity: '34',
        freeUnits: '0',
        billableQuantity: '19',
        blocks: null,
        rate: '0.50',
        includedFree: 0,
        bands: [],
        exactAmount: '9.5',
        amount: '9.50',
        minimumFeeTopUp: '0.00',
        total: '9.50',
      },
    },
    {
      rule: 'the allowance covers weighted units',
      pricing: { includedFree: 5 },
      usage: mixed,
      expect: { quantity: '34', freeUnits: '5', billableQuantity: '14', exactAmount: '7', amount: '7.00' },
    },
    {
      rule: 'weighted usage inside the allowance is free',
      pricing: { includedFree: 20 },
      usage: mixed,
      expect: { freeUnits: '19', billableQuantity: '0', amount: '0.00' },
    },
    {
      rule: 'weighted usage exactly at the allowance is free',
      pricing: { includedFree: 19 },
      usage: mixed,
      expect: { freeUnits: '19', billableQuantity: '0', amount: '0.00' },
    },
    {
      rule: 'one weighted unit over the allowance',
      pricing: { includedFree: 18 },
      usage: mixed,
      expect: { freeUnits: '18', billableQuantity: '1', amount: '0.50' },
    },
    {
      rule: 'raw usage over the allowance but weighted usage inside it is free',
      pricing: { includedFree: 30 },
      usage: mixed,
      expect: { quantity: '34', freeUnits: '19', billableQuantity: '0', amount: '0.00' },
    },
    {
      rule: 'fractional: 0.3 PARTIAL = 0.15 units, 0.075 -> 0.08',
      usage: [g('0.3', { status: 'PARTIAL' })],
      expect: { billableQuantity: '0.15', exactAmount: '0.075', amount: '0.08' },
    },
    {
      rule: 'a tie rounds up: 0.5 units x 0.01 = 0.005 -> 0.01',
      pricing: { rate: '0.01' },
      usage: [g('1', { status: 'PARTIAL' })],
      expect: { exactAmount: '0.005', amount: '0.01' },
    },
    {
      rule: 'JPY (0 digits): 0.5 units x 5 = 2.5 -> 3',
      currency: 'JPY',
      pricing: { rate: '5' },
      usage: [g('1', { status: 'PARTIAL' })],
      expect: { exactAmount: '2.5', amount: '3', total: '3' },
    },
    {
      rule: 'KWD (3 digits): 1.5 units x 0.001 = 0.0015 -> 0.002',
      currency: 'KWD',
      pricing: { rate: '0.001' },
      usage: [g('3', { status: 'PARTIAL' })],
      expect: { exactAmount: '0.0015', amount: '0.002' },
    },
    {
      rule: 'multipliers first, then the outcome weight (4 x 2 x 1.5 = 12; x 0.25 = 3)',
      multipliers: M,
      usage: [g('4', { status: 'TIMEOUT', tool: 'search', endpoint: '/v1/embed' })],
      expect: { quantity: '12', billableQuantity: '3', amount: '1.50' },
    },
    {
      rule: 'no outcomeWeights: every status weighs 1',
      pricing: { outcomeWeights: null },
      usage: [g('7', { status: 'ERROR' })],
      expect: { billableQuantity: '7', amount: '3.50' },
    },
    { rule: 'override rate replaces the rate', override: { rate: '1' }, usage: mixed, expect: { rate: '1', amount: '19.00' } },
    {
      rule: 'override includedFree replaces the allowance',
      override: { includedFree: 4 },
      usage: mixed,
      expect: { includedFree: 4, billableQuantity: '15', amount: '7.50' },
    },
    { rule: 'minFee above the charge: tops up', pricing: { minFee: '10' }, usage: mixed, expect: { amount: '9.50', minimumFeeTopUp: '0.50', total: '10.00' } },
    { rule: 'minFee equal to the charge: no top-up', pricing: { minFee: '9.5' }, usage: mixed, expect: { minimumFeeTopUp: '0.00', total: '9.50' } },
    { rule: 'minFee below the charge: no top-up', pricing: { minFee: '5' }, usage: mixed, expect: { minimumFeeTopUp: '0.00', total: '9.50' } },
  ]);
});

describe('bandFor', () => {
  const cases: [quantity: string, expected: Tier | null, rule: string][] = [
    ['0', VOLUME_TIERS[0]!, '0 lands in the first band'],
    ['100', VOLUME_TIERS[0]!, 'a quantity equal to tierEnd stays in that band'],
    ['100.0001', VOLUME_TIERS[1]!, 'just past tierEnd moves to the next band'],
    ['1000', VOLUME_TIERS[1]!, 'tierEnd of the middle band'],
    ['1e9', VOLUME_TIERS[2]!, 'the open last band takes everything above'],
  ];
  for (const [quantity, expected, rule] of cases) {
    it(rule, () => assert.equal(bandFor(VOLUME_TIERS, quantity), expected));
  }
  it('no tiers: no band', () => assert.equal(bandFor([], '5'), null));
});

describe('blocksFor', () => {
  const cases: [overage: string, blockSize: number, expected: string, rule: string][] = [
    ['0', 500, '0', 'no overage: no block'],
    ['1', 500, '1', 'one unit: one block'],
    ['500', 500, '1', 'exactly one block'],
    ['500.0001', 500, '2', 'just over one block'],
    ['1', 0.5, '2', 'a fractional block size'],
    // 40 significant digits cannot hold this quotient; multiplying back keeps the partial block.
    ['3000000000000000000000000000000000000000.000000001', 3, '1000000000000000000000000000000000000001', 'beyond the division precision'],
  ];
  for (const [overage, blockSize, expected, rule] of cases) {
    it(rule, () => assert.equal(blocksFor(overage, blockSize).toFixed(), expected));
  }
});

describe('usesRatingDimensions', () => {
  const none: Multipliers = { tools: {}, endpoints: {} };
  const cases: [
    model: UnitPricing['pricingModel'],
    outcomeWeights: Record<string, number> | null,
    multipliers: Multipliers | null,
    expected: boolean,
    rule: string,
  ][] = [
    ['PER_UNIT', null, null, false, 'no multipliers: the total rates the same as its groups'],
    ['GRADUATED', null, none, false, 'empty multiplier tables are no multipliers'],
    ['PER_UNIT', null, { tools: { search: '2' }, endpoints: {} }, true, 'a tool multiplier needs usage by tool'],
    ['VOLUME_TIERED', null, { tools: {}, endpoints: { '/v1/embed': '1.5' } }, true, 'an endpoint multiplier needs usage by endpoint'],
    ['OUTCOME_BASED', { ERROR: 0 }, none, true, 'OUTCOME_BASED weights need usage by execution status'],
    ['OUTCOME_BASED', null, none, false, 'OUTCOME_BASED without weights weighs every status 1'],
    ['OUTCOME_BASED', {}, null, false, 'OUTCOME_BASED with an empty weight table weighs every status 1'],
    ['PER_UNIT', { ERROR: 0 }, none, false, 'weights count only for OUTCOME_BASED'],
  ];
  for (const [pricingModel, outcomeWeights, multipliers, expected, rule] of cases) {
    it(rule, () => assert.equal(usesRatingDimensions(unitPricing({ pricingModel, outcomeWeights }), multipliers), expected));
  }
});
