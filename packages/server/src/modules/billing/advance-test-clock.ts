import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { expireClockGraceKeys } from '../api-keys/api-key.repository.js';
import { invalidateCredentials } from '../credentials/credential-cache.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { BoundCredentials } from '../subscriptions/bound-credentials.js';
import { countDueOnTestClock } from '../subscriptions/subscription.repository.js';
import type { AdvanceProgress, TestClock } from '../test-clocks/test-clock.js';
import { findTestClock, markTestClockReady, moveTestClock } from '../test-clocks/test-clock.repository.js';
import type { TestClockBilling } from '../test-clocks/test-clock.routes.js';
import { runBilling } from './run-billing.js';

/**
 * Advancing a test clock: the clock moves (and says so in the audit log), then the billing job
 * runs for its subscriptions at the new time, the same code real time runs. Several nodes may
 * advance the same clock at once: each renewal is taken by one of them, and the invoices are
 * issued exactly once.
 */
export function testClockBilling(bound: BoundCredentials): TestClockBilling {
  const running = new Map<string, AdvanceProgress>();
  return {
    progress: (clockId) => running.get(clockId) ?? null,
    async advance(deps: Deps, ctx: OperationContext, clock: TestClock, to: number): Promise<TestClock> {
      await inTransaction(deps.db, async (trx) => {
        const txDeps = { ...deps, db: trx };
        await moveTestClock(trx, ctx, clock.id, to, deps.clock.now());
        // Keys rotated on this clock whose 300 s grace the clock has now passed stop working.
        const expired = await expireClockGraceKeys(trx, ctx, clock.id, to, deps.clock.now());
        for (const keyId of expired) {
          await recordAudit(trx, deps, ctx, { eventType: 'api_key.expired', targetType: 'api_key', targetId: keyId, payload: { testClockId: clock.id } });
        }
        if (expired.length > 0) await invalidateCredentials(txDeps);
        await recordAudit(trx, deps, ctx, {
          eventType: 'test_clock.advanced',
          targetType: 'test_clock',
          targetId: clock.id,
          payload: { from: new Date(clock.frozenTime).toISOString(), to: new Date(to).toISOString() },
        });
      });
      const progress: AdvanceProgress = { renewals: 0, due: await countDueOnTestClock(deps.db, ctx, clock.id, to) };
      running.set(clock.id, progress);
      try {
        const run = await runBilling(deps, bound, { testClock: { tenant: ctx, id: clock.id, time: to }, onRenewal: () => (progress.renewals += 1) });
        deps.log.info({ testClockId: clock.id, ...run }, 'test clock advanced');
      } finally {
        running.delete(clock.id);
        await markTestClockReady(deps.db, ctx, clock.id, deps.clock.now());
      }
      return (await findTestClock(deps.db, ctx, clock.id)) as TestClock;
    },
  };
}
