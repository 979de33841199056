import type { Deps } from '../../deps.js';

export const CATALOG_CHANNEL = 'catalog.invalidate';

/**
 * After a committed catalog change: entitlement answers and rated offerings cached on this node
 * are dropped at once, and on every other node through the bus.
 */
export function catalogChanged(deps: Deps): Promise<void> {
  return deps.caches.clearEverywhere(CATALOG_CHANNEL, 'catalog');
}
