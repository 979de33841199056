import { changeKind, comparePerMonth, describeOffering, type ChangeKind } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Offering } from '../catalog/offering.js';
import { loadPricedOffering, type PricedOffering } from '../catalog/load-priced-offering.js';
import { findOffering, findOfferings } from '../catalog/offering.repository.js';
import { publishedOfferingIds } from '../catalog/storefront.repository.js';
import type { Subscription } from '../subscriptions/subscription.js';

export interface ChangeCandidate {
  priced: PricedOffering;
  kind: ChangeKind;
}

/**
 * What a subscription can change to: every offering a storefront publishes for the same product,
 * in the same currency, with a change kind (ONE_TIME offerings have none), other than the current
 * one; cheapest per month first (then by name). Target offerings are self-contained (spec): no add-ons.
 */
export async function listChangeCandidates(deps: Deps, tenant: Tenant, sub: Subscription): Promise<ChangeCandidate[]> {
  if (sub.offeringId === null) return [];
  const current = await findOffering(deps.db, tenant, sub.offeringId);
  if (!current) return [];
  const published = [...(await publishedOfferingIds(deps.db, tenant))].filter((id) => id !== current.id);
  const candidates: ChangeCandidate[] = [];
  for (const offering of await findOfferings(deps.db, tenant, published)) {
    if (offering.productId !== sub.productId || offering.currency !== sub.currency) continue;
    const kind = changeKind(current, offering);
    const priced = kind === null ? null : await loadPricedOffering(deps, tenant, offering.id);
    if (kind !== null && priced) candidates.push({ priced, kind });
  }
  const perMonth = (o: Offering) => ({ amount: o.entryPrice ?? '0', interval: o.billingPeriod });
  return candidates.sort(
    (a, b) =>
      (comparePerMonth(perMonth(a.priced.offering), perMonth(b.priced.offering)) ?? 0) ||
      a.priced.offering.name.localeCompare(b.priced.offering.name) ||
      a.priced.offering.id.localeCompare(b.priced.offering.id),
  );
}

export function presentCandidate(c: ChangeCandidate) {
  const o = c.priced.offering;
  return {
    object: 'change_candidate' as const,
    offeringId: o.id,
    name: o.name,
    kind: c.kind,
    currency: o.currency,
    entryPrice: o.entryPrice,
    // Never ONE_TIME: such an offering has no change kind, so it is no candidate.
    billingPeriod: o.billingPeriod as Exclude<Offering['billingPeriod'], 'ONE_TIME'>,
    priceText: describeOffering(o, c.priced.plans).price,
  };
}
