import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pricingModels, type BillingPeriod, type PricingModel } from '@tollgate/pricing';
import {
  draftOf,
  fieldsOf,
  newPlan,
  newUnit,
  planBody,
  metricChoices,
  periodLabel,
  planInputs,
  previewOf,
  quantityOf,
  unitBody,
  unitsText,
  type MetricLabels,
  type UnitDraft,
} from '../src/plan-form.js';

const unit = (model: PricingModel, fields: Partial<UnitDraft>): UnitDraft => ({ ...newUnit('api_calls', model), ...fields });

/** One complete unit per model, the body it sends, and the pricing page's headline for it (USD, monthly). */
const MODELS: Array<[PricingModel, Partial<UnitDraft>, Record<string, unknown>, string]> = [
  ['PER_UNIT', { rate: '0.002', includedFree: '1000' }, { rate: '0.002', includedFree: 1000 }, '$0.0020 / unit after 1,000 free'],
  ['FLAT_RATE', { rate: '49', includedFree: '5', minFee: '1' }, { rate: '49' }, '$49.00/mo'],
  ['PERCENTAGE', { rate: '2.9' }, { rate: '2.9' }, '2.9% of transaction value'],
  [
    'INCLUDED_QUOTA',
    { rate: '5', includedFree: '10000', blockSize: '1000' },
    { rate: '5', includedFree: 10000, blockSize: 1000 },
    '$5.00 per 1,000 units after 10,000 free',
  ],
  [
    'GRADUATED',
    {
      tiers: [
        { tierStart: '0', tierEnd: '1000', unitPrice: '0.01', flatFee: '' },
        { tierStart: '1000', tierEnd: '', unitPrice: '0.005', flatFee: '' },
      ],
    },
    {
      tiers: [
        { tierStart: 0, tierEnd: 1000, unitPrice: '0.01' },
        { tierStart: 1000, tierEnd: null, unitPrice: '0.005' },
      ],
    },
    'From $0.0050 / unit',
  ],
  [
    'VOLUME_TIERED',
    { tiers: [{ tierStart: '0', tierEnd: '', unitPrice: '0.01', flatFee: '2' }] },
    { tiers: [{ tierStart: 0, tierEnd: null, unitPrice: '0.01', flatFee: '2' }] },
    'From $0.0100 / unit',
  ],
  [
    'STAIRCASE',
    { tiers: [{ tierStart: '0', tierEnd: '', unitPrice: '9', flatFee: '10' }] },
    { tiers: [{ tierStart: 0, tierEnd: null, flatFee: '10' }] },
    'From $10.00/mo',
  ],
  [
    'OUTCOME_BASED',
    {
      rate: '0.05',
      weights: [
        { status: 'ERROR', weight: '0' },
        { status: ' ', weight: '1' },
      ],
    },
    { rate: '0.05', outcomeWeights: { ERROR: 0 } },
    '$0.0500 / unit',
  ],
];

describe('unitBody and previewOf: every pricing model', () => {
  it('the table covers all eight models', () => assert.deepEqual(MODELS.map((m) => m[0]).sort(), [...pricingModels].sort()));
  for (const [model, fields, body, headline] of MODELS) {
    it(`${model}: sends only the fields it uses; the preview reads "${headline}"`, () => {
      assert.deepEqual(unitBody(unit(model, fields)), { metricName: 'api_calls', pricingModel: model, ...body });
      const preview = previewOf({ ...newPlan(), name: 'Pro', metrics: [unit(model, fields)] });
      assert.deepEqual(preview.issues, []);
      assert.equal(preview.display?.units[0]?.headline, headline);
    });
  }
});

describe('previewOf: what it cannot word yet', () => {
  const cases: Array<[string, Parameters<typeof previewOf>[0], string[]]> = [
    ['no currency', { ...newPlan(), currency: 'usd' }, ['currency']],
    ['a rate missing', { ...newPlan(), metrics: [unit('PER_UNIT', {})] }, ['metrics.0.rate']],
    ['text for a quantity', { ...newPlan(), metrics: [unit('PER_UNIT', { rate: '1', includedFree: 'ten' })] }, ['metrics.0']],
    [
      'a band that does not start at the previous end',
      { ...newPlan(), metrics: [unit('GRADUATED', { tiers: [{ tierStart: '5', tierEnd: '', unitPrice: '1', flatFee: '' }] })] },
      ['metrics.0.tiers.0.tierStart'],
    ],
  ];
  for (const [what, draft, fields] of cases)
    it(`${what} -> ${fields.join(', ')}`, () =>
      assert.deepEqual(
        previewOf(draft).issues.map((i) => i.field),
        fields,
      ));
  it('a plan with no unit reads "Contact sales", as the pricing page says it', () =>
    assert.equal(previewOf({ ...newPlan(), metrics: [] }).display?.headline, 'Contact sales'));
});

