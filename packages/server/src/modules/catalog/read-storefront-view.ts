import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import { buildStorefrontView, type StorefrontView } from './headless-config.js';
import { findOfferings } from './offering.repository.js';
import { findRatePlans } from './rate-plan.repository.js';
import { findMetricLabels } from '../metrics/metric.repository.js';
import { EMPTY_STOREFRONT_DISPLAY, type Storefront, type StorefrontDisplay } from './storefront.js';

/**
 * The offerings of a storefront's published (or draft) list and their plans, as they are now,
 * with the display settings of the same side. `revision` is the published version, or "draft".
 */
export async function readStorefrontView(
  deps: Deps,
  tenant: Tenant,
  storefront: Storefront,
  which: 'published' | 'draft',
): Promise<{ view: StorefrontView; revision: string; display: StorefrontDisplay }> {
  const ids = which === 'draft' ? storefront.draftOfferingIds : (storefront.publishedOfferingIds ?? []);
  const offerings = await findOfferings(deps.db, tenant, ids);
  const plans = await findRatePlans(
    deps.db,
    tenant,
    offerings.flatMap((o) => o.ratePlanIds),
    (id, err) => deps.log.warn({ err, ratePlanId: id, storefrontId: storefront.id }, 'rate plan unreadable; omitted from the storefront'),
  );
  const labels = await findMetricLabels(
    deps.db,
    tenant,
    [...plans.values()].flatMap((p) => p.metrics.map((m) => m.metricId)),
  );
  return {
    view: buildStorefrontView(offerings, plans, labels),
    revision: which === 'draft' ? 'draft' : String(storefront.publishedVersion),
    display: which === 'draft' ? storefront.draftDisplay : (storefront.publishedDisplay ?? EMPTY_STOREFRONT_DISPLAY),
  };
}
