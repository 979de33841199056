import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { unitPricingWith, type CatalogUnitPricing } from '@tollgate/pricing';
import { foldedLinesText, isZeroUsageLine, lineDescription, ratePlanIdsOf, type InvoiceLine, type LineContext } from '../src/invoice-lines.js';

const PERIOD_START = '2026-01-15T12:00:00.000Z';

const line = (fields: Partial<InvoiceLine>): InvoiceLine => ({
  type: 'usage',
  description: 'as the API wrote it',
  ratePlanId: 'plan_pro',
  metricName: 'api_calls',
  pricingModel: 'INCLUDED_QUOTA',
  quantity: '123456',
  freeUnits: '100000',
  billableQuantity: '23456',
  rate: '1.50',
  amount: '36.00',
  periodStart: PERIOD_START,
  periodEnd: '2026-02-15T12:00:00.000Z',
  ...fields,
});

const unit = (fields: Partial<CatalogUnitPricing> & Pick<CatalogUnitPricing, 'metricName' | 'pricingModel'>) => unitPricingWith(fields);

const pro = {
  id: 'plan_pro',
  name: 'Pro usage',
  currency: 'USD',
  billingPeriod: 'MONTHLY' as const,
  version: 1,
  updatedAt: PERIOD_START,
  metrics: [
    unit({ metricName: 'api_calls', pricingModel: 'INCLUDED_QUOTA', rate: '1.50', includedFree: 100000, blockSize: 1000 }),
    unit({
      metricName: 'tokens',
      pricingModel: 'VOLUME_TIERED',
      tiers: [
        { tierStart: 0, tierEnd: 1000000, unitPrice: '0.000012', flatFee: null },
        { tierStart: 1000000, tierEnd: null, unitPrice: '0.000008', flatFee: null },
      ],
    }),
    unit({
      metricName: 'seats',
      pricingModel: 'STAIRCASE',
      tiers: [
        { tierStart: 0, tierEnd: 5, unitPrice: null, flatFee: '0' },
        { tierStart: 5, tierEnd: null, unitPrice: null, flatFee: '40' },
      ],
    }),
    unit({ metricName: 'search_queries', pricingModel: 'PER_UNIT', rate: '0.002', includedFree: 1000, minFee: '5' }),
    unit({ metricName: 'agent_runs', pricingModel: 'PER_UNIT', rate: '0.05' }),
  ],
};

const ctx: LineContext = {
  currency: 'USD',
  metrics: [
    { name: 'api_calls', displayName: 'API calls', unit: 'call' },
    { name: 'tokens', displayName: 'Tokens', unit: 'token' },
    { name: 'seats', displayName: 'Seats', unit: 'seat' },
    { name: 'search_queries', displayName: null, unit: 'query' },
  ],
  plans: [pro],
};