describe("previewOf: units worded with the metric's display name and unit, as the pricing page words them", () => {
  const metrics: MetricLabels[] = [
    { name: 'api_calls', displayName: 'API calls', unit: 'call' },
    { name: 'search_queries', displayName: null, unit: 'query' },
    { name: 'seats', displayName: 'Seats', unit: null },
  ];
  const graduated = {
    tiers: [
      { tierStart: '0', tierEnd: '1000', unitPrice: '0.01', flatFee: '' },
      { tierStart: '1000', tierEnd: '', unitPrice: '0.005', flatFee: '' },
    ],
  };
  // [metric, model, fields, label, headline, bands heading (a tier table's first column; none without a table)]
  const cases: Array<[string, PricingModel, Partial<UnitDraft>, string, string, string | undefined]> = [
    ['api_calls', 'PER_UNIT', { rate: '0.002' }, 'API calls', '$0.0020 / call', undefined],
    ['api_calls', 'PER_UNIT', { rate: '0.002', includedFree: '1000' }, 'API calls', '$0.0020 / call after 1,000 free', undefined],
    ['api_calls', 'INCLUDED_QUOTA', { rate: '1.5', blockSize: '1000' }, 'API calls', '$1.50 per 1,000 calls', undefined],
    ['api_calls', 'GRADUATED', graduated, 'API calls', 'From $0.0050 / call', 'Calls'],
    ['search_queries', 'GRADUATED', graduated, 'Search queries', 'From $0.0050 / query', 'Queries'],
    ['seats', 'VOLUME_TIERED', graduated, 'Seats', 'From $0.0050 / unit', 'Units'],
    ['not_listed', 'PER_UNIT', { rate: '0.002' }, 'Not listed', '$0.0020 / unit', undefined],
  ];
  for (const [metric, model, fields, label, headline, heading] of cases)
    it(`${metric} ${model}: ${label}, "${headline}", bands headed ${String(heading)}`, () => {
      const u = previewOf({ ...newPlan(), metrics: [{ ...unit(model, fields), metricName: metric }] }, metrics).display?.units[0];
      assert.deepEqual([u?.label, u?.headline, u?.tierHeadings?.range], [label, headline, heading]);
    });
  it('without the metrics list (still loading) a unit reads as pricing words it without them', () =>
    assert.equal(previewOf({ ...newPlan(), metrics: [unit('PER_UNIT', { rate: '0.002' })] }).display?.units[0]?.headline, '$0.0020 / unit'));
  it("a graduated table's note names the unit", () =>
    assert.equal(
      previewOf({ ...newPlan(), metrics: [unit('GRADUATED', graduated)] }, metrics).display?.units[0]?.note,
      'Each call is billed at the rate of the tier it falls in.',
    ));
});

describe('quantityOf: a quantity as typed', () => {
  const cases: Array<[string, number | string | undefined]> = [
    ['', undefined],
    ['  ', undefined],
    ['1000', 1000],
    [' 2.5 ', 2.5],
    ['1,000', '1,000'],
    ['-1', '-1'],
  ];
  for (const [text, want] of cases) it(`${JSON.stringify(text)} -> ${JSON.stringify(want)}`, () => assert.equal(quantityOf(text), want));
});

