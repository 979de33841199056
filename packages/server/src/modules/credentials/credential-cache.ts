import type { Deps } from '../../deps.js';
import { afterCommit } from '../../db/transaction.js';
import { cacheSpec } from '../../lib/caches.js';
import type { Credential } from '../../lib/principal.js';

/** Any message clears every node's credential cache; the CLI sends one after a rate-limit change. */
export const CREDENTIALS_CHANNEL = 'credentials.invalidate';

/** Credentials by SHA-256 of the presented secret; null caches "no such credential". */
export const credentialCache = cacheSpec<Credential | null>({
  name: 'credentials',
  // While Redis is away no invalidation can arrive: a revocation elsewhere must bite within the degraded TTL.
  ttlMs: (config, degraded) => (degraded ? config.keyCacheDegradedTtlMs : config.keyCacheTtlMs),
  maxEntries: 10_000,
  channels: [CREDENTIALS_CHANNEL],
});

/**
 * After a credential changed (revoked, rotated, its subscription cancelled): drops cached
 * credentials on this node and every other, once the change has committed, so that no node can
 * cache again a state that is about to change.
 */
export function invalidateCredentials(deps: Deps): Promise<void> {
  return afterCommit(deps.db, () => deps.caches.clearEverywhere(CREDENTIALS_CHANNEL, 'credential'));
}
