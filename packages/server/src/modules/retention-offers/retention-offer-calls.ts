import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Subscription } from '../subscriptions/subscription.js';
import { findSubscription } from '../subscriptions/subscription.repository.js';
import { acceptRetentionOffer } from './accept-retention-offer.js';
import { downgradeCandidateFor, offerForSubscription } from './offer-for-subscription.js';
import { findAcceptance } from './retention-offer-acceptance.repository.js';
import { presentAcceptance, type AcceptanceChannel, type AcceptRetentionOfferInput, type CancelReason } from './retention-offer.js';

/** What the operator's routes and the widget's (modules/plan-changes) both answer. */

/** The subscription, live: offers are for a customer who has not cancelled yet. */
async function liveSubscription(deps: Deps, tenant: Tenant, id: string): Promise<Subscription> {
  const sub = await findSubscription(deps.db, tenant, id);
  if (!sub) throw notFound('subscription', id);
  if (sub.status === 'CANCELLED') throw new AppError('SUBSCRIPTION_NOT_ACTIVE', `Subscription '${id}' is CANCELLED; it has no retention offer.`);
  return sub;
}

/** The offer for a reason (accepted already or not), as GET …/retention-offers answers. */
export async function retentionOfferView(deps: Deps, tenant: Tenant, subscriptionId: string, reason: CancelReason) {
  const sub = await liveSubscription(deps, tenant, subscriptionId);
  const accepted = await findAcceptance(deps.db, tenant, sub.id, reason);
  const offer = accepted?.offer ?? (await offerForSubscription(deps, tenant, sub, reason));
  return { object: 'retention_offer' as const, subscriptionId: sub.id, reason, offer, acceptanceId: accepted?.id ?? null };
}

/** Accepts the offer of a reason for the subscription, once (POST …/retention-offer). */
export async function acceptOfferFor(deps: Deps, ctx: OperationContext, subscriptionId: string, body: AcceptRetentionOfferInput, channel: AcceptanceChannel) {
  const sub = await findSubscription(deps.db, ctx, subscriptionId);
  if (!sub) throw notFound('subscription', subscriptionId);
  const downgradeCandidate = await downgradeCandidateFor(deps, ctx, sub, body.reason);
  const { acceptance } = await acceptRetentionOffer(deps, ctx, sub.id, { ...body, channel, downgradeCandidate });
  return presentAcceptance(acceptance);
}
