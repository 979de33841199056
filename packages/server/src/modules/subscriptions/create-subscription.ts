import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError } from '../../lib/errors.js';
import { calendarPeriodEnd } from '../../lib/periods.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { findCustomer } from '../customers/customer.repository.js';
import type { CreateSubscriptionInput, Subscription } from './subscription.js';
import { insertSubscription } from './subscription.repository.js';
import { checkEntitlementConfig } from './check-entitlement-config.js';
import { subscriptionTerms } from './subscription-terms.js';

const DAY_MS = 86_400_000;

export async function createSubscription(deps: Deps, ctx: OperationContext, input: CreateSubscriptionInput): Promise<Subscription> {
  return inTransaction(deps.db, async (trx) => {
    if (!(await findCustomer(trx, ctx, input.customerId))) {
      throw new AppError('NOT_FOUND', `No customer with id '${input.customerId}' exists in this workspace and environment.`, {
        field: 'body.customerId',
      });
    }
    const terms = await subscriptionTerms(trx, ctx, input);
    await checkEntitlementConfig(trx, ctx, input);
    const now = deps.clock.now();
    const subscription: Subscription = {
      id: deps.ids.next('subscription'),
      environment: ctx.environment,
      customerId: input.customerId,
      productId: terms.productId,
      offeringId: terms.offeringId,
      trialEndsAt: terms.trialDays > 0 ? now + terms.trialDays * DAY_MS : null,
      status: 'ACTIVE',
      billingPeriod: terms.billingPeriod,
      currentPeriodStart: now,
      currentPeriodEnd: calendarPeriodEnd(now, terms.billingPeriod),
      version: 1,
      startedAt: now,
      cancelledAt: null,
      metadata: input.metadata ?? {},
      currency: terms.currency,
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
      payload: {
        customerId: subscription.customerId,
        productId: subscription.productId,
        offeringId: subscription.offeringId,
        billingPeriod: subscription.billingPeriod,
      },
    });
    return subscription;
  });
}
