import type { Deps } from '../../deps.js';
import { SUBSCRIPTIONS_CHANGED } from './subscription.js';
import { inTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../lib/errors.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { emitWebhookEvent } from '../outbound-webhooks/emit-webhook-events.js';
import { subscriptionEvent } from './subscription-event.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { BoundCredentials } from './bound-credentials.js';
import { timeOf } from '../test-clocks/clock-time.js';
import type { SubscriptionBilling } from './subscription-billing.js';
import type { Subscription } from './subscription.js';
import type { CancellationDetails } from './cancellation-details.js';
import { findSubscription, updateSubscriptionIfVersion } from './subscription.repository.js';

/** What the caller says of a cancellation; its time is the subscription's at the cancellation. */
export type CancelRequest = Omit<CancellationDetails, 'requestedAt'>;

export interface CancelledSubscription {
  subscription: Subscription;
  revokedKeyIds: string[];
  revokedClientCredentialIds: string[];
}

/**
 * Cancels at once and, in the same transaction, bills the period's usage so far on a last invoice
 * and revokes every product key and client credential bound to the subscription; after the
 * commit every node drops them from its cache. (The unused part of an entry price paid in
 * advance is not credited here: prorated credit notes come with plan changes.)
 */
export async function cancelSubscription(
  deps: Deps,
  ctx: OperationContext,
  id: string,
  bound: BoundCredentials,
  billing: SubscriptionBilling,
  /** How it was asked for: kept on the subscription (cancellationDetails), and in its audit event and webhook details. */
  request: CancelRequest,
  /** Added to the audit event and webhook details after the request (plan-changes: the credit note). */
  details: Record<string, unknown> = {},
): Promise<CancelledSubscription> {
  const result = await inTransaction(deps.db, async (trx) => {
    const txDeps = { ...deps, db: trx };
    const current = await findSubscription(trx, ctx, id);
    if (!current) throw notFound('subscription', id);
    if (current.status === 'CANCELLED') {
      throw new AppError('SUBSCRIPTION_NOT_ACTIVE', `Subscription '${id}' is already ${current.status}.`);
    }
    const now = await timeOf(txDeps, ctx, current.testClockId);
    const next: Subscription = {
      ...current,
      status: 'CANCELLED',
      cancelledAt: now,
      cancelAtPeriodEnd: false,
      scheduledChange: null,
      cancellationDetails: { ...request, requestedAt: now },
      version: current.version + 1,
      updatedAt: deps.clock.now(),
    };
    if (!(await updateSubscriptionIfVersion(trx, ctx, next, current.version))) {
      throw new AppError('CONFLICT', `Subscription '${id}' was changed by another request; fetch it and try again.`);
    }
    const invoiceId = await billing.cancelled(txDeps, ctx, current, now);
    const revoked = await bound.revokeForSubscription(txDeps, ctx, id, deps.clock.now());
    const asked = { reason: request.reason, channel: request.cancel_channel, comment: request.comment };
    const payload = { ...asked, ...details, revokedKeyIds: revoked.keyIds, revokedClientCredentialIds: revoked.clientCredentialIds };
    await recordAudit(trx, deps, ctx, { eventType: 'subscription.cancelled', targetType: 'subscription', targetId: id, payload });
    await emitWebhookEvent(trx, deps, ctx, subscriptionEvent('subscription.cancelled', next, current, { applyAt: 'IMMEDIATE', ...payload, invoiceId }));
    await bound.recordRevocations(txDeps, ctx, id, revoked);
    return { subscription: next, revokedKeyIds: revoked.keyIds, revokedClientCredentialIds: revoked.clientCredentialIds };
  });
  deps.caches.clear(SUBSCRIPTIONS_CHANGED);
  return result;
}
