import type { Deps } from '../../deps.js';
import { afterCommit, inTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { recordAudit } from '../audit/audit-event.repository.js';
import { billingSettingsOf } from '../billing/billing-settings.repository.js';
import { SUBSCRIPTIONS_CHANGED, type Subscription } from '../subscriptions/subscription.js';
import { findSubscription, updateSubscriptionIfVersion } from '../subscriptions/subscription.repository.js';
import { timeOf } from '../test-clocks/clock-time.js';
import { findAcceptance, insertAcceptance } from './retention-offer-acceptance.repository.js';
import {
  RETENTION_DISCOUNT,
  retentionOfferFor,
  type AcceptanceChannel,
  type CancelReason,
  type DowngradeCandidate,
  type OfferType,
  type RetentionOfferAcceptance,
} from './retention-offer.js';

export interface AcceptRetentionOfferOptions {
  reason: CancelReason;
  /** The offer type the customer saw; refused when it is not the reason's (or is PAUSE_3_MONTHS). */
  offerType?: OfferType;
  channel: AcceptanceChannel;
  /** The subscription's cheapest DOWNGRADE candidate (cheapestDowngrade), for UNUSED. */
  downgradeCandidate: DowngradeCandidate | null;
}

export interface AcceptedRetentionOffer {
  acceptance: RetentionOfferAcceptance;
  /** false: this reason's offer was accepted before, and that record is returned unchanged. */
  created: boolean;
  subscription: Subscription;
}

const notAvailable = (message: string, field: string) => new AppError('OFFER_NOT_AVAILABLE', message, { field });

/**
 * Accepts the retention offer of a cancel reason, in one transaction: the acceptance is recorded
 * once per subscription and reason (a second accept returns the first record and changes
 * nothing), a DISCOUNT_20_PERCENT puts the discount on the subscription (version + 1) for the
 * renewal job to apply, and `retention_offer.accepted` is audited. A downgrade prompt or a support
 * hand-off is only recorded: the downgrade itself is a plan change the caller makes next.
 */
export async function acceptRetentionOffer(
  deps: Deps,
  ctx: OperationContext,
  subscriptionId: string,
  opts: AcceptRetentionOfferOptions,
): Promise<AcceptedRetentionOffer> {
  return inTransaction(deps.db, async (trx) => {
    const sub = await findSubscription(trx, ctx, subscriptionId);
    if (!sub) throw notFound('subscription', subscriptionId);
    if (opts.offerType === 'PAUSE_3_MONTHS') throw notAvailable('Pausing a subscription for 3 months is not available.', 'body.offerType');
    const before = await findAcceptance(trx, ctx, sub.id, opts.reason);
    if (before) {
      if (opts.offerType !== undefined && opts.offerType !== before.offer.type) {
        throw notAvailable(`The offer accepted for ${opts.reason} was ${before.offer.type}, not ${opts.offerType}.`, 'body.offerType');
      }
      return { acceptance: before, created: false, subscription: sub };
    }
    if (sub.status === 'CANCELLED') throw new AppError('SUBSCRIPTION_NOT_ACTIVE', `Subscription '${sub.id}' is CANCELLED; it has no offer to accept.`);

    const settings = await billingSettingsOf(trx, ctx);
    const offer = retentionOfferFor(opts.reason, { downgradeCandidate: opts.downgradeCandidate, supportUrl: settings.supportUrl });
    if (opts.offerType !== undefined && opts.offerType !== offer.type) {
      throw notAvailable(`The offer for ${opts.reason} is ${offer.type}, not ${opts.offerType}.`, 'body.offerType');
    }
    if (offer.type === 'NONE') throw notAvailable(`There is no retention offer for ${opts.reason} on this subscription: nothing to accept.`, 'body.reason');
    if (offer.type === 'DISCOUNT_20_PERCENT' && sub.discount !== null) {
      throw notAvailable(
        `A retention discount already runs on this subscription (${sub.discount.periodsLeft} of ${sub.discount.periods} invoices left); it is not granted twice at once.`,
        'body.reason',
      );
    }

    const acceptance: RetentionOfferAcceptance = {
      id: deps.ids.next('retentionOfferAcceptance'),
      subscriptionId: sub.id,
      reason: opts.reason,
      offer,
      channel: opts.channel,
      acceptedAt: await timeOf({ ...deps, db: trx }, ctx, sub.testClockId),
      createdAt: deps.clock.now(),
    };
    if (!(await insertAcceptance(trx, ctx, acceptance))) {
      // Another request accepted the same reason and committed first: its record is the answer.
      const first = await findAcceptance(trx, ctx, sub.id, opts.reason);
      if (first) return { acceptance: first, created: false, subscription: sub };
      throw new AppError('CONFLICT', `Subscription '${sub.id}' was changed by another request; try again.`);
    }
    let next = sub;
    if (offer.type === 'DISCOUNT_20_PERCENT') {
      next = {
        ...sub,
        discount: { ...RETENTION_DISCOUNT, periodsLeft: RETENTION_DISCOUNT.periods, source: 'retention_offer', acceptanceId: acceptance.id },
        version: sub.version + 1,
        updatedAt: deps.clock.now(),
      };
      if (!(await updateSubscriptionIfVersion(trx, ctx, next, sub.version))) {
        throw new AppError('CONFLICT', `Subscription '${sub.id}' was changed by another request; fetch it and try again.`);
      }
      await afterCommit(trx, () => deps.caches.clear(SUBSCRIPTIONS_CHANGED));
    }
    await recordAudit(trx, deps, ctx, {
      eventType: 'retention_offer.accepted',
      targetType: 'subscription',
      targetId: sub.id,
      payload: {
        acceptanceId: acceptance.id,
        reason: acceptance.reason,
        offerType: offer.type,
        channel: acceptance.channel,
        ...(offer.type === 'DOWNGRADE_PROMPT' ? { offeringId: offer.offeringId } : {}),
        ...(next.discount ? { discount: next.discount } : {}),
      },
    });
    return { acceptance, created: true, subscription: next };
  });
}
