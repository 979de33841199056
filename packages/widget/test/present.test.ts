import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { failureKind, type Preview } from '../src/api.js';
import { messages } from '../src/messages.js';
import { previewLines } from '../src/present.js';

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

describe('failureKind: how the widget words a failed call', () => {
  const cases: Array<[number, string, ReturnType<typeof failureKind>]> = [
    [401, 'UNAUTHENTICATED', 'expired'],
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
