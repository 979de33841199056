import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError } from '../../lib/errors.js';
import { calendarPeriodEnd } from '../../lib/periods.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../audit/audit-event.js';
import { findCustomer } from '../customers/customer.repository.js';
import { findProduct } from '../products/product.repository.js';
import type { CreateSubscriptionInput, Subscription } from './subscription.js';
import { insertSubscription } from './subscription.repository.js';
import { checkEntitlementConfig } from './check-entitlement-config.js';

export async function createSubscription(deps: Deps, ctx: OperationContext, input: CreateSubscriptionInput): Promise<Subscription> {
  return inTransaction(deps.db, async (trx) => {
    if (!(await findCustomer(trx, ctx, input.customerId))) {
      throw new AppError('NOT_FOUND', `No customer with id '${input.customerId}' exists in this workspace and environment.`, {
        field: 'body.customerId',
      });
    }
    if (!(await findProduct(trx, ctx, input.productId))) {
      throw new AppError('NOT_FOUND', `No product with id '${input.productId}' exists in this workspace and environment.`, {
        field: 'body.productId',
      });
    }
    await checkEntitlementConfig(trx, ctx, input);
    const now = deps.clock.now();
    const billingPeriod = input.billingPeriod ?? 'MONTHLY';
    const subscription: Subscription = {
      id: deps.ids.next('subscription'),
      environment: ctx.environment,
      customerId: input.customerId,
      productId: input.productId,
      status: 'ACTIVE',
      billingPeriod,
      currentPeriodStart: now,
      currentPeriodEnd: calendarPeriodEnd(now, billingPeriod),
      version: 1,
      startedAt: now,
      cancelledAt: null,
      metadata: input.metadata ?? {},
      currency: input.currency ?? 'USD',
      usageLimits: input.usageLimits ?? [],
      spendBudget: input.spendBudget ?? null,
      unitPrices: input.unitPrices ?? {},
      createdAt: now,
      updatedAt: now,
    };
    await insertSubscription(trx, ctx, subscription);
    await recordAudit(trx, deps, ctx, {
      eventType: 'subscription.created',
      targetType: 'subscription',
      targetId: subscription.id,
      payload: { customerId: subscription.customerId, productId: subscription.productId, billingPeriod },
    });
    return subscription;
  });
}