describe('fieldsOf, planBody, planInputs and draftOf', () => {
  it('only the tiered models have tiers, and STAIRCASE no per-unit price on them', () => {
    assert.deepEqual(
      pricingModels.filter((m) => fieldsOf(m).tiers),
      ['GRADUATED', 'VOLUME_TIERED', 'STAIRCASE'],
    );
    assert.equal(fieldsOf('STAIRCASE').tierUnitPrice, false);
  });
  it('planBody trims the texts', () =>
    assert.deepEqual(planBody({ name: ' Pro ', currency: ' EUR', billingPeriod: 'ANNUAL', metrics: [] }), {
      name: 'Pro',
      currency: 'EUR',
      billingPeriod: 'ANNUAL',
      metrics: [],
    }));
  it('planInputs names every input as the API names its field', () => {
    const inputs = planInputs({ ...newPlan(), metrics: [unit('GRADUATED', {})] });
    for (const f of ['name', 'currency', 'metrics.0.metricName', 'metrics.0.rate', 'metrics.0.tiers.0.unitPrice', 'metrics.0.tiers.0.tierEnd'])
      assert.ok(inputs.includes(f), f);
  });
  it('draftOf a stored plan sends the same units again', () => {
    const draft = draftOf({
      id: 'plan_1',
      name: 'Pro',
      currency: 'USD',
      billingPeriod: 'MONTHLY',
      version: 1,
      updatedAt: '2026-01-01T00:00:00.000Z',
      metrics: [
        {
          metricId: 'mtr_1',
          metricName: 'calls',
          pricingModel: 'GRADUATED',
          rate: '0',
          includedFree: 0,
          blockSize: null,
          minFee: null,
          outcomeWeights: null,
          tiers: [{ tierStart: 0, tierEnd: null, unitPrice: '0.1', flatFee: null }],
        },
        {
          metricId: 'mtr_2',
          metricName: 'runs',
          pricingModel: 'OUTCOME_BASED',
          rate: '0.5',
          includedFree: 10,
          blockSize: null,
          minFee: '1.00',
          outcomeWeights: { ERROR: 0 },
          tiers: [],
        },
      ],
    });
    assert.deepEqual(planBody(draft).metrics, [
      { metricName: 'calls', pricingModel: 'GRADUATED', tiers: [{ tierStart: 0, tierEnd: null, unitPrice: '0.1' }] },
      { metricName: 'runs', pricingModel: 'OUTCOME_BASED', rate: '0.5', includedFree: 10, minFee: '1.00', outcomeWeights: { ERROR: 0 } },
    ]);
  });
});

describe('the editor’s words for people: a period, a metric, a plan’s units, never the API’s codes', () => {
  // The pricing page's switch says Monthly, Quarterly, Annually; ONE_TIME is its " one-time" suffix.
  const periods: Array<[BillingPeriod, string]> = [
    ['MONTHLY', 'Monthly'],
    ['QUARTERLY', 'Quarterly'],
    ['ANNUAL', 'Annually'],
    ['ONE_TIME', 'One-time'],
  ];
  for (const [period, want] of periods) it(`${period} -> ${want}`, () => assert.equal(periodLabel(period), want));

  const listed: MetricLabels[] = [
    { name: 'api_calls', displayName: 'API calls', unit: 'call' },
    { name: 'search_queries', displayName: null, unit: 'query' },
    { name: 'calls_v1', displayName: 'Calls', unit: null },
    { name: 'calls_v2', displayName: 'Calls', unit: null },
  ];
  it('a metric is offered by its display name, else its name made readable; a shared label names the metric', () =>
    assert.deepEqual(metricChoices(listed, ''), [
      { value: '', label: 'Choose a metric' },
      { value: 'api_calls', label: 'API calls' },
      { value: 'search_queries', label: 'Search queries' },
      { value: 'calls_v1', label: 'Calls (calls_v1)' },
      { value: 'calls_v2', label: 'Calls (calls_v2)' },
    ]));
  it('a stored plan’s metric missing from the list loaded is still offered, first', () =>
    assert.deepEqual(
      metricChoices(listed.slice(0, 1), 'agent_runs').map((c) => c.label),
      ['Choose a metric', 'Agent runs', 'API calls'],
    ));
  it('a plan’s units in the list: each metric’s label and its model', () =>
    assert.equal(
      unitsText(
        [
          { metricName: 'api_calls', pricingModel: 'INCLUDED_QUOTA' },
          { metricName: 'search_queries', pricingModel: 'GRADUATED' },
        ],
        listed,
      ),
      'API calls (included quota, then overage), Search queries (graduated tiers)',
    ));
  it('a plan with no units reads as the pricing page reads it', () => assert.equal(unitsText([], listed), 'None: contact sales'));
});
