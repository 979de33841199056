import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Decimal } from '../../lib/money.js';
import { decideEntitlement, type EntitlementInput, type EntitlementReason, type LimitUsage } from './decide-entitlement.js';

const d = (v: string | number) => new Decimal(v);
const limit = (l: number, used: string, enforcement: 'BLOCK' | 'ALERT' = 'BLOCK', metricName = 'calls'): LimitUsage => ({
  metricName,
  limit: l,
  enforcement,
  used: d(used),
});
const budget = (amount: string, spent: string, enforcement: 'BLOCK' | 'ALERT' = 'BLOCK') => ({ amount: d(amount), enforcement, spent: d(spent) });
const input = (over: Partial<EntitlementInput> = {}): EntitlementInput => ({ subscriptionActive: true, limits: [], budget: null, ...over });

interface Expected {
  allowed: boolean;
  reason: EntitlementReason;
  quotaRemaining: string | null;
  budgetRemaining: string | null;
}
const ok = (quotaRemaining: string | null, budgetRemaining: string | null): Expected => ({ allowed: true, reason: 'OK', quotaRemaining, budgetRemaining });
const no = (reason: EntitlementReason, quotaRemaining: string | null, budgetRemaining: string | null): Expected => ({
  allowed: false,
  reason,
  quotaRemaining,
  budgetRemaining,
});

function decide(i: EntitlementInput): Expected {
  const r = decideEntitlement(i);
  return { allowed: r.allowed, reason: r.reason, quotaRemaining: r.quotaRemaining?.toFixed() ?? null, budgetRemaining: r.budgetRemaining?.toFixed() ?? null };
}

