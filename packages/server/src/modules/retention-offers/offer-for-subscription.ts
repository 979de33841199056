import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import { billingSettingsOf } from '../billing/billing-settings.repository.js';
import type { Subscription } from '../subscriptions/subscription.js';
import { cheapestDowngrade } from './cheapest-downgrade.js';
import { offerTypeFor, retentionOfferFor, type CancelReason, type DowngradeCandidate, type RetentionOffer } from './retention-offer.js';

/** The cheapest downgrade, looked for only when the reason's offer is a downgrade prompt (UNUSED). */
export function downgradeCandidateFor(
  deps: Deps,
  tenant: Tenant,
  sub: Pick<Subscription, 'offeringId'>,
  reason: CancelReason,
): Promise<DowngradeCandidate | null> {
  return offerTypeFor(reason) === 'DOWNGRADE_PROMPT' ? cheapestDowngrade(deps, tenant, sub) : Promise.resolve(null);
}

/**
 * The offer a subscription's customer cancelling for `reason` is shown, as it stands now: what a
 * cancel answers with, and what GET …/retention-offers shows before anything is accepted.
 */
export async function offerForSubscription(deps: Deps, tenant: Tenant, sub: Pick<Subscription, 'offeringId'>, reason: CancelReason): Promise<RetentionOffer> {
  const downgradeCandidate = await downgradeCandidateFor(deps, tenant, sub, reason);
  const supportUrl = offerTypeFor(reason) === 'SUPPORT_HANDOFF' ? (await billingSettingsOf(deps.db, tenant)).supportUrl : null;
  return retentionOfferFor(reason, { downgradeCandidate, supportUrl });
}
