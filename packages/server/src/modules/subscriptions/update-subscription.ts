import type { Deps } from '../../deps.js';
import { SUBSCRIPTIONS_CHANGED } from './subscription.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { emitWebhookEvent } from '../outbound-webhooks/emit-webhook-events.js';
import { subscriptionEvent } from './subscription-event.js';
import { toIso } from '../../lib/clock.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { settledStatus, type Subscription, type UpdateSubscriptionInput } from './subscription.js';
import { findSubscription, updateSubscriptionIfVersion } from './subscription.repository.js';
import { checkEntitlementConfig } from './check-entitlement-config.js';
import { toUsageLimitOverrides } from './usage-limits.js';
import { timeOf } from '../test-clocks/clock-time.js';

/** Replaces the fields present in the body; the version increases. A cancelled subscription is final. */
export async function updateSubscription(deps: Deps, ctx: OperationContext, id: string, input: UpdateSubscriptionInput): Promise<Subscription> {
  const updated = await inTransaction(deps.db, async (trx) => {
    const current = await findSubscription(trx, ctx, id);
    if (!current) throw notFound('subscription', id);
    if (current.status === 'CANCELLED') {
      throw new AppError('SUBSCRIPTION_NOT_ACTIVE', `Subscription '${id}' is ${current.status}; it can no longer change.`);
    }
    if (current.offeringId !== null) {
      if (input.unitPrices !== undefined && Object.keys(input.unitPrices).length > 0) {
        throw new AppError(
          'VALIDATION_FAILED',
          "An offering's rate plans price this subscription's usage; unitPrices is only for subscriptions without an offering.",
          { field: 'body.unitPrices' },
        );
      }
      if (input.currency !== undefined && input.currency !== current.currency) {
        throw new AppError('VALIDATION_FAILED', `This subscription bills in its offering's currency, ${current.currency}.`, { field: 'body.currency' });
      }
    }
    await checkEntitlementConfig(trx, ctx, input);
    const { usageLimits, ...rest } = input;
    const next: Subscription = {
      ...current,
      ...rest,
      ...(usageLimits ? { usageLimits: toUsageLimitOverrides(usageLimits) } : {}),
      version: current.version + 1,
      updatedAt: deps.clock.now(),
    };
    // A cancellation asked for at the period end waits like a plan change does; past due stays past due until paid.
    if (current.status !== 'PAST_DUE') next.status = settledStatus(next);
    if (next.cancelAtPeriodEnd !== current.cancelAtPeriodEnd) {
      next.cancellationDetails = next.cancelAtPeriodEnd
        ? { reason: null, cancel_channel: 'API', comment: null, requestedAt: await timeOf({ ...deps, db: trx }, ctx, current.testClockId) }
        : null;
    }
    if (!(await updateSubscriptionIfVersion(trx, ctx, next, current.version))) {
      throw new AppError('CONFLICT', `Subscription '${id}' was changed by another request; fetch it and try again.`);
    }
    await recordAudit(trx, deps, ctx, {
      eventType: 'subscription.updated',
      targetType: 'subscription',
      targetId: id,
      payload: { changed: Object.keys(input), version: next.version },
    });
    // Asking for (or taking back) a cancellation at the period end is what sellers subscribe to;
    // the other fields (limits, budget, prices, metadata) name no webhook event.
    if (next.cancelAtPeriodEnd !== current.cancelAtPeriodEnd) {
      const scheduled = next.cancelAtPeriodEnd;
      const details = scheduled
        ? {
            change: 'CANCEL',
            fromOfferingId: current.offeringId,
            toOfferingId: null,
            effectiveAt: toIso(next.currentPeriodEnd),
            channel: 'API',
            reason: null,
            comment: null,
          }
        : { withdrawn: { change: 'CANCEL', toOfferingId: null }, channel: 'API' };
      await emitWebhookEvent(
        trx,
        deps,
        ctx,
        subscriptionEvent(scheduled ? 'subscription.change_scheduled' : 'subscription.change_withdrawn', next, current, details),
      );
    }
    return next;
  });
  // This node answers with the new limits at once; others within ENTITLEMENT_CACHE_TTL_MS.
  deps.caches.clear(SUBSCRIPTIONS_CHANGED);
  return updated;
}
