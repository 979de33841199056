import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PREPAID_TEXT, type Offering, type UnitPricing } from '@tollgate/pricing';
import { failureKind, type ChangeResult, type Preview, type WidgetConfig } from '../src/api.js';
import { messages } from '../src/messages.js';
import { candidatePerMonth, candidatePrepaid, candidatePrice, candidateUnits, previewLines, resultLines, type UnitLine } from '../src/present.js';

const base: Preview = {
  subscriptionVersion: 3,
  action: 'UPGRADE',
  applyAt: 'IMMEDIATE',
  currency: 'USD',
  effectiveAt: '2026-04-16T00:00:00.000Z',
  credit: '24.50',
  debit: '99.50',
  netChargeToday: '75.00',
  usageToDate: '0.00',
  invoiceTotal: '75.00',
  nextRenewalAt: '2026-05-01T00:00:00.000Z',
  nextRenewalAmount: '199.00',
  summary: '…',
};

describe('previewLines: the figures of a review, worded by @tollgate/pricing', () => {
  const cases: Array<[string, Partial<Preview>, string[]]> = [
    [
      'an immediate upgrade: credit, charge, net today, next renewal',
      {},
      ['Credit for unused time −$24.50', 'Charge for the rest of the period $99.50', 'Charged today $75.00', 'Next renewal (May 1, 2026) $199.00'],
    ],
    [
      'an immediate downgrade: the net is a credit, shown as one',
      { action: 'DOWNGRADE', credit: '24.50', debit: '4.50', netChargeToday: '-20.00', nextRenewalAmount: '9.00' },
      ['Credit for unused time −$24.50', 'Charge for the rest of the period $4.50', 'Credited today $20.00', 'Next renewal (May 1, 2026) $9.00'],
    ],
    [
      'usage so far is billed with an immediate change',
      { usageToDate: '3.20' },
      [
        'Credit for unused time −$24.50',
        'Charge for the rest of the period $99.50',
        'Charged today $75.00',
        'Usage so far, billed now $3.20',
        'Next renewal (May 1, 2026) $199.00',
      ],
    ],
    [
      'at the period end: nothing today, the renewal only',
      { applyAt: 'PERIOD_END', credit: null, debit: null, netChargeToday: null, usageToDate: '3.20' },
      ['Next renewal (May 1, 2026) $199.00'],
    ],
    [
      'an immediate cancellation: no refund figure, no renewal',
      { action: 'CANCEL', credit: null, debit: null, netChargeToday: null, nextRenewalAt: null, nextRenewalAmount: null },
      [],
    ],
    [
      'a cancellation that bills usage now shows that usage',
      { action: 'CANCEL', credit: null, debit: null, netChargeToday: null, nextRenewalAt: null, nextRenewalAmount: null, usageToDate: '1.00' },
      ['Usage so far, billed now $1.00'],
    ],
    [
      'euros, worded as the pricing page does',
      { currency: 'EUR' },
      ['Credit for unused time −€24.50', 'Charge for the rest of the period €99.50', 'Charged today €75.00', 'Next renewal (May 1, 2026) €199.00'],
    ],
  ];
  for (const [name, change, expected] of cases) {
    it(name, () => {
      assert.deepEqual(
        previewLines(messages, { ...base, ...change }).map((l) => `${l.label} ${l.amount}`),
        expected,
      );
    });
  }
});

describe('previewLines: what is charged or credited today stands out, and only that', () => {
  const cases: Array<[string, Partial<Preview>, string | null]> = [
    ['an immediate upgrade: the charge today', {}, 'Charged today'],
    ['an immediate downgrade: the credit today', { action: 'DOWNGRADE', credit: '24.50', debit: '4.50', netChargeToday: '-20.00' }, 'Credited today'],
    ['with usage billed now: still the charge today', { usageToDate: '3.20' }, 'Charged today'],
    ['at the period end: nothing today, nothing stands out', { applyAt: 'PERIOD_END', credit: null, debit: null, netChargeToday: null }, null],
    [
      'an immediate cancellation: no net figure',
      { action: 'CANCEL', credit: null, debit: null, netChargeToday: null, nextRenewalAt: null, nextRenewalAmount: null, usageToDate: '1.00' },
      null,
    ],
  ];
  for (const [name, change, expected] of cases) {
    it(name, () => {
      const totals = previewLines(messages, { ...base, ...change }).filter((l) => l.total);
      assert.deepEqual(
        totals.map((l) => l.label),
        expected === null ? [] : [expected],
      );
    });
  }
});

