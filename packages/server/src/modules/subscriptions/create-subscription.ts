import type { Deps } from '../../deps.js';
import { inTransaction } from '../../db/transaction.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { emitWebhookEvent } from '../outbound-webhooks/emit-webhook-events.js';
import { subscriptionEvent } from './subscription-event.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { requireCustomerByRef } from '../customers/customer-refs.js';
import { firstPeriod, type CreateSubscriptionInput, type Subscription } from './subscription.js';
import { timeOf } from '../test-clocks/clock-time.js';
import { loadPricedOffering } from '../catalog/load-priced-offering.js';
import { priceVersionFor } from '../catalog/price-version.js';
import { insertSubscription } from './subscription.repository.js';
import type { SubscriptionBilling } from './subscription-billing.js';
import { checkEntitlementConfig } from './check-entitlement-config.js';
import { toUsageLimitOverrides } from './usage-limits.js';
import { subscriptionTerms } from './subscription-terms.js';

const DAY_MS = 86_400_000;

/**
 * Starts a subscription at its customer's time (a test clock's, or now): its first period is the
 * trial when there is one, else the schedule's first period (anniversary by default). Its prices
 * are the offering's of the day (a price version), and billing issues its first invoice in the
 * same transaction, after the subscription.created audit event and webhook message.
 */
export async function createSubscription(
  deps: Deps,
  ctx: OperationContext,
  input: CreateSubscriptionInput,
  billing: SubscriptionBilling,
): Promise<Subscription> {
  return inTransaction(deps.db, async (trx) => {
    // Named as ingestion names it (cus_ id or externalId); the subscription keeps the cus_ id.
    const customer = await requireCustomerByRef(trx, ctx, input.customerId, 'body.customerId');
    const terms = await subscriptionTerms(trx, ctx, input);
    await checkEntitlementConfig(trx, ctx, input);
    // A customer on a test clock subscribes at the clock's time; everything else at real time.
    const testClockId = customer.testClockId;
    const now = await timeOf({ db: trx, clock: deps.clock }, ctx, testClockId);
    const trialEndsAt = terms.trialDays > 0 ? now + terms.trialDays * DAY_MS : null;
    const schedule = {
      billingAnchor: trialEndsAt ?? now,
      billingPeriod: terms.billingPeriod,
      periodAlignment: input.periodAlignment ?? 'anniversary',
    } as const;
    const first = firstPeriod(schedule, now);
    const priced = terms.offeringId === null ? null : await loadPricedOffering({ ...deps, db: trx }, ctx, terms.offeringId);
    const subscription: Subscription = {
      id: deps.ids.next('subscription'),
      environment: ctx.environment,
      customerId: customer.id,
      productId: terms.productId,
      offeringId: terms.offeringId,
      trialEndsAt,
      status: 'ACTIVE',
      ...schedule,
      currentPeriodStart: first.start,
      currentPeriodEnd: first.end,
      version: 1,
      startedAt: now,
      cancelledAt: null,
      metadata: input.metadata ?? {},
      currency: terms.currency,
      usageLimits: toUsageLimitOverrides(input.usageLimits ?? []),
      spendBudget: input.spendBudget ?? null,
      unitPrices: input.unitPrices ?? {},
      cancelAtPeriodEnd: false,
      scheduledChange: null,
      testClockId,
      priceVersionId: priced ? await priceVersionFor({ ...deps, db: trx }, ctx, priced) : null,
      priceVersionPinned: input.priceVersionPinned ?? false,
      discount: null,
      cancellationDetails: null,
      pastDueSince: null,
      pastDueAccessUntil: null,
      collectionMethod: input.collectionMethod ?? null,
      pendingUpdate: null,
      createdAt: deps.clock.now(),
      updatedAt: deps.clock.now(),
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
        periodAlignment: subscription.periodAlignment,
        currentPeriodStart: new Date(subscription.currentPeriodStart).toISOString(),
        currentPeriodEnd: new Date(subscription.currentPeriodEnd).toISOString(),
        priceVersionId: subscription.priceVersionId,
      },
    });
    await emitWebhookEvent(trx, deps, ctx, subscriptionEvent('subscription.created', subscription));
    // After the subscription's own events: its first invoice's follow them.
    await billing.opened({ ...deps, db: trx }, ctx, subscription, priced);
    return subscription;
  });
}
