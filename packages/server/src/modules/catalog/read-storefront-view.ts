import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import { buildStorefrontView, type StorefrontView } from './headless-config.js';
import { findOfferings } from './offering.repository.js';
import { findRatePlans } from './rate-plan.repository.js';
import type { Storefront } from './storefront.js';

/**
 * The offerings of a storefront's published (or draft) list and their plans, as they are now.
 * `revision` is the published version, or "draft".
 */
export async function readStorefrontView(
  deps: Deps,
  tenant: Tenant,
  storefront: Storefront,
  which: 'published' | 'draft',
): Promise<{ view: StorefrontView; revision: string }> {
  const ids = which === 'draft' ? storefront.draftOfferingIds : (storefront.publishedOfferingIds ?? []);
  const offerings = await findOfferings(deps.db, tenant, ids);
  const plans = await findRatePlans(
    deps.db,
    tenant,
    offerings.flatMap((o) => o.ratePlanIds),
    (id, err) => deps.log.warn({ err, ratePlanId: id, storefrontId: storefront.id }, 'rate plan unreadable; omitted from the storefront'),
  );
  return { view: buildStorefrontView(offerings, plans), revision: which === 'draft' ? 'draft' : String(storefront.publishedVersion) };
}