describe('entitlements.decideEntitlement', () => {
  const cases: [string, EntitlementInput, Expected][] = [
    [
      'an inactive subscription is refused, with both remainders 0',
      input({ subscriptionActive: false, limits: [limit(100, '10')], budget: budget('50', '5') }),
      no('NO_ACTIVE_SUBSCRIPTION', '0', '0'),
    ],
    [
      'an inactive subscription without limits or budget still reports 0 remaining',
      input({ subscriptionActive: false }),
      no('NO_ACTIVE_SUBSCRIPTION', '0', '0'),
    ],
    ['no limits and no budget: allowed, nothing to report', input(), ok(null, null)],
    ['BLOCK limit below the limit is allowed', input({ limits: [limit(100, '40')] }), ok('60', null)],
    ['BLOCK limit at the limit is exhausted', input({ limits: [limit(100, '100')] }), no('QUOTA_EXHAUSTED', '0', null)],
    ['BLOCK limit above the limit is exhausted and the remainder is never negative', input({ limits: [limit(100, '130')] }), no('QUOTA_EXHAUSTED', '0', null)],
    ['ALERT limit at the limit stays allowed', input({ limits: [limit(100, '100', 'ALERT')] }), ok('0', null)],
    ['ALERT limit past the limit stays allowed with 0 remaining', input({ limits: [limit(100, '130', 'ALERT')] }), ok('0', null)],
    [
      'two limits: quotaRemaining is the smaller remainder',
      input({ limits: [limit(100, '40', 'BLOCK', 'calls'), limit(50, '45', 'BLOCK', 'tokens')] }),
      ok('5', null),
    ],
    [
      'two limits: one exhausted BLOCK limit refuses even if the other has room',
      input({ limits: [limit(100, '40', 'BLOCK', 'calls'), limit(50, '50', 'BLOCK', 'tokens')] }),
      no('QUOTA_EXHAUSTED', '0', null),
    ],
    [
      'two limits: an ALERT limit past its limit does not refuse',
      input({ limits: [limit(100, '40', 'BLOCK', 'calls'), limit(50, '70', 'ALERT', 'tokens')] }),
      ok('0', null),
    ],
    ['BLOCK budget with spend below the amount is allowed', input({ budget: budget('50', '20') }), ok(null, '30')],
    ['BLOCK budget with spend at the amount is exhausted', input({ budget: budget('50', '50') }), no('BUDGET_EXHAUSTED', null, '0')],
    ['BLOCK budget with spend above the amount is exhausted, remainder 0', input({ budget: budget('50', '60.25') }), no('BUDGET_EXHAUSTED', null, '0')],
    ['ALERT budget with spend above the amount stays allowed', input({ budget: budget('50', '60.25', 'ALERT') }), ok(null, '0')],
    [
      'quota reason wins when quota and budget are both exhausted',
      input({ limits: [limit(100, '100')], budget: budget('50', '50') }),
      no('QUOTA_EXHAUSTED', '0', '0'),
    ],
    ['limit and budget both with room: both remainders reported', input({ limits: [limit(100, '99')], budget: budget('50', '49.99') }), ok('1', '0.01')],
    ['decimal exactness: limit 1, used 0.7 leaves exactly 0.3', input({ limits: [limit(1, '0.7')] }), ok('0.3', null)],
    ['decimal exactness: a fractional limit 0.3 with 0.1 used leaves exactly 0.2', input({ limits: [limit(0.3, '0.1')] }), ok('0.2', null)],
    ['decimal exactness: budget 0.3 with 0.1 spent leaves exactly 0.2', input({ budget: budget('0.3', '0.1') }), ok(null, '0.2')],
    ['BLOCK limit 0.0000001 below the limit is still allowed', input({ limits: [limit(1, '0.9999999')] }), ok('0.0000001', null)],
    [
      'past due beyond the grace period is refused, remainders still reported',
      input({ paymentPastDue: true, limits: [limit(100, '40')] }),
      no('PAYMENT_PAST_DUE', '60', null),
    ],
    [
      'past due wins over an exhausted quota and budget',
      input({ paymentPastDue: true, limits: [limit(100, '100')], budget: budget('50', '50') }),
      no('PAYMENT_PAST_DUE', '0', '0'),
    ],
    ['past due within the grace period (false) is allowed', input({ paymentPastDue: false, limits: [limit(100, '40')] }), ok('60', null)],
    ['no active subscription wins over past due', input({ subscriptionActive: false, paymentPastDue: true }), no('NO_ACTIVE_SUBSCRIPTION', '0', '0')],
  ];
  for (const [rule, i, expected] of cases) {
    it(rule, () => assert.deepEqual(decide(i), expected));
  }

  const credits = (remaining: string, overage: 'BILL' | 'BLOCK' = 'BLOCK') => ({ remaining: d(remaining), overage });
  const prepaid: [string, EntitlementInput, Expected & { creditsRemaining: string | null }][] = [
    [
      'PREPAID BLOCK with credits left: allowed, budgetRemaining is the credits',
      input({ credits: credits('12.5') }),
      { ...ok(null, '12.5'), creditsRemaining: '12.5' },
    ],
    ['PREPAID BLOCK at exactly 0: CREDITS_EXHAUSTED', input({ credits: credits('0') }), { ...no('CREDITS_EXHAUSTED', null, '0'), creditsRemaining: '0' }],
    [
      'PREPAID BLOCK past 0 (usage no grant pays): CREDITS_EXHAUSTED, remainders 0',
      input({ credits: credits('-3.20') }),
      { ...no('CREDITS_EXHAUSTED', null, '0'), creditsRemaining: '0' },
    ],
    ['PREPAID BILL past 0: allowed (billed in arrears), no budget', input({ credits: credits('-3.20', 'BILL') }), { ...ok(null, null), creditsRemaining: '0' }],
    [
      'PREPAID BLOCK with a spend budget: budgetRemaining is the smaller of the two',
      input({ credits: credits('7'), budget: budget('50', '45') }),
      { ...ok(null, '5'), creditsRemaining: '7' },
    ],
    [
      'an exhausted budget is named before exhausted credits',
      input({ credits: credits('0'), budget: budget('50', '50') }),
      { ...no('BUDGET_EXHAUSTED', null, '0'), creditsRemaining: '0' },
    ],
    [
      'an exhausted quota is named before exhausted credits',
      input({ credits: credits('0'), limits: [limit(100, '100')] }),
      { ...no('QUOTA_EXHAUSTED', '0', '0'), creditsRemaining: '0' },
    ],
    ['POSTPAID (no credits): creditsRemaining null', input(), { ...ok(null, null), creditsRemaining: null }],
  ];
  for (const [rule, i, expected] of prepaid) {
    it(rule, () => assert.deepEqual({ ...decide(i), creditsRemaining: decideEntitlement(i).creditsRemaining?.toFixed() ?? null }, expected));
  }

  const amount = fc.integer({ min: 0, max: 10_000_000 }).map((cents) => d(cents).div(100));
  const limitArb = fc.record({
    metricName: fc.constantFrom('calls', 'tokens', 'gb'),
    limit: fc.integer({ min: 0, max: 100_000 }),
    enforcement: fc.constantFrom('BLOCK' as const, 'ALERT' as const),
    used: amount,
  });
  const budgetArb = fc.option(fc.record({ amount, enforcement: fc.constantFrom('BLOCK' as const, 'ALERT' as const), spent: amount }), { nil: null });
  const inputArb = fc.record({ subscriptionActive: fc.boolean(), limits: fc.array(limitArb, { maxLength: 4 }), budget: budgetArb });

  it('property: remainders are never negative, and quotaRemaining is the smallest clamped remainder', () => {
    fc.assert(
      fc.property(inputArb, (i) => {
        const r = decideEntitlement(i);
        if (r.quotaRemaining) assert.ok(!r.quotaRemaining.isNegative());
        if (r.budgetRemaining) assert.ok(!r.budgetRemaining.isNegative());
        if (!i.subscriptionActive) return;
        if (i.limits.length === 0) assert.equal(r.quotaRemaining, null);
        else {
          const smallest = Decimal.max(0, Decimal.min(...i.limits.map((l) => d(l.limit).minus(l.used))));
          assert.equal(r.quotaRemaining!.toFixed(), smallest.toFixed());
        }
      }),
    );
  });

  describe('quotaMetricName: whose limit quotaRemaining is (the developer hub names it)', () => {
    const named: Array<[string, EntitlementInput, string | null]> = [
      ['no limit: none', input(), null],
      ['an inactive subscription: none', input({ subscriptionActive: false, limits: [limit(100, '10')] }), null],
      ['one limit: its metric', input({ limits: [limit(100, '10', 'ALERT', 'api_calls')] }), 'api_calls'],
      ['the smaller remainder wins', input({ limits: [limit(100, '40', 'BLOCK', 'calls'), limit(50, '45', 'ALERT', 'tokens')] }), 'tokens'],
      ['a tie: the first listed', input({ limits: [limit(10, '0', 'ALERT', 'calls'), limit(10, '0', 'ALERT', 'tokens')] }), 'calls'],
      [
        'both used up (0 left): the BLOCK limit, which is what refuses',
        input({ limits: [limit(10, '30', 'ALERT', 'calls'), limit(10, '10', 'BLOCK', 'tokens')] }),
        'tokens',
      ],
    ];
    for (const [rule, i, want] of named) it(rule, () => assert.equal(decideEntitlement(i).quotaMetricName, want));

    it('property: named exactly when an active subscription has a limit, and its remainder is quotaRemaining', () => {
      fc.assert(
        fc.property(inputArb, (i) => {
          const r = decideEntitlement(i);
          if (!i.subscriptionActive || i.limits.length === 0) return assert.equal(r.quotaMetricName, null);
          const left = i.limits.filter((l) => l.metricName === r.quotaMetricName).map((l) => Decimal.max(0, d(l.limit).minus(l.used)).toFixed());
          assert.ok(left.includes(r.quotaRemaining!.toFixed()), `${String(r.quotaMetricName)} leaves ${r.quotaRemaining?.toFixed()}`);
        }),
      );
    });
  });

  it('property: allowed exactly when active and no BLOCK limit or BLOCK budget is used up', () => {
    fc.assert(
      fc.property(inputArb, (i) => {
        const quotaOut = i.limits.some((l) => l.enforcement === 'BLOCK' && l.used.gte(l.limit));
        const budgetOut = i.budget !== null && i.budget.enforcement === 'BLOCK' && i.budget.spent.gte(i.budget.amount);
        const r = decideEntitlement(i);
        assert.equal(r.allowed, i.subscriptionActive && !quotaOut && !budgetOut);
        const reason = !i.subscriptionActive ? 'NO_ACTIVE_SUBSCRIPTION' : quotaOut ? 'QUOTA_EXHAUSTED' : budgetOut ? 'BUDGET_EXHAUSTED' : 'OK';
        assert.equal(r.reason, reason);
      }),
    );
  });
});
