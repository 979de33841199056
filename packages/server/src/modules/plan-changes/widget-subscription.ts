import type { Static } from '@sinclair/typebox';
import { describeOffering } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import type { Tenant } from '../../lib/tenant.js';
import { loadPricedOffering } from '../catalog/load-priced-offering.js';
import type { Subscription } from '../subscriptions/subscription.js';
import type { WidgetSubscriptionSchema } from './plan-change.js';

export type WidgetSubscription = Static<typeof WidgetSubscriptionSchema>;

/** The subscription as the buyer's browser may see it (plan-change.ts, WidgetSubscriptionSchema). */
export async function presentWidgetSubscription(deps: Deps, tenant: Tenant, sub: Subscription): Promise<WidgetSubscription> {
  const current = sub.offeringId === null ? null : await loadPricedOffering(deps, tenant, sub.offeringId);
  const scheduled = sub.scheduledChange ? await loadPricedOffering(deps, tenant, sub.scheduledChange.offeringId) : null;
  return {
    object: 'widget_subscription',
    id: sub.id,
    status: sub.status,
    version: sub.version,
    currency: sub.currency,
    offering: current ? { id: current.offering.id, name: current.offering.name, priceText: describeOffering(current.offering, current.plans).price } : null,
    currentPeriodEnd: toIso(sub.currentPeriodEnd),
    trialEndsAt: toIsoOrNull(sub.trialEndsAt),
    cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
    scheduledChange:
      sub.scheduledChange && scheduled
        ? { offeringId: scheduled.offering.id, offeringName: scheduled.offering.name, effectiveAt: toIso(sub.currentPeriodEnd) }
        : null,
  };
}
