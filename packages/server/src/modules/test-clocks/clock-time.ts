import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import type { Tenant } from '../../lib/tenant.js';
import { findTestClock } from './test-clock.repository.js';

/**
 * The time of something that may live on a test clock: the clock's frozen time, else real time.
 * Everything billing decides for a subscription (its period, its trial, its renewals) asks this.
 */
export async function timeOf(deps: Pick<Deps, 'db' | 'clock'>, tenant: Tenant, testClockId: string | null): Promise<number> {
  if (testClockId === null) return deps.clock.now();
  const clock = await findTestClock(deps.db, tenant, testClockId);
  // A clock is deleted only with what is attached to it (delete-test-clock.ts).
  if (!clock) throw new AppError('CONFLICT', `Test clock '${testClockId}' no longer exists.`);
  return clock.frozenTime;
}

/** A test clock attached to something new: it must exist, and only in the test environment. */
export async function checkTestClock(deps: Pick<Deps, 'db'>, tenant: Tenant, testClockId: string, field: string): Promise<number> {
  if (tenant.environment !== 'test') {
    throw new AppError('VALIDATION_FAILED', 'Test clocks exist only in the test environment; use a sk_test_ key.', { field });
  }
  const clock = await findTestClock(deps.db, tenant, testClockId);
  if (!clock) throw new AppError('NOT_FOUND', `No test clock with id '${testClockId}' exists in this workspace.`, { field });
  return clock.frozenTime;
}