describe('lineDescription: a unit’s line named as the pricing page names the unit, never the API’s raw names', () => {
  const cases: Array<[string, InvoiceLine, string, LineContext?]> = [
    ['INCLUDED_QUOTA in blocks', line({}), 'API calls: $1.50 per 1,000 calls after 100,000 free'],
    [
      'VOLUME_TIERED: the headline of its tiers',
      line({ metricName: 'tokens', pricingModel: 'VOLUME_TIERED', rate: '0', quantity: '0', freeUnits: '0', billableQuantity: '0', amount: '0.00' }),
      'Tokens: From $0.000008 / token',
    ],
    [
      'STAIRCASE with a free first band',
      line({ metricName: 'seats', pricingModel: 'STAIRCASE', rate: '0', quantity: '7', freeUnits: '0', billableQuantity: '7', amount: '40.00' }),
      'Seats: Free up to 5 seats, then from $40.00/mo',
    ],
    [
      'a metric without a display name: its name made readable, with its unit',
      line({ metricName: 'search_queries', pricingModel: 'PER_UNIT', rate: '0.002', quantity: '1500', freeUnits: '1000', amount: '1.00' }),
      'Search queries: $0.0020 / query after 1,000 free',
    ],
    [
      'a metric not among those loaded: its name made readable, "unit"',
      line({ metricName: 'agent_runs', pricingModel: 'PER_UNIT', rate: '0.05', quantity: '10', freeUnits: '0', amount: '0.50' }),
      'Agent runs: $0.0500 / unit',
    ],
    ['an offering’s rate override: the rate the line was billed at', line({ rate: '1.20' }), 'API calls: $1.20 per 1,000 calls after 100,000 free'],
    [
      'an allowance other than the plan’s (an override): the model’s name, not terms the line was not billed on',
      line({ quantity: '300000', freeUnits: '200000', billableQuantity: '100000' }),
      'API calls (included quota, then overage)',
    ],
    [
      'a plan changed since the period began: the model’s name',
      line({}),
      'API calls (included quota, then overage)',
      { ...ctx, plans: [{ ...pro, updatedAt: '2026-01-20T00:00:00.000Z' }] },
    ],
    ['a plan that could not be loaded: the model’s name', line({}), 'API calls (included quota, then overage)', { ...ctx, plans: [] }],
    ['a plan in another currency: the model’s name', line({}), 'API calls (included quota, then overage)', { ...ctx, plans: [{ ...pro, currency: 'EUR' }] }],
    ['a unit the plan now prices with another model: the line’s model', line({ pricingModel: 'PER_UNIT', rate: '0.001' }), 'API calls (per unit)'],
    [
      'a subscription priced by unitPrices (no plan): PER_UNIT at the line’s rate',
      line({ ratePlanId: null, pricingModel: 'PER_UNIT', rate: '0.01', quantity: '100', freeUnits: '0', billableQuantity: '100', amount: '1.00' }),
      'API calls: $0.0100 / call',
    ],
    ['a model this console does not know: the metric’s name alone', line({ pricingModel: 'SOMETHING_NEW' }), 'API calls'],
    [
      'a minimum-fee top-up: the minimum in pricing’s words',
      line({
        type: 'minimum_fee',
        metricName: 'search_queries',
        pricingModel: 'PER_UNIT',
        rate: '0.002',
        quantity: null,
        freeUnits: null,
        billableQuantity: null,
        amount: '4.00',
      }),
      'Search queries: Minimum $5.00/mo',
    ],
    [
      'a minimum-fee top-up whose plan is not loaded',
      line({ type: 'minimum_fee', metricName: 'search_queries', pricingModel: 'PER_UNIT', rate: '0.002', quantity: null, freeUnits: null, amount: '4.00' }),
      'Search queries: minimum fee',
      { ...ctx, plans: [] },
    ],
    [
      'the entry price: as the API wrote it',
      line({ type: 'entry_price', description: 'Entry price', ratePlanId: null, metricName: null, pricingModel: null }),
      'Entry price',
    ],
    [
      'a discount: as the API wrote it',
      line({
        type: 'discount',
        description: 'Retention discount: 20% off (invoice 1 of 3)',
        ratePlanId: null,
        metricName: null,
        pricingModel: null,
        rate: '20',
      }),
      'Retention discount: 20% off (invoice 1 of 3)',
    ],
  ];
  for (const [name, l, want, context] of cases) it(`${name}: ${want}`, () => assert.equal(lineDescription(l, context ?? ctx), want));

  it('the plans to load: each plan a unit line names, once', () =>
    assert.deepEqual(
      ratePlanIdsOf([line({}), line({ metricName: 'tokens' }), line({ ratePlanId: 'plan_b' }), line({ type: 'entry_price', ratePlanId: null })]),
      ['plan_pro', 'plan_b'],
    ));
});

describe('isZeroUsageLine and foldedLinesText: usage lines with no usage fold behind one disclosure', () => {
  const cases: Array<[string, Partial<InvoiceLine>, boolean]> = [
    ['no usage, nothing billed', { quantity: '0', freeUnits: '0', billableQuantity: '0', amount: '0.00' }, true],
    ['no usage, written with decimals', { quantity: '0.000', freeUnits: '0', amount: '0' }, true],
    ['usage inside the free allowance is usage: shown', { quantity: '500', freeUnits: '500', billableQuantity: '0', amount: '0.00' }, false],
    ['a flat fee with no usage bills: shown', { pricingModel: 'FLAT_RATE', quantity: '0', amount: '49.00' }, false],
    ['a waived entry price is not a usage line', { type: 'entry_price', quantity: null, amount: '0.00' }, false],
    ['a minimum fee is not a usage line', { type: 'minimum_fee', quantity: null, amount: '0.00' }, false],
    ['text that is not a decimal is shown, never guessed at', { quantity: 'n/a', amount: '0.00' }, false],
  ];
  for (const [name, fields, want] of cases) it(`${name}: ${String(want)}`, () => assert.equal(isZeroUsageLine(line(fields)), want));

  const texts: Array<[number, string]> = [
    [1, '1 usage line with no usage'],
    [2, '2 usage lines with no usage'],
    [12, '12 usage lines with no usage'],
  ];
  for (const [n, want] of texts) it(`${n} -> ${want}`, () => assert.equal(foldedLinesText(n), want));
});