describe('resultLines: the done step names the invoice and the credit note by their numbers', () => {
  const sub = {
    id: 'sub_1',
    status: 'ACTIVE',
    version: 4,
    currency: 'USD',
    offering: null,
    currentPeriodEnd: '2026-05-01T00:00:00.000Z',
    cancelAtPeriodEnd: false,
    scheduledChange: null,
  };
  const done: ChangeResult = {
    action: 'UPGRADE',
    applyAt: 'IMMEDIATE',
    status: 'ACTIVE',
    offeringId: 'off_agents',
    offeringName: 'Agents',
    invoiceId: 'inv_01',
    invoiceNumber: 'INV-2026-000003',
    creditNoteId: null,
    creditNoteNumber: null,
    creditNoteAmount: null,
    scheduledAt: null,
    effectiveAt: '2026-04-16T00:00:00.000Z',
    subscription: sub,
  };
  const cases: Array<[string, Partial<ChangeResult>, string[]]> = [
    ['an upgrade: the invoice by its number', {}, ['Your plan is now Agents.', 'Status: active', 'Invoice INV-2026-000003']],
    [
      'a downgrade: the credit note by its number, with its amount, and the invoice',
      { action: 'DOWNGRADE', offeringName: 'Starter', creditNoteId: 'cn_01', creditNoteNumber: 'CN-2026-000001', creditNoteAmount: '20.00' },
      ['Your plan is now Starter.', 'Status: active', 'Invoice INV-2026-000003', 'Credit note CN-2026-000001: $20.00'],
    ],
    [
      'an invoice without a number yet (a draft): its id, the only name it has',
      { action: 'CANCEL', status: 'CANCELLED', invoiceNumber: null, creditNoteId: 'cn_01', creditNoteNumber: 'CN-2026-000001', creditNoteAmount: '24.50' },
      ['Your subscription is cancelled.', 'Status: cancelled', 'Invoice inv_01', 'Credit note CN-2026-000001: $24.50'],
    ],
    [
      'a server that sends no numbers: the ids',
      { invoiceNumber: undefined, creditNoteId: 'cn_01', creditNoteNumber: undefined, creditNoteAmount: '1.00' },
      ['Your plan is now Agents.', 'Status: active', 'Invoice inv_01', 'Credit note cn_01: $1.00'],
    ],
    [
      'at the period end: the date, nothing billed',
      { applyAt: 'PERIOD_END', status: 'ACTIVE_PENDING_CHANGE', invoiceId: null, invoiceNumber: null, scheduledAt: '2026-05-01T00:00:00.000Z' },
      ['Agents starts on May 1, 2026.', 'Status: active, a change is scheduled'],
    ],
    [
      'a cancellation at the period end: its last day',
      {
        action: 'CANCEL',
        applyAt: 'PERIOD_END',
        status: 'ACTIVE_PENDING_CHANGE',
        invoiceId: null,
        invoiceNumber: null,
        effectiveAt: '2026-05-01T00:00:00.000Z',
      },
      ['Your subscription ends on May 1, 2026.', 'Status: active, a change is scheduled'],
    ],
    [
      'an upgrade paid first, paid: the change took effect',
      { payment: { status: 'succeeded', failureCode: null, failureMessage: null, actionUrl: null } },
      ['Your plan is now Agents.', 'Status: active', 'Invoice INV-2026-000003'],
    ],
    [
      'an upgrade whose payment was declined: it waits, and says why',
      { payment: { status: 'failed', failureCode: 'card_declined', failureMessage: 'Your card was declined.', actionUrl: null } },
      ['Your payment was declined (Your card was declined.): Agents starts once the invoice is paid.', 'Status: active', 'Invoice INV-2026-000003'],
    ],
    [
      'an upgrade the bank must confirm',
      { payment: { status: 'requires_action', failureCode: null, failureMessage: null, actionUrl: 'https://stripe.example/3ds' } },
      ['Your bank asks you to confirm the payment: Agents starts once it is confirmed.', 'Status: active', 'Invoice INV-2026-000003'],
    ],
    [
      'an upgrade whose payment has no answer yet',
      { payment: { status: 'pending', failureCode: null, failureMessage: null, actionUrl: null } },
      ['Your payment is being processed: Agents starts once it is paid.', 'Status: active', 'Invoice INV-2026-000003'],
    ],
  ];
  for (const [name, change, expected] of cases) it(name, () => assert.deepEqual(resultLines(messages, { ...done, ...change }), expected));
});

