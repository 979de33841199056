import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { BillingPeriod, Offering, RatePlan, Tier, UnitPricing } from './types.js';
import { unitPricingWith } from './unit-pricing.js';
import {
  compareOfferings,
  describeOffering,
  describeRatePlan,
  describeUnitPricing,
  formatMoney,
  formatPercent,
  formatPeriodAmount,
  formatPeriodPrice,
  formatQuantity,
  formatUnitRate,
  metricLabel,
  monthlyEquivalent,
  periodSuffix,
  pluralUnit,
  sortOfferingsForDisplay,
  statusText,
  type TierRow,
  type WeightRow,
} from './display.js';

/** The no-break space current ICU puts between a letter code and the digits ("CHF 10.00"). */
const NBSP = '\u00a0';

function unit(fields: Partial<UnitPricing> & Pick<UnitPricing, 'pricingModel'>): UnitPricing {
  return unitPricingWith({ metricId: 'm_1', metricName: 'api_calls', ...fields });
}

function tier(tierStart: number, tierEnd: number | null, unitPrice: string | null, flatFee: string | null = null): Tier {
  return { tierStart, tierEnd, unitPrice, flatFee };
}

function plan(id: string, metrics: UnitPricing[], billingPeriod: BillingPeriod = 'MONTHLY', currency = 'USD'): RatePlan {
  return { id, name: `Plan ${id}`, currency, billingPeriod, metrics };
}

function offering(id: string, entryPrice: string | null, billingPeriod: BillingPeriod, ratePlanIds: string[] = [], currency = 'USD'): Offering {
  return { id, name: `Offering ${id}`, billingMode: 'POSTPAID', currency, entryPrice, billingPeriod, trialDays: 0, ratePlanIds };
}

/* Per-period amounts: exactly two decimals, whatever the currency. */
const periodAmountRows: { rule: string; amount: string; currency: string; expected: string }[] = [
  { rule: 'USD whole amount gets two decimals', amount: '49', currency: 'USD', expected: '$49.00' },
  { rule: 'EUR symbol, grouping comma, padded fraction', amount: '1234.5', currency: 'EUR', expected: '€1,234.50' },
  { rule: 'JPY (no minor unit) still shows two decimals', amount: '4900', currency: 'JPY', expected: '¥4,900.00' },
  { rule: 'KWD (three-digit minor unit) still shows two decimals', amount: '1234.5', currency: 'KWD', expected: `KWD${NBSP}1,234.50` },
  { rule: 'a code without a symbol uses Intl en-US text (CHF)', amount: '10', currency: 'CHF', expected: `CHF${NBSP}10.00` },
  { rule: 'a regional symbol from Intl en-US (CA$)', amount: '10', currency: 'CAD', expected: 'CA$10.00' },
  { rule: 'rounds half up, not half even (0.125)', amount: '0.125', currency: 'USD', expected: '$0.13' },
  { rule: 'millions group every three digits', amount: '1234567.891', currency: 'USD', expected: '$1,234,567.89' },
  { rule: 'a negative amount puts the sign before the symbol', amount: '-5', currency: 'USD', expected: '-$5.00' },
  { rule: 'a negative amount that rounds to zero has no sign', amount: '-0.001', currency: 'USD', expected: '$0.00' },
];
for (const row of periodAmountRows) {
  test(`formatPeriodAmount: ${row.rule}`, () => {
    assert.equal(formatPeriodAmount(row.amount, row.currency), row.expected);
  });
}

/* Per-unit rates: at least four, at most six decimals, half up at six. */
const unitRateRows: { rule: string; rate: string; currency: string; expected: string }[] = [
  { rule: '0.002 is padded to four decimals', rate: '0.002', currency: 'USD', expected: '$0.0020' },
  { rule: '0.0000125 rounds half up at six decimals', rate: '0.0000125', currency: 'USD', expected: '$0.000013' },
  { rule: '1.5 is padded to four decimals', rate: '1.5', currency: 'USD', expected: '$1.5000' },
  { rule: '0.12345 keeps its five decimals', rate: '0.12345', currency: 'USD', expected: '$0.12345' },
  { rule: '12 is padded to four decimals', rate: '12', currency: 'USD', expected: '$12.0000' },
  { rule: 'GBP symbol on a small rate', rate: '0.002', currency: 'GBP', expected: '£0.0020' },
];
for (const row of unitRateRows) {
  test(`formatUnitRate: ${row.rule}`, () => {
    assert.equal(formatUnitRate(row.rate, row.currency), row.expected);
  });
}

