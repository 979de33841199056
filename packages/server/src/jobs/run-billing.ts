import type { Deps } from '../deps.js';
import { runOnStartAndEvery } from './schedule.js';
import { boundCredentials } from '../modules/authentication/bound-credentials.js';
import { runBilling } from '../modules/billing/run-billing.js';

/**
 * Renewals and invoice finalization on real time, every BILLING_INTERVAL_MS on every node: each
 * period is closed once whatever the number of nodes (see modules/billing/run-billing.ts). Test
 * clocks run the same job when they are advanced, never here.
 */
export function scheduleBilling(deps: Deps): () => void {
  let running = false;
  return runOnStartAndEvery(deps, deps.config.billingIntervalMs, 'billing run', async () => {
    // A long catch-up must not overlap the next tick on the same node.
    if (running) return { skipped: 'previous run still going' };
    running = true;
    try {
      return await runBilling(deps, boundCredentials, { testClock: null });
    } finally {
      running = false;
    }
  });
}
