import type { Deps } from '../../deps.js';
import { cacheSpec } from '../../lib/caches.js';
import { sha256Hex } from '../../lib/crypto.js';
import { stableStringify } from '../../lib/stable-json.js';
import type { Tenant } from '../../lib/tenant.js';
import type { PricedOffering } from './load-priced-offering.js';
import { findPriceVersion, findPriceVersionByHash, insertPriceVersion } from './price-version.repository.js';

/**
 * Price versions: an offering and its rate plans as a subscription's period is priced. A
 * subscription holds one for its current period, so an edit of the offering or of a plan it uses
 * never re-prices a period already started: renewals take the offering's prices of that day (or
 * keep the version, when pinned), and an invoice names the version it was rated with.
 *
 * Versions are immutable and deduplicated by the hash of what prices (not names or metadata), so
 * 100,000 subscribers of an unchanged offering share one.
 */

/** The fields that decide a price: a new version exists only when one of them changes. */
function pricingContent(p: PricedOffering): unknown {
  const o = p.offering;
  return {
    offering: {
      id: o.id,
      currency: o.currency,
      entryPrice: o.entryPrice,
      billingPeriod: o.billingPeriod,
      trialDays: o.trialDays,
      ratePlanIds: o.ratePlanIds,
      overrides: o.overrides,
      // Only when PREPAID, so that a POSTPAID offering's content (and version) is what it was before PREPAID existed.
      ...(o.billingMode === 'PREPAID' ? { billingMode: o.billingMode, overage: o.overage, recurringCredits: o.recurringCredits } : {}),
    },
    plans: p.plans.map((plan) => ({ id: plan.id, currency: plan.currency, metrics: plan.metrics })),
  };
}

/** Immutable rows: cached for as long as they stay in the cache. */
export const priceVersionCache = cacheSpec<PricedOffering | null>({ name: 'price versions', ttlMs: () => 3_600_000, maxEntries: 10_000, channels: [] });

/** The version of these prices, created the first time they are seen. Call it inside the caller's transaction. */
export async function priceVersionFor(deps: Pick<Deps, 'db' | 'ids' | 'clock'>, tenant: Tenant, priced: PricedOffering): Promise<string> {
  const content = stableStringify(pricingContent(priced));
  const contentHash = sha256Hex(content);
  const existing = await findPriceVersionByHash(deps.db, tenant, priced.offering.id, contentHash);
  if (existing) return existing;
  await insertPriceVersion(deps.db, tenant, {
    id: deps.ids.next('priceVersion'),
    offeringId: priced.offering.id,
    contentHash,
    content: JSON.stringify(priced),
    createdAt: deps.clock.now(),
  });
  // Another transaction may have inserted the same prices first: its id is the one.
  return (await findPriceVersionByHash(deps.db, tenant, priced.offering.id, contentHash)) as string;
}

/** The offering and plans as the version recorded them. */
export async function loadPriceVersion(deps: Pick<Deps, 'db' | 'caches'>, tenant: Tenant, id: string): Promise<PricedOffering | null> {
  const key = `${tenant.workspaceId}:${tenant.environment}:${id}`;
  const cache = deps.caches.of(priceVersionCache);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const generation = cache.generation;
  const row = await findPriceVersion(deps.db, tenant, id);
  const priced = row ? (JSON.parse(row.content) as PricedOffering) : null;
  cache.set(key, priced, generation);
  return priced;
}
