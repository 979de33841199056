import type { BillingSettings, PastDueFinalAction } from './billing-settings.js';

const DAY_MS = 86_400_000;

/** What follows a failed automatic payment: another try at `at`, or the workspace's final rule. */
export type DunningStep = { kind: 'retry'; at: number } | { kind: 'final'; action: PastDueFinalAction };

/**
 * Pure: after an attempt failed at `now` (the invoice's time), the next point of the retry
 * schedule, counted in days from the first failure, that is still ahead; none left: the final
 * rule. Counting from the first failure rather than from attempts made keeps the schedule when a
 * card update or an operator's retry adds attempts in between, and a test clock moved past several
 * points at once gives one retry, then the final rule, as days passing would.
 */
export function nextDunningStep(settings: Pick<BillingSettings, 'paymentRetryDays' | 'pastDueFinalAction'>, firstFailedAt: number, now: number): DunningStep {
  for (const days of settings.paymentRetryDays) {
    const at = firstFailedAt + days * DAY_MS;
    if (at > now) return { kind: 'retry', at };
  }
  return { kind: 'final', action: settings.pastDueFinalAction };
}

/** Pure: until when a subscription that became past due at `since` keeps serving. */
export function pastDueAccessUntil(settings: Pick<BillingSettings, 'pastDueGraceDays'>, since: number): number {
  return since + settings.pastDueGraceDays * DAY_MS;
}
