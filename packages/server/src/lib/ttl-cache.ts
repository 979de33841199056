import type { Clock } from './clock.js';

/**
 * A small in-process cache with a TTL and a size bound, for credential lookups on the hot path.
 * clear() bumps a generation: a lookup that started before an invalidation cannot put its
 * (possibly stale) result back afterwards, which closes the race between a slow read and a
 * revocation.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private gen = 0;
  /** Lookups that found a live entry, and those that did not, since the start (tollgate_cache_*_total). */
  hits = 0;
  misses = 0;

  constructor(
    private readonly clock: Clock,
    private ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get generation(): number {
    return this.gen;
  }

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) {
      this.misses += 1;
      return undefined;
    }
    if (e.expiresAt <= this.clock.now()) {
      this.entries.delete(key);
      this.misses += 1;
      return undefined;
    }
    this.hits += 1;
    return e.value;
  }

  /** Stores only if no clear() happened since `generation` was read. */
  set(key: string, value: V, generation: number): void {
    if (generation !== this.gen || this.ttlMs <= 0) return;
    if (!this.entries.has(key) && this.entries.size >= this.maxEntries) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(key, { value, expiresAt: this.clock.now() + this.ttlMs });
  }

  /** Changes the TTL of entries stored from now on (the key cache shortens it while Redis is away). */
  setTtl(ms: number): void {
    this.ttlMs = ms;
  }

  clear(): void {
    this.gen += 1;
    this.entries.clear();
  }
}
