import { Decimal, roundToMinorUnit } from '@tollgate/pricing';
import type { Db } from '../../db/database.js';
import type { Tenant } from '../../lib/tenant.js';

/**
 * A customer's balance in one currency: what credit notes credited to it, less what invoices spent
 * of it. Decimal text, so it is read, changed in code and written back: callers hold the row
 * (`lock` on PostgreSQL; SQLite has one writer) between the read and the write, in one transaction.
 */
export async function customerBalanceOf(db: Db, tenant: Tenant, customerId: string, currency: string, opts: { lock?: boolean } = {}): Promise<string> {
  let q = db
    .selectFrom('customerBalances')
    .select('balance')
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('customerId', '=', customerId)
    .where('currency', '=', currency);
  if (opts.lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  return row ? row.balance : roundToMinorUnit('0', currency);
}

/** Adds `delta` (negative: spent) to the balance read under the caller's lock; never below zero (the caller checked). */
export async function changeCustomerBalance(
  db: Db,
  tenant: Tenant,
  customerId: string,
  currency: string,
  read: string,
  delta: string,
  now: number,
): Promise<string> {
  const balance = roundToMinorUnit(new Decimal(read).plus(delta), currency);
  if (new Decimal(balance).lt(0)) throw new Error(`customer ${customerId}'s ${currency} balance would go below zero`);
  await db
    .insertInto('customerBalances')
    .values({ workspaceId: tenant.workspaceId, environment: tenant.environment, customerId, currency, balance, updatedAt: now })
    .onConflict((oc) => oc.columns(['workspaceId', 'environment', 'customerId', 'currency']).doUpdateSet({ balance, updatedAt: now }))
    .execute();
  return balance;
}

/** Every currency's balance of a customer, by currency. */
export async function customerBalances(db: Db, tenant: Tenant, customerId: string): Promise<Array<{ currency: string; balance: string; updatedAt: number }>> {
  const rows = await db
    .selectFrom('customerBalances')
    .select(['currency', 'balance', 'updatedAt'])
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('customerId', '=', customerId)
    .orderBy('currency')
    .execute();
  return rows.map((r) => ({ currency: r.currency, balance: r.balance, updatedAt: Number(r.updatedAt) }));
}

/** The balances of several customers (a renewal group's), held until the commit on PostgreSQL with `lock`; key `${customerId}:${currency}`. */
export async function customerBalancesOf(db: Db, tenant: Tenant, customerIds: readonly string[], opts: { lock?: boolean } = {}): Promise<Map<string, string>> {
  if (customerIds.length === 0) return new Map();
  let q = db
    .selectFrom('customerBalances')
    .select(['customerId', 'currency', 'balance'])
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('customerId', 'in', [...new Set(customerIds)])
    // One order for every locker: two groups locking overlapping customers wait, never deadlock.
    .orderBy('customerId')
    .orderBy('currency');
  if (opts.lock) q = q.forUpdate();
  const rows = await q.execute();
  return new Map(rows.map((r) => [`${r.customerId}:${r.currency}`, r.balance]));
}
