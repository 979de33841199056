import type { Logger } from 'pino';
import type { Bus } from './bus.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import { TtlCache } from './ttl-cache.js';

/**
 * A module's cache, declared by the module that owns what it holds (the credential cache in
 * credentials, rated offerings in catalog…) and created once per app by the composition root. The
 * type parameter travels with the spec, so `deps.caches.of(spec)` is typed while Deps itself
 * names no module type.
 */
export interface CacheSpec<V> {
  readonly name: string;
  /** How long an entry lives; `degraded` while Redis is expected but away, so invalidations cannot arrive. */
  ttlMs(config: Config, degraded: boolean): number;
  readonly maxEntries: number;
  /** Bus channels whose messages clear this cache (on every node: see Caches.clearEverywhere). */
  readonly channels: readonly string[];
  /** Never read: carries V. */
  readonly __value?: V;
}

export function cacheSpec<V>(spec: Omit<CacheSpec<V>, '__value'>): CacheSpec<V> {
  return spec;
}

/**
 * The caches of one app (one node), by spec. Every cache is cleared when Redis comes or goes
 * (messages may have been missed either way), and each listens on its channels.
 */
export class Caches {
  private readonly bySpec = new Map<CacheSpec<unknown>, TtlCache<unknown>>();
  private degraded = false;

  constructor(
    private readonly deps: { clock: Clock; config: Config; bus: Bus; log: Logger },
    /** Tags this node's own broadcasts, which come back to it too and need no second clear. */
    private readonly origin: string,
  ) {}

  /** Called by the composition root for every module cache before the app serves. */
  async register(spec: CacheSpec<unknown>): Promise<void> {
    if (this.bySpec.has(spec)) return;
    const cache = new TtlCache<unknown>(this.deps.clock, spec.ttlMs(this.deps.config, this.degraded), spec.maxEntries);
    this.bySpec.set(spec, cache);
    for (const channel of spec.channels) {
      await this.deps.bus.subscribe(channel, (message) => {
        if (message !== this.origin) cache.clear();
      });
    }
  }

  of<V>(spec: CacheSpec<V>): TtlCache<V> {
    const cache = this.bySpec.get(spec);
    // A cache used before it was registered is a wiring bug: fail loudly rather than cache nothing.
    if (!cache) throw new Error(`cache ${spec.name} was not registered by the composition root`);
    return cache as TtlCache<V>;
  }

  /** Hits and misses of each cache since the start, by its spec's name (lib/metrics.ts reads them at scrape time). */
  stats(): Array<{ name: string; hits: number; misses: number }> {
    return [...this.bySpec].map(([spec, cache]) => ({ name: spec.name.replaceAll(' ', '_'), hits: cache.hits, misses: cache.misses }));
  }

  /** Clears, on this node only, every cache that listens on `channel`. */
  clear(channel: string): void {
    for (const [spec, cache] of this.bySpec) if (spec.channels.includes(channel)) cache.clear();
  }

  /**
   * After a committed change: clears here at once and tells every other node through the bus. A
   * lost broadcast is only logged: the caches' TTLs bound how long another node may serve the old value.
   */
  async clearEverywhere(channel: string, what: string): Promise<void> {
    this.clear(channel);
    try {
      await this.deps.bus.publish(channel, this.origin);
    } catch (err) {
      this.deps.log.warn({ err }, `${what} invalidation not broadcast; other nodes catch up when their cache entries expire`);
    }
  }

  /** Redis came or went: TTLs follow, and every cache starts afresh. */
  setDegraded(degraded: boolean): void {
    this.degraded = degraded;
    for (const [spec, cache] of this.bySpec) {
      cache.setTtl(spec.ttlMs(this.deps.config, degraded));
      cache.clear();
    }
  }
}
