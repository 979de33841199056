/**
 * The idempotency keys of requests that admission shed, so that their retries can be let in ahead
 * of new work (admission-gate.ts). Only a key this node shed counts: a client cannot promote a
 * request by inventing a key, only by having been turned away with it first, which a well-behaved
 * client is anyway. Kept as a hash of the key (never the key as sent), per tenant, for `ttlMs`, and
 * bounded twice: `perTenant` keys (a tenant shedding more forgets its oldest) and `total` keys
 * across tenants (the tenant remembered longest gives way), so memory is bounded whoever sends.
 */
export interface ShedKeysOptions {
  perTenant: number;
  total: number;
  ttlMs: number;
  now: () => number;
}

export class ShedKeys {
  /** Tenant -> key hash -> expiry. Insertion order is age order: a key remembered again moves last. */
  private readonly byTenant = new Map<string, Map<string, number>>();
  private count = 0;

  constructor(private readonly opts: ShedKeysOptions) {}

  get size(): number {
    return this.count;
  }

  remember(tenant: string, hash: string): void {
    let keys = this.byTenant.get(tenant);
    if (!keys) {
      keys = new Map();
      this.byTenant.set(tenant, keys);
    }
    if (keys.delete(hash)) this.count -= 1;
    else if (keys.size >= this.opts.perTenant) this.forgetOldest(tenant, keys);
    if (this.count >= this.opts.total) this.forgetOldestTenantKey();
    // forgetOldestTenantKey may have dropped this very tenant's (then empty) map.
    if (!this.byTenant.has(tenant)) this.byTenant.set(tenant, keys);
    keys.set(hash, this.opts.now() + this.opts.ttlMs);
    this.count += 1;
  }

  /** Whether the key was shed and is still remembered (left remembered). */
  has(tenant: string, hash: string): boolean {
    const keys = this.byTenant.get(tenant);
    const expires = keys?.get(hash);
    if (expires === undefined) return false;
    if (expires > this.opts.now()) return true;
    this.forget(tenant, keys!, hash);
    return false;
  }

  /** Whether the key was shed and is still remembered; forgets it (its retry is being let in). */
  take(tenant: string, hash: string): boolean {
    const live = this.has(tenant, hash);
    if (live) this.forget(tenant, this.byTenant.get(tenant)!, hash);
    return live;
  }

  private forget(tenant: string, keys: Map<string, number>, hash: string): void {
    if (!keys.delete(hash)) return;
    this.count -= 1;
    if (keys.size === 0) this.byTenant.delete(tenant);
  }

  private forgetOldest(tenant: string, keys: Map<string, number>): void {
    const oldest = keys.keys().next();
    if (!oldest.done) this.forget(tenant, keys, oldest.value);
  }

  private forgetOldestTenantKey(): void {
    const first = this.byTenant.entries().next();
    if (!first.done) this.forgetOldest(first.value[0], first.value[1]);
  }
}