describe('failureKind: how the widget words a failed call', () => {
  const cases: Array<[number, string, ReturnType<typeof failureKind>]> = [
    [401, 'UNAUTHENTICATED', 'invalid'],
    [401, 'SESSION_EXPIRED', 'expired'],
    [401, 'HTTP_401', 'invalid'],
    [409, 'SUBSCRIPTION_CHANGED', 'changed'],
    [409, 'CHANGE_PENDING', 'pending'],
    [409, 'SUBSCRIPTION_NOT_ACTIVE', 'other'],
    [0, 'NETWORK', 'network'],
    [429, 'RATE_LIMITED', 'network'],
    [503, 'DATABASE_UNAVAILABLE', 'network'],
    [400, 'VALIDATION_FAILED', 'other'],
    [403, 'ORIGIN_NOT_ALLOWED', 'other'],
  ];
  for (const [status, code, kind] of cases) it(`${status} ${code} → ${kind}`, () => assert.equal(failureKind(status, code), kind));
});

describe('candidateUnits and candidatePerMonth: step 1 words each plan as the pricing page does', () => {
  const unit = (over: Partial<UnitPricing>): UnitPricing => ({
    metricId: 'm',
    metricName: 'api_calls',
    pricingModel: 'PER_UNIT',
    rate: '0.002',
    includedFree: 0,
    blockSize: null,
    minFee: null,
    tiers: [],
    outcomeWeights: null,
    ...over,
  });
  const offering = (id: string, over: Partial<Offering> = {}): Offering => ({
    id,
    name: id,
    billingMode: 'POSTPAID',
    currency: 'USD',
    entryPrice: null,
    billingPeriod: 'MONTHLY',
    trialDays: 0,
    ratePlanIds: [`${id}_plan`],
    ...over,
  });
  const config = (units: UnitPricing[], over: Partial<Offering> = {}): WidgetConfig => ({
    currentOfferingId: null,
    offerings: [offering('o', over)],
    ratePlans: [{ id: 'o_plan', name: 'Usage', currency: 'USD', billingPeriod: 'MONTHLY', metrics: units }],
  });
  const tiers = [
    { tierStart: 0, tierEnd: 1000, unitPrice: '0.002', flatFee: null },
    { tierStart: 1000, tierEnd: null, unitPrice: '0.001', flatFee: null },
  ];

  const cases: Array<[string, UnitPricing[], UnitLine[]]> = [
    [
      'a unit with a display name and a unit: "label: headline"',
      [unit({ includedFree: 1000, metricDisplayName: 'API calls', metricUnit: 'call' })],
      [{ text: 'API calls: $0.0020 / call after 1,000 free', note: null, minimum: null }],
    ],
    ['a unit without them: metricName made readable, "unit"', [unit({})], [{ text: 'Api calls: $0.0020 / unit', note: null, minimum: null }]],
    [
      'a block price as money with two decimals',
      [unit({ pricingModel: 'INCLUDED_QUOTA', rate: '1.5', blockSize: 1000, includedFree: 5000, metricDisplayName: 'Emails', metricUnit: 'email' })],
      [{ text: 'Emails: $1.50 per 1,000 emails after 5,000 free', note: null, minimum: null }],
    ],
    [
      'a tier table: the headline and the sentence saying how it bills',
      [unit({ pricingModel: 'VOLUME_TIERED', rate: '0', tiers, metricDisplayName: 'Searches', metricUnit: 'search' })],
      [{ text: 'Searches: From $0.0010 / search', note: "All searches are billed at the rate of the tier the period's total reaches.", minimum: null }],
    ],
    [
      'outcome-based: the headline only (its note needs the weights the widget leaves out)',
      [unit({ pricingModel: 'OUTCOME_BASED', rate: '0.05', outcomeWeights: { ERROR: 0 }, metricUnit: 'run' })],
      [{ text: 'Api calls: $0.0500 / run', note: null, minimum: null }],
    ],
    ['a minimum fee', [unit({ minFee: '5' })], [{ text: 'Api calls: $0.0020 / unit', note: null, minimum: 'Minimum $5.00/mo' }]],
    ['a plan with no units: none (the price says "Contact sales")', [], []],
    [
      'several units, in the plan order',
      [unit({ pricingModel: 'FLAT_RATE', rate: '0', metricName: 'support' }), unit({ pricingModel: 'PERCENTAGE', rate: '2.9', metricName: 'payment_volume' })],
      [
        { text: 'Support: Free', note: null, minimum: null },
        { text: 'Payment volume: 2.9% of transaction value', note: null, minimum: null },
      ],
    ],
  ];
  for (const [name, units, expected] of cases) it(name, () => assert.deepEqual(candidateUnits(config(units), 'o'), expected));

  it('an unknown offering has no units and no price', () => {
    assert.deepEqual(candidateUnits(config([unit({})]), 'nope'), []);
    assert.equal(candidatePrice(config([unit({})]), 'nope'), '');
    assert.equal(candidatePerMonth(config([unit({})]), 'nope'), null);
  });

  const perMonth: Array<[string, Partial<Offering>, string, string | null]> = [
    ['annual: compared per month', { entryPrice: '490', billingPeriod: 'ANNUAL' }, '$490.00/yr', '$40.83/mo'],
    ['quarterly', { entryPrice: '90', billingPeriod: 'QUARTERLY' }, '$90.00/qtr', '$30.00/mo'],
    ['monthly: nothing to add', { entryPrice: '49' }, '$49.00/mo', null],
    ['free: nothing to add', { entryPrice: '0', billingPeriod: 'ANNUAL' }, 'Free', null],
    ['usage-only: none', {}, 'Usage-based', null],
    ['one-time: none', { entryPrice: '49', billingPeriod: 'ONE_TIME' }, '$49.00 one-time', null],
  ];
  for (const [name, over, price, month] of perMonth)
    it(`${name}: ${price}${month === null ? '' : `, ${month}`}`, () => {
      const c = config([unit({})], over);
      assert.equal(candidatePrice(c, 'o'), price);
      assert.equal(candidatePerMonth(c, 'o'), month);
    });

  const prepaid: Array<[string, Partial<Offering>, string, boolean]> = [
    ['PREPAID: worded as the pricing page words it', { billingMode: 'PREPAID' }, 'o', true],
    ['POSTPAID: nothing', {}, 'o', false],
    ['an unknown offering: nothing', { billingMode: 'PREPAID' }, 'nope', false],
  ];
  for (const [name, over, id, expected] of prepaid)
    it(`candidatePrepaid, ${name}`, () => assert.equal(candidatePrepaid(config([unit({})], over), id), expected));
  it("the widget's wording of PREPAID is the pricing page's", () => assert.equal(messages.prepaid, PREPAID_TEXT));
});
