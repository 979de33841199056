import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CreditGrant } from './credit-grant.js';
import { liveCreditBalance } from './live-credits.js';

const NOW = Date.UTC(2026, 2, 15);
const DAY = 86_400_000;
let n = 0;
function grant(remaining: string, over: Partial<CreditGrant> = {}): CreditGrant {
  n += 1;
  return {
    id: `cgr_${String(n).padStart(3, '0')}`,
    customerId: 'cus_1',
    currency: 'USD',
    amount: remaining,
    remaining,
    priority: 50,
    effectiveAt: NOW - DAY,
    expiresAt: null,
    source: 'promotional',
    status: 'active',
    subscriptionId: null,
    metricNames: null,
    costAmount: null,
    invoiceId: null,
    metadata: {},
    voidedAt: null,
    createdAt: NOW - DAY,
    updatedAt: NOW - DAY,
    ...over,
  };
}
const sub = { id: 'sub_1', currency: 'USD' };
const calls = (amount: string) => ({ metricName: 'calls', amount });

describe('liveCreditBalance: credits left now after the period’s usage so far (hand-computed)', () => {
  const cases: Array<[string, CreditGrant[], Array<{ metricName: string; amount: string }>, string]> = [
    ['no grants, no usage', [], [], '0.00'],
    ['no grants: negative by the usage', [], [calls('3.10')], '-3.10'],
    ['two grants, usage within them', [grant('5.00'), grant('2.50')], [calls('6.00')], '1.50'],
    ['usage past every grant: negative by the rest', [grant('5.00')], [calls('7.25')], '-2.25'],
    ['an expired grant does not count', [grant('5.00', { expiresAt: NOW }), grant('1.00')], [calls('0.40')], '0.60'],
    ['a grant not yet effective does not count', [grant('5.00', { effectiveAt: NOW + 1 }), grant('1.00')], [], '1.00'],
    ['a pending or voided grant does not count', [grant('5.00', { status: 'pending' }), grant('4.00', { status: 'voided' })], [], '0.00'],
    ['another subscription’s grant does not count', [grant('5.00', { subscriptionId: 'sub_2' }), grant('1.00', { subscriptionId: 'sub_1' })], [], '1.00'],
    ['another currency’s grant does not count', [grant('5.00', { currency: 'EUR' })], [], '0.00'],
    [
      'a grant limited to other metrics counts, but pays none of this usage',
      [grant('5.00', { metricNames: ['tokens'] }), grant('1.00')],
      [calls('2.00')],
      '4.00',
    ],
    ['zero usage lines change nothing', [grant('1.00')], [calls('0.00')], '1.00'],
  ];
  for (const [name, grants, usage, expected] of cases) it(name, () => assert.equal(liveCreditBalance(grants, sub, NOW, usage), expected));

  it('JPY and KWD keep their minor units', () => {
    assert.equal(liveCreditBalance([grant('5000', { currency: 'JPY' })], { id: 'sub_1', currency: 'JPY' }, NOW, [calls('1234')]), '3766');
    assert.equal(liveCreditBalance([grant('1.500', { currency: 'KWD' })], { id: 'sub_1', currency: 'KWD' }, NOW, [calls('1.625')]), '-0.125');
  });
});
