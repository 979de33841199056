import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Value } from '@sinclair/typebox/value';
import {
  cancelReasons,
  offerTypeFor,
  retentionOfferFor,
  RetentionOfferSchema,
  type CancelReason,
  type DowngradeCandidate,
  type OfferContext,
} from './retention-offer.js';

const starter: DowngradeCandidate = { offeringId: 'off_starter', name: 'Starter', entryPrice: '19', currency: 'USD', billingPeriod: 'MONTHLY' };
const everything: OfferContext = { downgradeCandidate: starter, supportUrl: 'https://help.example.com/cancel' };
const nothing: OfferContext = { downgradeCandidate: null, supportUrl: null };

const discount = { type: 'DISCOUNT_20_PERCENT', percentOff: '20', periods: 3, description: '20% off your next 3 invoices' };
const downgrade = {
  type: 'DOWNGRADE_PROMPT',
  offeringId: 'off_starter',
  offeringName: 'Starter',
  entryPrice: '19',
  currency: 'USD',
  billingPeriod: 'MONTHLY',
  description: 'Switch to Starter ($19.00/mo)',
};
const support = (description: string) => ({ type: 'SUPPORT_HANDOFF', url: 'https://help.example.com/cancel', description });

/** One row per reason: its fixed type, its offer when the workspace has everything, and without. */
const cases: Array<[CancelReason, string, object, object]> = [
  ['TOO_EXPENSIVE', 'DISCOUNT_20_PERCENT', discount, discount],
  ['SWITCHED_SERVICE', 'DISCOUNT_20_PERCENT', discount, discount],
  ['UNUSED', 'DOWNGRADE_PROMPT', downgrade, { type: 'NONE' }],
  ['MISSING_FEATURES', 'SUPPORT_HANDOFF', support('Tell our team what you are missing: it may be there already, or on its way'), { type: 'NONE' }],
  ['TECHNICAL_ISSUES', 'SUPPORT_HANDOFF', support('Let our support team fix the problem with you'), { type: 'NONE' }],
  ['OTHER', 'NONE', { type: 'NONE' }, { type: 'NONE' }],
];

describe('retentionOfferFor: the offer fixed per cancel reason', () => {
  it('covers each of the six reasons exactly once', () => {
    assert.deepEqual(cases.map((c) => c[0]).sort(), [...cancelReasons].sort());
  });

  for (const [reason, type, offer, fallback] of cases) {
    it(`${reason} → ${type}`, () => {
      assert.equal(offerTypeFor(reason), type);
      assert.deepEqual(retentionOfferFor(reason, everything), offer);
      assert.ok(Value.Check(RetentionOfferSchema, offer), 'the offer fits its schema');
    });
    it(`${reason} without a cheaper offering or a support address → ${(fallback as { type: string }).type}`, () => {
      assert.deepEqual(retentionOfferFor(reason, nothing), fallback);
    });
  }

  it('PAUSE_3_MONTHS is never the offer of a reason', () => {
    for (const reason of cancelReasons) assert.notEqual(offerTypeFor(reason), 'PAUSE_3_MONTHS');
  });

  it('a usage-only downgrade reads Usage-based; JPY and a yearly period read in their own terms', () => {
    const usageOnly = retentionOfferFor('UNUSED', { ...everything, downgradeCandidate: { ...starter, entryPrice: null } });
    assert.equal((usageOnly as { description: string }).description, 'Switch to Starter (Usage-based)');
    const yen = retentionOfferFor('UNUSED', {
      ...everything,
      downgradeCandidate: { ...starter, entryPrice: '12000', currency: 'JPY', billingPeriod: 'ANNUAL' },
    });
    assert.equal((yen as { description: string }).description, 'Switch to Starter (¥12,000.00/yr)');
  });

  it('a mailto: support address is handed off as it is', () => {
    const offer = retentionOfferFor('TECHNICAL_ISSUES', { ...nothing, supportUrl: 'mailto:help@example.com' });
    assert.deepEqual(offer, { type: 'SUPPORT_HANDOFF', url: 'mailto:help@example.com', description: 'Let our support team fix the problem with you' });
  });
});
