import type { Db } from '../../db/database.js';
import type { Deps } from '../../deps.js';
import { cacheSpec } from '../../lib/caches.js';
import { AppError } from '../../lib/errors.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Customer } from './customer.js';
import { findCustomer, resolveCustomerRefs } from './customer.repository.js';

/**
 * The customer a reference names, wherever the API names one: its cus_ id or its externalId, as
 * ingestion names customers (an id match wins); null when it names nobody in this tenant.
 */
export async function findCustomerByRef(db: Db, tenant: Tenant, ref: string): Promise<Customer | null> {
  const id = (await resolveCustomerRefs(db, tenant, [ref])).get(ref);
  return id === undefined ? null : findCustomer(db, tenant, id);
}

/** findCustomerByRef, or 404 NOT_FOUND naming the field the reference came in (path.id, body.customerId). */
export async function requireCustomerByRef(db: Db, tenant: Tenant, ref: string, field: string): Promise<Customer> {
  const customer = await findCustomerByRef(db, tenant, ref);
  if (!customer) throw new AppError('NOT_FOUND', `No customer with id or externalId '${ref}' exists in this workspace and environment.`, { field });
  return customer;
}

/**
 * A list's customerId filter: the id of the customer the reference names. One that names nobody
 * here stays as it is: no row of this tenant carries it, so the list is empty, not a 404.
 */
export async function customerIdFilter(db: Db, tenant: Tenant, ref: string | undefined): Promise<string | undefined> {
  return ref === undefined ? undefined : ((await resolveCustomerRefs(db, tenant, [ref])).get(ref) ?? ref);
}

export const CUSTOMERS_CHANNEL = 'customers.invalidate';
export const CUSTOMER_REF_TTL_MS = 60_000;

export const customerRefCache = cacheSpec<string>({
  name: 'customer references',
  ttlMs: () => CUSTOMER_REF_TTL_MS,
  maxEntries: 100_000,
  channels: [CUSTOMERS_CHANNEL],
});

/**
 * resolveCustomerRefs behind a cache of hits, for webhooks: each names one customer, and the
 * lookup was a quarter of the receiver's main-thread time. Misses are not cached (a customer
 * created a moment later must resolve at once); a changed externalId clears the cache on every
 * node (customerRefsChanged), and the TTL bounds staleness when a broadcast is lost.
 */
export async function resolveCustomerRefsCached(deps: Deps, tenant: Tenant, refs: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const missing: string[] = [];
  const cache = deps.caches.of(customerRefCache);
  const prefix = `${tenant.workspaceId}\u0000${tenant.environment}\u0000`;
  for (const ref of refs) {
    const hit = cache.get(prefix + ref);
    if (hit === undefined) missing.push(ref);
    else out.set(ref, hit);
  }
  if (missing.length === 0) return out;
  const generation = cache.generation;
  for (const [ref, id] of await resolveCustomerRefs(deps.db, tenant, missing)) {
    out.set(ref, id);
    cache.set(prefix + ref, id, generation);
  }
  return out;
}

/** After a customer's externalId changed (committed): drop cached references here and on every node. */
export function customerRefsChanged(deps: Deps): Promise<void> {
  return deps.caches.clearEverywhere(CUSTOMERS_CHANNEL, 'customer reference');
}
