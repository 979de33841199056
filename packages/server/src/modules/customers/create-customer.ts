import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { CreateCustomerInput, Customer } from './customer.js';
import { insertCustomer } from './customer.repository.js';
import { checkTestClock } from '../test-clocks/clock-time.js';

export function duplicateExternalId(externalId: string, cause: unknown): AppError {
  return new AppError('CONFLICT', `A customer with externalId '${externalId}' already exists.`, {
    field: 'body.externalId',
    cause,
  });
}

export async function createCustomer(deps: Deps, ctx: OperationContext, input: CreateCustomerInput): Promise<Customer> {
  const now = deps.clock.now();
  const customer: Customer = {
    id: deps.ids.next('customer'),
    environment: ctx.environment,
    externalId: input.externalId ?? null,
    name: input.name ?? null,
    email: input.email ?? null,
    metadata: input.metadata ?? {},
    testClockId: input.testClockId ?? null,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await inTransaction(deps.db, async (trx) => {
      if (customer.testClockId !== null) await checkTestClock({ db: trx }, ctx, customer.testClockId, 'body.testClockId');
      await insertCustomer(trx, ctx, customer);
      await recordAudit(trx, deps, ctx, {
        eventType: 'customer.created',
        targetType: 'customer',
        targetId: customer.id,
        payload: { externalId: customer.externalId, name: customer.name, ...(customer.testClockId ? { testClockId: customer.testClockId } : {}) },
      });
    });
  } catch (err) {
    if (isUniqueViolation(err) && customer.externalId) throw duplicateExternalId(customer.externalId, err);
    throw err;
  }
  return customer;
}
