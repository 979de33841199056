import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Offering } from '../catalog/offering.js';
import { cheapestDowngradeOf } from './cheapest-downgrade.js';

const offering = (id: string, entryPrice: string | null, extra: Partial<Offering> = {}): Offering => ({
  id,
  environment: 'test',
  productId: 'prod_a',
  name: id,
  billingMode: 'POSTPAID',
  overage: null,
  recurringCredits: null,
  currency: 'USD',
  entryPrice,
  billingPeriod: 'MONTHLY',
  trialDays: 0,
  ratePlanIds: [],
  overrides: [],
  metadata: {},
  version: 1,
  createdAt: 0,
  updatedAt: 0,
  ...extra,
});

const pro = offering('off_pro', '49');

describe('cheapestDowngradeOf', () => {
  const cases: Array<[string, Offering[], string | null]> = [
    ['the cheapest of the cheaper ones', [offering('off_basic', '19'), offering('off_lite', '9'), offering('off_max', '99')], 'off_lite'],
    ['usage-only counts as 0 a month', [offering('off_basic', '19'), offering('off_free', null)], 'off_free'],
    [
      'per month: 300 a year (25 a month) is cheaper than 29 a month',
      [offering('off_m', '29'), offering('off_y', '300', { billingPeriod: 'ANNUAL' })],
      'off_y',
    ],
    ['a tie goes to the oldest offering', [offering('off_b', '9'), offering('off_a', '9')], 'off_a'],
    ['another product is no candidate', [offering('off_other', '9', { productId: 'prod_b' })], null],
    ['another currency is no candidate', [offering('off_eur', '9', { currency: 'EUR' })], null],
    ['ONE_TIME is no candidate', [offering('off_once', '9', { billingPeriod: 'ONE_TIME' })], null],
    ['the same price is LATERAL, not a downgrade', [offering('off_same', '49')], null],
    ['the current offering is no candidate', [pro], null],
    ['nothing cheaper', [offering('off_max', '99')], null],
  ];
  for (const [name, offerings, id] of cases) {
    it(name, () => assert.equal(cheapestDowngradeOf(pro, offerings)?.offeringId ?? null, id));
  }

  it('answers with the terms the offer shows', () => {
    assert.deepEqual(cheapestDowngradeOf(pro, [offering('off_lite', '9', { name: 'Lite' })]), {
      offeringId: 'off_lite',
      name: 'Lite',
      entryPrice: '9',
      currency: 'USD',
      billingPeriod: 'MONTHLY',
    });
  });
});
