import { cacheSpec } from '../../lib/caches.js';
import { CATALOG_CHANNEL } from '../catalog/catalog-changed.js';
import { SUBSCRIPTIONS_CHANGED } from '../subscriptions/subscription.js';

/**
 * Entitlement answers as JSON text, by tenant, customer and product, for ENTITLEMENT_CACHE_TTL_MS
 * at most: cleared by every catalog change (on every node) and every subscription change (here).
 */
export const entitlementAnswerCache = cacheSpec<string>({
  name: 'entitlement answers',
  ttlMs: (config) => config.entitlementCacheTtlMs,
  maxEntries: 50_000,
  channels: [CATALOG_CHANNEL, SUBSCRIPTIONS_CHANGED],
});
