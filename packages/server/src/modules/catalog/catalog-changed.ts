import type { Deps } from '../../deps.js';

export const CATALOG_CHANNEL = 'catalog.invalidate';

/**
 * After a committed catalog change: entitlement answers and rated offerings cached on this node
 * are dropped at once, and on every other node through the bus.
 */
export async function catalogChanged(deps: Deps): Promise<void> {
  deps.entitlements.clear();
  deps.catalog.clear();
  try {
    await deps.bus.publish(CATALOG_CHANNEL, 'changed');
  } catch (err) {
    // Other nodes then catch up when their cache entries expire (CATALOG_CACHE_TTL_MS).
    deps.log.warn({ err }, 'catalog invalidation not broadcast');
  }
}