test('formatMoney: bad input throws RangeError instead of printing garbage', () => {
  assert.throws(() => formatMoney('1', 'US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }), RangeError);
  assert.throws(() => formatPeriodAmount('abc', 'USD'), RangeError);
});

/* Period suffixes. */
const suffixRows: { period: BillingPeriod; expected: string }[] = [
  { period: 'MONTHLY', expected: '/mo' },
  { period: 'QUARTERLY', expected: '/qtr' },
  { period: 'ANNUAL', expected: '/yr' },
  { period: 'ONE_TIME', expected: ' one-time' },
];
for (const row of suffixRows) {
  test(`periodSuffix: ${row.period} -> ${JSON.stringify(row.expected)}`, () => {
    assert.equal(periodSuffix(row.period), row.expected);
  });
}

test('formatPeriodPrice: ONE_TIME reads with its leading space', () => {
  assert.equal(formatPeriodPrice('49', 'USD', 'ONE_TIME'), '$49.00 one-time');
});

/* Quantities. */
const quantityRows: { rule: string; quantity: number | string; expected: string }[] = [
  { rule: 'integers are grouped', quantity: 1000, expected: '1,000' },
  { rule: 'decimals are kept as given', quantity: '2.5', expected: '2.5' },
  { rule: 'a decimal keeps its written zeros and groups the integer part', quantity: '1000.50', expected: '1,000.50' },
];
for (const row of quantityRows) {
  test(`formatQuantity: ${row.rule}`, () => {
    assert.equal(formatQuantity(row.quantity), row.expected);
  });
}

/* Percentages are never money. */
const percentRows: { rule: string; percent: string; expected: string }[] = [
  { rule: '2.9 reads 2.9%', percent: '2.9', expected: '2.9%' },
  { rule: 'no forced decimals: 3 reads 3%', percent: '3', expected: '3%' },
  { rule: 'small percent keeps its digits', percent: '0.25', expected: '0.25%' },
  { rule: 'trailing zeros are dropped', percent: '3.0', expected: '3%' },
];
for (const row of percentRows) {
  test(`formatPercent: ${row.rule}`, () => {
    assert.equal(formatPercent(row.percent), row.expected);
  });
}

/* Headline wording per model. */
const headlineRows: { rule: string; unit: UnitPricing; currency: string; period: BillingPeriod; expected: string }[] = [
  {
    rule: 'PER_UNIT without includedFree',
    unit: unit({ pricingModel: 'PER_UNIT', rate: '0.002' }),
    currency: 'USD',
    period: 'MONTHLY',
    expected: '$0.0020 / unit',
  },
  {
    rule: 'PER_UNIT with includedFree',
    unit: unit({ pricingModel: 'PER_UNIT', rate: '0.002', includedFree: 1000 }),
    currency: 'USD',
    period: 'MONTHLY',
    expected: '$0.0020 / unit after 1,000 free',
  },
  { rule: 'FLAT_RATE is amount plus suffix', unit: unit({ pricingModel: 'FLAT_RATE', rate: '49' }), currency: 'USD', period: 'MONTHLY', expected: '$49.00/mo' },
  { rule: 'FLAT_RATE annual', unit: unit({ pricingModel: 'FLAT_RATE', rate: '490' }), currency: 'EUR', period: 'ANNUAL', expected: '€490.00/yr' },
  { rule: 'FLAT_RATE zero reads Free, no suffix', unit: unit({ pricingModel: 'FLAT_RATE', rate: '0' }), currency: 'USD', period: 'MONTHLY', expected: 'Free' },
  {
    rule: 'PERCENTAGE is a percent, never money (EUR plan)',
    unit: unit({ pricingModel: 'PERCENTAGE', rate: '2.9' }),
    currency: 'EUR',
    period: 'MONTHLY',
    expected: '2.9% of transaction value',
  },
  {
    rule: 'INCLUDED_QUOTA blockSize null',
    unit: unit({ pricingModel: 'INCLUDED_QUOTA', rate: '0.01', includedFree: 10000 }),
    currency: 'USD',
    period: 'MONTHLY',
    expected: '$0.0100 / unit after 10,000 free',
  },
  {
    rule: 'INCLUDED_QUOTA blockSize 1 reads per unit',
    unit: unit({ pricingModel: 'INCLUDED_QUOTA', rate: '0.01', includedFree: 10000, blockSize: 1 }),
    currency: 'USD',
    period: 'MONTHLY',
    expected: '$0.0100 / unit after 10,000 free',
  },
  {
    rule: 'INCLUDED_QUOTA blockSize > 1 reads per block, the block price as money (two decimals)',
    unit: unit({ pricingModel: 'INCLUDED_QUOTA', rate: '5', includedFree: 10000, blockSize: 1000 }),
    currency: 'USD',
    period: 'MONTHLY',
    expected: '$5.00 per 1,000 units after 10,000 free',
  },
  {
    rule: 'INCLUDED_QUOTA block price with cents: two decimals, never four',
    unit: unit({ pricingModel: 'INCLUDED_QUOTA', rate: '1.5', blockSize: 1000 }),
    currency: 'USD',
    period: 'MONTHLY',
    expected: '$1.50 per 1,000 units',
  },
  {
    rule: 'INCLUDED_QUOTA a tiny block price keeps the decimals it needs (up to six), never "$0.00"',
    unit: unit({ pricingModel: 'INCLUDED_QUOTA', rate: '0.0025', blockSize: 100 }),
    currency: 'USD',
    period: 'MONTHLY',
    expected: '$0.0025 per 100 units',
  },
  {
    rule: 'INCLUDED_QUOTA block price beyond six decimals rounds half up at six',
    unit: unit({ pricingModel: 'INCLUDED_QUOTA', rate: '0.00000051', blockSize: 100 }),
    currency: 'USD',
    period: 'MONTHLY',
    expected: '$0.000001 per 100 units',
  },
  {
    rule: 'INCLUDED_QUOTA includedFree 0 omits "after 0 free"',
    unit: unit({ pricingModel: 'INCLUDED_QUOTA', rate: '5', blockSize: 1000 }),
    currency: 'USD',
    period: 'MONTHLY',
    expected: '$5.00 per 1,000 units',
  },
  {
    rule: 'GRADUATED: From the cheapest band unitPrice',
    unit: unit({ pricingModel: 'GRADUATED', tiers: [tier(0, 1000, '0.002'), tier(1000, 10000, '0.0015'), tier(10000, null, '0.001')] }),
    currency: 'USD',
    period: 'MONTHLY',
    expected: 'From $0.0010 / unit',
  },
  {
    rule: 'GRADUATED with includedFree: free units before the bands',
    unit: unit({ pricingModel: 'GRADUATED', includedFree: 500, tiers: [tier(0, 1000, '0.002'), tier(1000, null, '0.001')] }),
    currency: 'USD',
    period: 'MONTHLY',
    expected: 'From $0.0010 / unit after 500 free',
  },
  {
    rule: 'VOLUME_TIERED: From the cheapest band unitPrice',
    unit: unit({ pricingModel: 'VOLUME_TIERED', tiers: [tier(0, 1000, '0.002'), tier(1000, null, '0.001')] }),
    currency: 'USD',
    period: 'MONTHLY',
    expected: 'From $0.0010 / unit',
  },
  {
    rule: 'STAIRCASE: From the cheapest flatFee plus suffix',
    unit: unit({ pricingModel: 'STAIRCASE', tiers: [tier(0, 10, null, '10'), tier(10, 100, null, '50'), tier(100, null, null, '200')] }),
    currency: 'USD',
    period: 'MONTHLY',
    expected: 'From $10.00/mo',
  },
  {
    rule: 'STAIRCASE with a free first band never says "From Free"',
    unit: unit({ pricingModel: 'STAIRCASE', tiers: [tier(0, 10, null, '0'), tier(10, 100, null, '10'), tier(100, null, null, '50')] }),
    currency: 'USD',
    period: 'MONTHLY',
    expected: 'Free up to 10 units, then from $10.00/mo',
  },
  {
    rule: 'OUTCOME_BASED is rate / unit',
    unit: unit({ pricingModel: 'OUTCOME_BASED', rate: '0.05', outcomeWeights: { SUCCESS: 1 } }),
    currency: 'USD',
    period: 'MONTHLY',
    expected: '$0.0500 / unit',
  },
];
for (const row of headlineRows) {
  test(`describeUnitPricing headline: ${row.rule}`, () => {
    assert.equal(describeUnitPricing(row.unit, row.currency, row.period).headline, row.expected);
  });
}

test('describeUnitPricing: a non-zero minFee reads as a per-period minimum', () => {
  const display = describeUnitPricing(unit({ pricingModel: 'PER_UNIT', rate: '0.002', minFee: '5' }), 'USD', 'MONTHLY');
  assert.equal(display.minimum, 'Minimum $5.00/mo');
});

/* Tier tables. */
const tierTableRows: { rule: string; unit: UnitPricing; expected: TierRow[] }[] = [
  {
    rule: 'GRADUATED bands read First / Next / Over, with flat fees as two-decimal amounts',
    unit: unit({ pricingModel: 'GRADUATED', tiers: [tier(0, 1000, '0.002'), tier(1000, 10000, '0.0015', '5'), tier(10000, null, '0.001')] }),
    expected: [
      { range: 'First 1,000', tierStart: 0, tierEnd: 1000, unitPrice: '$0.0020', flatFee: null },
      { range: 'Next 9,000', tierStart: 1000, tierEnd: 10000, unitPrice: '$0.0015', flatFee: '$5.00' },
      { range: 'Over 10,000', tierStart: 10000, tierEnd: null, unitPrice: '$0.0010', flatFee: null },
    ],
  },
  {
    rule: 'VOLUME_TIERED bands read Up to / Over ... up to / Over',
    unit: unit({ pricingModel: 'VOLUME_TIERED', tiers: [tier(0, 1000, '0.002'), tier(1000, 10000, '0.0015'), tier(10000, null, '0.001')] }),
    expected: [
      { range: 'Up to 1,000', tierStart: 0, tierEnd: 1000, unitPrice: '$0.0020', flatFee: null },
      { range: 'Over 1,000 up to 10,000', tierStart: 1000, tierEnd: 10000, unitPrice: '$0.0015', flatFee: null },
      { range: 'Over 10,000', tierStart: 10000, tierEnd: null, unitPrice: '$0.0010', flatFee: null },
    ],
  },
  {
    rule: 'STAIRCASE bands carry the flat fee per band and no unit price',
    unit: unit({ pricingModel: 'STAIRCASE', tiers: [tier(0, 10, null, '10'), tier(10, null, null, '50')] }),
    expected: [
      { range: 'Up to 10', tierStart: 0, tierEnd: 10, unitPrice: null, flatFee: '$10.00' },
      { range: 'Over 10', tierStart: 10, tierEnd: null, unitPrice: null, flatFee: '$50.00' },
    ],
  },
  {
    rule: 'a zero band fee reads Free, as a zero flat amount does',
    unit: unit({ pricingModel: 'STAIRCASE', tiers: [tier(0, 5, null, '0'), tier(5, null, null, '40')] }),
    expected: [
      { range: 'Up to 5', tierStart: 0, tierEnd: 5, unitPrice: null, flatFee: 'Free' },
      { range: 'Over 5', tierStart: 5, tierEnd: null, unitPrice: null, flatFee: '$40.00' },
    ],
  },
];
for (const row of tierTableRows) {
  test(`describeUnitPricing tiers: ${row.rule}`, () => {
    const display = describeUnitPricing(row.unit, 'USD', 'MONTHLY');
    assert.deepEqual(display.tiers, row.expected);
    assert.equal(display.weights, null);
  });
}

test('describeUnitPricing: non-tiered models have no tier table', () => {
  assert.equal(describeUnitPricing(unit({ pricingModel: 'PER_UNIT', rate: '1' }), 'USD', 'MONTHLY').tiers, null);
});

test('describeUnitPricing note: each tier table says how it bills; models without a table have no note', () => {
  const bands = [tier(0, 1000, '0.002'), tier(1000, null, '0.001')];
  const cases: Array<[string, UnitPricing, string | null]> = [
    [
      'GRADUATED: by the tier each unit falls in',
      unit({ pricingModel: 'GRADUATED', tiers: bands }),
      'Each unit is billed at the rate of the tier it falls in.',
    ],
    [
      'VOLUME_TIERED: all units at the tier the total reaches',
      unit({ pricingModel: 'VOLUME_TIERED', tiers: bands }),
      "All units are billed at the rate of the tier the period's total reaches.",
    ],
    [
      'STAIRCASE: one flat fee',
      unit({ pricingModel: 'STAIRCASE', tiers: [tier(0, 5, null, '10'), tier(5, null, null, '40')] }),
      "One flat fee: that of the tier the period's total reaches.",
    ],
    ['PER_UNIT: none', unit({ pricingModel: 'PER_UNIT', rate: '1' }), null],
    ['FLAT_RATE: none', unit({ pricingModel: 'FLAT_RATE', rate: '49' }), null],
    ['PERCENTAGE: none', unit({ pricingModel: 'PERCENTAGE', rate: '2.9' }), null],
    ['INCLUDED_QUOTA: none', unit({ pricingModel: 'INCLUDED_QUOTA', rate: '5', blockSize: 1000 }), null],
  ];
  for (const [rule, u, note] of cases) assert.equal(describeUnitPricing(u, 'USD', 'MONTHLY').note, note, rule);
});

/* The metric's name and unit in every line. */
const pluralRows: Array<[string, string]> = [
  ['call', 'calls'],
  ['token', 'tokens'],
  ['query', 'queries'],
  ['day', 'days'],
  ['search', 'searches'],
  ['box', 'boxes'],
  ['API call', 'API calls'],
  ['GB', 'GB'],
  ['kWh', 'kWh'],
  ['1k tokens', '1k tokens'],
  ['GB-month', 'GB-months'],
];
for (const [one, other] of pluralRows) {
  test(`pluralUnit: ${one} -> ${other}`, () => {
    assert.equal(pluralUnit(one), other);
  });
}

test('metricLabel: the display name when set, else metricName made readable, never raw', () => {
  const cases: Array<[string, string | null | undefined, string]> = [
    ['api_calls', 'API calls', 'API calls'],
    ['api_calls', null, 'Api calls'],
    ['api_calls', undefined, 'Api calls'],
    ['api_calls', '   ', 'Api calls'],
    ['llm.tokens:in', null, 'Llm tokens in'],
  ];
  for (const [name, displayName, expected] of cases) assert.equal(metricLabel(name, displayName), expected, `${name} / ${String(displayName)}`);
});

const namedRows: { rule: string; unit: UnitPricing; headline: string; note?: string; firstRange?: string }[] = [
  {
    rule: 'PER_UNIT: rate / call after N free',
    unit: unit({ pricingModel: 'PER_UNIT', rate: '0.002', includedFree: 1000, metricUnit: 'call' }),
    headline: '$0.0020 / call after 1,000 free',
  },
  {
    rule: 'INCLUDED_QUOTA per block: per 1,000 calls, money with two decimals',
    unit: unit({ pricingModel: 'INCLUDED_QUOTA', rate: '1.5', blockSize: 1000, metricUnit: 'call' }),
    headline: '$1.50 per 1,000 calls',
  },
  {
    rule: 'GRADUATED: From rate / token, the note names tokens',
    unit: unit({ pricingModel: 'GRADUATED', metricUnit: 'token', tiers: [tier(0, 1000, '0.002'), tier(1000, null, '0.001')] }),
    headline: 'From $0.0010 / token',
    note: 'Each token is billed at the rate of the tier it falls in.',
    firstRange: 'First 1,000',
  },
  {
    rule: 'GRADUATED single open band: All queries',
    unit: unit({ pricingModel: 'GRADUATED', metricUnit: 'query', tiers: [tier(0, null, '0.002')] }),
    headline: 'From $0.0020 / query',
    firstRange: 'All queries',
  },
  {
    rule: 'VOLUME_TIERED: all searches at the tier the total reaches',
    unit: unit({ pricingModel: 'VOLUME_TIERED', metricUnit: 'search', tiers: [tier(0, 1000, '0.002'), tier(1000, null, '0.001')] }),
    headline: 'From $0.0010 / search',
    note: "All searches are billed at the rate of the tier the period's total reaches.",
  },
  {
    rule: 'STAIRCASE with a free band names the unit',
    unit: unit({ pricingModel: 'STAIRCASE', metricUnit: 'seat', tiers: [tier(0, 10, null, '0'), tier(10, null, null, '10')] }),
    headline: 'Free up to 10 seats, then from $10.00/mo',
  },
  {
    rule: 'OUTCOME_BASED: rate / run',
    unit: unit({ pricingModel: 'OUTCOME_BASED', rate: '0.05', metricUnit: 'run', outcomeWeights: { SUCCESS: 1 } }),
    headline: '$0.0500 / run',
  },
];
for (const row of namedRows) {
  test(`describeUnitPricing with a metric unit: ${row.rule}`, () => {
    const display = describeUnitPricing(row.unit, 'USD', 'MONTHLY');
    assert.equal(display.headline, row.headline);
    if (row.note !== undefined) assert.equal(display.note, row.note);
    if (row.firstRange !== undefined) assert.equal(display.tiers?.[0]?.range, row.firstRange);
  });
}

test('describeUnitPricing: label and unitName come from the metric, with the spec\'s "unit" as fallback', () => {
  const named = describeUnitPricing(unit({ pricingModel: 'PER_UNIT', rate: '1', metricDisplayName: 'API calls', metricUnit: 'call' }), 'USD', 'MONTHLY');
  assert.equal(named.label, 'API calls');
  assert.deepEqual(named.unitName, { one: 'call', other: 'calls' });
  const bare = describeUnitPricing(unit({ pricingModel: 'PER_UNIT', rate: '1' }), 'USD', 'MONTHLY');
  assert.deepEqual(bare.unitName, { one: 'unit', other: 'units' });
});

/* OUTCOME_BASED weights. */
test('describeUnitPricing weights: free, half price, full price, a percent; then the other-statuses note', () => {
  const display = describeUnitPricing(
    unit({ pricingModel: 'OUTCOME_BASED', rate: '0.05', outcomeWeights: { TIMEOUT: 0.25, ERROR: 0, PARTIAL: 0.5, SUCCESS: 1 } }),
    'USD',
    'MONTHLY',
  );
  const expected: WeightRow[] = [
    { status: 'SUCCESS', statusText: 'Success', weight: 1, label: 'full price' },
    { status: 'PARTIAL', statusText: 'Partial', weight: 0.5, label: 'half price' },
    { status: 'ERROR', statusText: 'Error', weight: 0, label: 'free' },
    { status: 'TIMEOUT', statusText: 'Timeout', weight: 0.25, label: '25% of price' },
  ];
  assert.deepEqual(display.weights, expected);
  assert.equal(display.note, 'Other statuses bill at full price');
});

test('statusText: a status code for people', () => {
  const cases: Array<[string, string]> = [
    ['SUCCESS', 'Success'],
    ['RATE_LIMITED', 'Rate limited'],
    ['tool-error', 'Tool error'],
    ['__', '__'],
  ];
  for (const [code, text] of cases) assert.equal(statusText(code), text, code);
});

/* Plans and offerings. */
const usagePlan = plan('rp_usage', [unit({ pricingModel: 'PER_UNIT', rate: '0.002' })]);
const emptyPlan = plan('rp_empty', []);

test('describeRatePlan: a plan with no metrics shows Contact sales', () => {
  const display = describeRatePlan(emptyPlan);
  assert.equal(display.headline, 'Contact sales');
  assert.deepEqual(display.units, []);
});

const offeringRows: { rule: string; offering: Offering; field: 'price' | 'perMonth' | 'trial' | 'billing'; expected: string | null }[] = [
  { rule: 'entryPrice reads as amount plus suffix', offering: offering('o1', '49', 'MONTHLY'), field: 'price', expected: '$49.00/mo' },
  { rule: 'a zero entryPrice reads Free', offering: offering('o1', '0', 'MONTHLY'), field: 'price', expected: 'Free' },
  {
    rule: 'no entryPrice and no metrics reads Contact sales',
    offering: offering('o1', null, 'MONTHLY', ['rp_empty']),
    field: 'price',
    expected: 'Contact sales',
  },
  { rule: 'no entryPrice with metrics reads Usage-based', offering: offering('o1', null, 'MONTHLY', ['rp_usage']), field: 'price', expected: 'Usage-based' },
  { rule: 'perMonth of an ANNUAL 120 is $10.00/mo', offering: offering('o1', '120', 'ANNUAL'), field: 'perMonth', expected: '$10.00/mo' },
  { rule: 'perMonth rounds half up to two decimals (QUARTERLY 100)', offering: offering('o1', '100', 'QUARTERLY'), field: 'perMonth', expected: '$33.33/mo' },
  { rule: 'ONE_TIME has no perMonth', offering: offering('o1', '99', 'ONE_TIME'), field: 'perMonth', expected: null },
  { rule: 'usage-only has no perMonth', offering: offering('o1', null, 'MONTHLY', ['rp_usage']), field: 'perMonth', expected: null },
  {
    rule: 'trialDays > 0 reads N-day free trial',
    offering: { ...offering('o1', '49', 'MONTHLY'), trialDays: 14 },
    field: 'trial',
    expected: '14-day free trial',
  },
  { rule: 'trialDays 0 has no trial text', offering: offering('o1', '49', 'MONTHLY'), field: 'trial', expected: null },
  {
    rule: 'PREPAID reads that usage draws from the credit balance',
    offering: { ...offering('o1', '49', 'MONTHLY'), billingMode: 'PREPAID' },
    field: 'billing',
    expected: 'Prepaid: usage draws from your credit balance',
  },
  { rule: 'POSTPAID has no billing text', offering: offering('o1', '49', 'MONTHLY'), field: 'billing', expected: null },
];
for (const row of offeringRows) {
  test(`describeOffering ${row.field}: ${row.rule}`, () => {
    assert.equal(describeOffering(row.offering, [usagePlan, emptyPlan])[row.field], row.expected);
  });
}

test('describeOffering: an unknown ratePlanId is skipped silently', () => {
  const display = describeOffering(offering('o1', null, 'MONTHLY', ['rp_missing', 'rp_usage']), [usagePlan]);
  assert.deepEqual(
    display.plans.map((p) => p.id),
    ['rp_usage'],
  );
  assert.equal(display.plans[0]?.units[0]?.headline, '$0.0020 / unit');
});

/* Comparison. */
test('monthlyEquivalent: MONTHLY x1, QUARTERLY /3, ANNUAL /12, ONE_TIME null', () => {
  assert.equal(monthlyEquivalent('12', 'MONTHLY')?.toFixed(), '12');
  assert.equal(monthlyEquivalent('30', 'QUARTERLY')?.toFixed(), '10');
  assert.equal(monthlyEquivalent('120', 'ANNUAL')?.toFixed(), '10');
  assert.equal(monthlyEquivalent('99', 'ONE_TIME'), null);
});

const perUnitCheap = plan('rp_cheap', [unit({ pricingModel: 'PER_UNIT', metricName: 'api_calls', rate: '0.001' })]);
const perUnitDear = plan('rp_dear', [unit({ pricingModel: 'PER_UNIT', metricName: 'api_calls', rate: '0.002' })]);
const quotaSameMetric = plan('rp_quota', [unit({ pricingModel: 'INCLUDED_QUOTA', metricName: 'api_calls', rate: '0.001', includedFree: 100 })]);
const perUnitOtherMetric = plan('rp_other', [unit({ pricingModel: 'PER_UNIT', metricName: 'tokens', rate: '0.001' })]);
const allPlans = [perUnitCheap, perUnitDear, quotaSameMetric, perUnitOtherMetric];

const compareRows: { rule: string; a: Offering; b: Offering; expected: number | null }[] = [
  {
    rule: 'ANNUAL 120 (10 per month) vs MONTHLY 12: not equal, a is cheaper -> negative',
    a: offering('a', '120', 'ANNUAL'),
    b: offering('b', '12', 'MONTHLY'),
    expected: -1,
  },
  { rule: 'ANNUAL 144 vs MONTHLY 12: equal per month -> 0', a: offering('a', '144', 'ANNUAL'), b: offering('b', '12', 'MONTHLY'), expected: 0 },
  { rule: 'QUARTERLY 30 vs MONTHLY 12: 10 vs 12 per month -> negative', a: offering('a', '30', 'QUARTERLY'), b: offering('b', '12', 'MONTHLY'), expected: -1 },
  { rule: 'ONE_TIME has no per-month price -> null', a: offering('a', '99', 'ONE_TIME'), b: offering('b', '12', 'MONTHLY'), expected: null },
  { rule: 'different currencies -> null', a: offering('a', '10', 'MONTHLY', [], 'EUR'), b: offering('b', '12', 'MONTHLY'), expected: null },
  { rule: 'entryPrice vs usage-only -> null', a: offering('a', '10', 'MONTHLY'), b: offering('b', null, 'MONTHLY', ['rp_cheap']), expected: null },
  {
    rule: 'usage-only, same model and metric -> compared by rate',
    a: offering('a', null, 'MONTHLY', ['rp_dear']),
    b: offering('b', null, 'MONTHLY', ['rp_cheap']),
    expected: 1,
  },
  {
    rule: 'usage-only, different model -> null',
    a: offering('a', null, 'MONTHLY', ['rp_cheap']),
    b: offering('b', null, 'MONTHLY', ['rp_quota']),
    expected: null,
  },
  {
    rule: 'usage-only, different metric -> null',
    a: offering('a', null, 'MONTHLY', ['rp_cheap']),
    b: offering('b', null, 'MONTHLY', ['rp_other']),
    expected: null,
  },
];
for (const row of compareRows) {
  test(`compareOfferings: ${row.rule}`, () => {
    const result = compareOfferings(row.a, row.b, allPlans);
    assert.equal(result === null ? null : Math.sign(result), row.expected);
  });
}

test('compareOfferings: ANNUAL 120 vs MONTHLY 10 are equal per month -> 0', () => {
  assert.equal(compareOfferings(offering('a', '120', 'ANNUAL'), offering('b', '10', 'MONTHLY'), []), 0);
});

test('sortOfferingsForDisplay: cheapest per month first, stable on ties, incomparable after in given order', () => {
  const input = [
    offering('usage', null, 'MONTHLY', ['rp_cheap']),
    offering('monthly12', '12', 'MONTHLY'),
    offering('once', '99', 'ONE_TIME'),
    offering('annual120', '120', 'ANNUAL'),
    offering('monthly10', '10', 'MONTHLY'),
    offering('quarterly36', '36', 'QUARTERLY'),
  ];
  const before = input.map((o) => o.id);
  assert.deepEqual(
    sortOfferingsForDisplay(input, allPlans).map((o) => o.id),
    ['annual120', 'monthly10', 'monthly12', 'quarterly36', 'usage', 'once'],
  );
  assert.deepEqual(
    input.map((o) => o.id),
    before,
    'input order is not mutated',
  );
});

/* Purity: display.ts must run in browsers. */
test('display.ts imports nothing from node:', () => {
  const source = readFileSync(new URL('./display.ts', import.meta.url), 'utf8');
  assert.equal(/from\s+['"]node:/.test(source), false);
  assert.equal(/import\(\s*['"]node:/.test(source), false);
  assert.equal(/\b(Date\.now|Math\.random)\b/.test(source), false);
});
