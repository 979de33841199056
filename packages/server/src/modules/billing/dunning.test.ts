import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { nextDunningStep, pastDueAccessUntil, type DunningStep } from './dunning.js';
import { retryScheduleProblem } from './billing-settings.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 10);

describe('billing.dunning', () => {
  const cases: Array<[string, number[], number, DunningStep]> = [
    ['the first failure waits for the first point', [3, 5, 7], T0, { kind: 'retry', at: T0 + 3 * DAY }],
    ['the retry on day 3 failing waits for day 5', [3, 5, 7], T0 + 3 * DAY, { kind: 'retry', at: T0 + 5 * DAY }],
    ['the retry on day 5 failing waits for day 7', [3, 5, 7], T0 + 5 * DAY, { kind: 'retry', at: T0 + 7 * DAY }],
    ['the last retry failing applies the final rule', [3, 5, 7], T0 + 7 * DAY, { kind: 'final', action: 'cancel_subscription' }],
    ['a card update on day 1 failing keeps day 3', [3, 5, 7], T0 + DAY, { kind: 'retry', at: T0 + 3 * DAY }],
    ['a late run (day 4) takes the next point ahead', [3, 5, 7], T0 + 4 * DAY, { kind: 'retry', at: T0 + 5 * DAY }],
    ['a clock moved past every point: the final rule', [3, 5, 7], T0 + 30 * DAY, { kind: 'final', action: 'cancel_subscription' }],
    ['no retries: the first failure is final', [], T0, { kind: 'final', action: 'cancel_subscription' }],
    ['one millisecond before a point still waits for it', [3], T0 + 3 * DAY - 1, { kind: 'retry', at: T0 + 3 * DAY }],
  ];
  for (const [rule, days, now, expected] of cases) {
    it(rule, () => assert.deepEqual(nextDunningStep({ paymentRetryDays: days, pastDueFinalAction: 'cancel_subscription' }, T0, now), expected));
  }

  it('the final rule is the workspace’s', () => {
    assert.deepEqual(nextDunningStep({ paymentRetryDays: [1], pastDueFinalAction: 'mark_uncollectible' }, T0, T0 + DAY), {
      kind: 'final',
      action: 'mark_uncollectible',
    });
  });

  it('the grace period counts days from becoming past due; 0 refuses at once', () => {
    assert.equal(pastDueAccessUntil({ pastDueGraceDays: 3 }, T0), T0 + 3 * DAY);
    assert.equal(pastDueAccessUntil({ pastDueGraceDays: 0 }, T0), T0);
  });

  const schedules: Array<[number[], string | null]> = [
    [[3, 5, 7], null],
    [[], null],
    [[1], null],
    [[5, 3], 'paymentRetryDays must be strictly ascending: 3 follows 5.'],
    [[3, 3], 'paymentRetryDays must be strictly ascending: 3 follows 3.'],
  ];
  for (const [days, problem] of schedules) {
    it(`a retry schedule ${JSON.stringify(days)} is ${problem ? 'refused' : 'accepted'}`, () => assert.equal(retryScheduleProblem(days), problem));
  }
});
