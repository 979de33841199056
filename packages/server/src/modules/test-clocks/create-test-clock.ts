import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { inTransaction } from '../../db/transaction.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { CreateTestClockInput, TestClock } from './test-clock.js';
import { insertTestClock } from './test-clock.repository.js';

export async function createTestClock(deps: Deps, ctx: OperationContext, input: CreateTestClockInput): Promise<TestClock> {
  if (ctx.environment !== 'test') {
    throw new AppError('VALIDATION_FAILED', 'Test clocks exist only in the test environment; use a sk_test_ key.', { field: 'environment' });
  }
  const now = deps.clock.now();
  const clock: TestClock = {
    id: deps.ids.next('testClock'),
    name: input.name ?? null,
    frozenTime: input.frozenTime === undefined ? now : Date.parse(input.frozenTime),
    status: 'ready',
    createdAt: now,
    updatedAt: now,
  };
  return inTransaction(deps.db, async (trx) => {
    await insertTestClock(trx, ctx, clock);
    await recordAudit(trx, deps, ctx, {
      eventType: 'test_clock.created',
      targetType: 'test_clock',
      targetId: clock.id,
      payload: { frozenTime: new Date(clock.frozenTime).toISOString() },
    });
    return clock;
  });
}
