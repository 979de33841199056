import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DefaultUsageLimit } from '../catalog/usage-limit.js';
import { checkRatePlanLimits } from '../catalog/check-rate-plan-limits.js';
import { effectiveUsageLimits, type UsageLimitOverride } from './usage-limits.js';

const plan = (metricName: string, limit: number, enforcement: 'BLOCK' | 'ALERT' = 'BLOCK', ratePlanId = 'plan_a'): DefaultUsageLimit => ({
  metricName,
  limit,
  enforcement,
  ratePlanId,
});
const own = (metricName: string, limit: number | null, enforcement: 'BLOCK' | 'ALERT' = 'BLOCK'): UsageLimitOverride =>
  limit === null ? { metricName, limit } : { metricName, limit, enforcement };
/** [metricName, limit, enforcement, source] of each effective limit, in order. */
type Row = [string, number, string, string];

describe('subscriptions.effectiveUsageLimits: per metric, the subscription’s entry, else the plan’s default', () => {
  const cases: Array<[string, UsageLimitOverride[], DefaultUsageLimit[], Row[]]> = [
    ['neither: none', [], [], []],
    [
      'the plan’s defaults alone',
      [],
      [plan('calls', 100), plan('tokens', 5, 'ALERT', 'plan_b')],
      [
        ['calls', 100, 'BLOCK', 'RATE_PLAN'],
        ['tokens', 5, 'ALERT', 'RATE_PLAN'],
      ],
    ],
    ['the subscription’s own alone (no offering)', [own('calls', 7, 'ALERT')], [], [['calls', 7, 'ALERT', 'SUBSCRIPTION']]],
    [
      'its own entry wins for its metric, higher or lower, enforcement included',
      [own('calls', 500, 'ALERT')],
      [plan('calls', 100)],
      [['calls', 500, 'ALERT', 'SUBSCRIPTION']],
    ],
    [
      'other metrics keep their defaults, after its own',
      [own('tokens', 1)],
      [plan('calls', 100), plan('tokens', 9)],
      [
        ['tokens', 1, 'BLOCK', 'SUBSCRIPTION'],
        ['calls', 100, 'BLOCK', 'RATE_PLAN'],
      ],
    ],
    ['limit null removes the default and adds nothing', [own('calls', null)], [plan('calls', 100), plan('tokens', 9)], [['tokens', 9, 'BLOCK', 'RATE_PLAN']]],
    ['limit null without a default: nothing', [own('calls', null)], [], []],
    ['a limit of 0 is a limit', [own('calls', 0)], [plan('calls', 100)], [['calls', 0, 'BLOCK', 'SUBSCRIPTION']]],
    [
      'one limit per metric: the first entry, the first default',
      [own('calls', 1), own('calls', 2)],
      [plan('x', 3), plan('x', 4, 'BLOCK', 'plan_b')],
      [
        ['calls', 1, 'BLOCK', 'SUBSCRIPTION'],
        ['x', 3, 'BLOCK', 'RATE_PLAN'],
      ],
    ],
  ];
  for (const [rule, overrides, defaults, want] of cases) {
    it(rule, () => {
      const got = effectiveUsageLimits(overrides, defaults);
      assert.deepEqual(
        got.map((l): Row => [l.metricName, l.limit, l.enforcement, l.source]),
        want,
      );
      for (const l of got) assert.equal(l.ratePlanId, l.source === 'RATE_PLAN' ? defaults.find((d) => d.metricName === l.metricName)!.ratePlanId : null);
    });
  }
});

describe('catalog.checkRatePlanLimits: a plan limits its own units, once each', () => {
  const units = [{ metricName: 'calls' }, { metricName: 'tokens' }];
  const cases: Array<[string, Array<{ metricName: string }>, string[]]> = [
    ['none', [], []],
    ['each unit once', [{ metricName: 'calls' }, { metricName: 'tokens' }], []],
    ['a metric the plan does not price', [{ metricName: 'seats' }], ['body.usageLimits.0.metricName']],
    ['a unit twice: the second is named', [{ metricName: 'calls' }, { metricName: 'calls' }], ['body.usageLimits.1.metricName']],
  ];
  for (const [rule, limits, fields] of cases) {
    it(rule, () => {
      const details = checkRatePlanLimits(
        limits.map((l) => ({ ...l, limit: 1, enforcement: 'BLOCK' as const })),
        units,
      );
      assert.deepEqual(
        details.map((d) => d.field),
        fields,
      );
    });
  }
});
