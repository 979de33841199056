import { burnDown, Decimal, roundToMinorUnit, type BurnCharge } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import type { Db } from '../../db/database.js';
import { afterCommit } from '../../db/transaction.js';
import { cacheSpec } from '../../lib/caches.js';
import type { Tenant } from '../../lib/tenant.js';
import type { CreditGrant } from './credit-grant.js';
import { drawableGrants } from './credit-ledger.repository.js';

/**
 * A PREPAID subscription's live credit balance between closes, for the entitlement check: what
 * its grants have left (the ledger counts every closed period already) less what the current
 * period's usage so far will draw, from the period's rated usage that the check computes anyway.
 * No ledger read per check: the customer's active grants are cached per node, cleared on every
 * node whenever credits change.
 */

/** Bus channel: a grant, draw, void, expiry or top-up was committed. */
export const CREDITS_CHANGED = 'credits.changed';

/** Every change broadcasts a clear; the TTL bounds how long another node may use the old grants when a broadcast is lost. */
export const CREDITS_CACHE_TTL_MS = 5_000;

export const activeGrantsCache = cacheSpec<CreditGrant[]>({
  name: 'active credit grants',
  ttlMs: () => CREDITS_CACHE_TTL_MS,
  maxEntries: 100_000,
  channels: [CREDITS_CHANGED],
});

/** After the caller's transaction commits: every node forgets the grants it holds (and the entitlement answers made from them). */
export async function creditsChanged(deps: Pick<Deps, 'caches'>, trx: Db): Promise<void> {
  await afterCommit(trx, () => deps.caches.clearEverywhere(CREDITS_CHANGED, 'credit grants'));
}

/** The customer's active grants in the currency (cached; see above). */
export async function activeGrantsOf(deps: Pick<Deps, 'db' | 'caches'>, tenant: Tenant, customerId: string, currency: string): Promise<CreditGrant[]> {
  const key = `${tenant.workspaceId}\u0000${tenant.environment}\u0000${customerId}\u0000${currency}`;
  const cache = deps.caches.of(activeGrantsCache);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const generation = cache.generation;
  const grants = await drawableGrants(deps.db, tenant, customerId, currency, []);
  cache.set(key, grants, generation);
  return grants;
}

/** One usage line of the current period: its metric and what it rates to so far. */
export interface UsageSoFar {
  metricName: string;
  amount: string;
}

/**
 * Pure: the subscription's credits left at `now`, after the current period's usage so far, in
 * the currency's minor unit; negative by what no grant can pay. The usage is burnt down as if
 * it all occurred now, by the grants effective now and in the subscription's scope, in draw
 * order: usage earlier in the period that a grant since expired would have paid counts against
 * the grants left (the check errs towards refusing), and the invoice's burn-down at the close is
 * exact. A grant limited to some metrics counts towards the balance whether or not those metrics
 * are used.
 */
export function liveCreditBalance(grants: readonly CreditGrant[], sub: { id: string; currency: string }, now: number, usage: readonly UsageSoFar[]): string {
  const eligible = grants.filter(
    (g) =>
      g.status === 'active' &&
      g.currency === sub.currency &&
      (g.subscriptionId === null || g.subscriptionId === sub.id) &&
      g.effectiveAt <= now &&
      (g.expiresAt === null || now < g.expiresAt),
  );
  // Grants for every metric pay any charge, so what is left is what they hold less the usage: no
  // burn-down needed (the check's common case, and its hot path).
  if (eligible.every((g) => g.metricNames === null)) {
    let left = new Decimal(0);
    for (const g of eligible) left = left.plus(g.remaining);
    for (const u of usage) left = left.minus(u.amount);
    return roundToMinorUnit(left, sub.currency);
  }
  const charges: BurnCharge[] = usage
    .filter((u) => new Decimal(u.amount).gt(0))
    .map((u) => ({ at: now, amount: u.amount, subscriptionId: sub.id, metricName: u.metricName }));
  const burn = burnDown(sub.currency, eligible, charges);
  let left = new Decimal(0);
  for (const r of burn.remaining.values()) left = left.plus(r);
  return roundToMinorUnit(left.minus(burn.overage), sub.currency);
}
