import type { Db } from '../../db/database.js';
import type { Tenant } from '../../lib/tenant.js';
import type { PaymentMethodSummary } from './payment-provider.js';

export interface ProviderCustomerRow {
  customerId: string;
  providerCustomerId: string;
  paymentMethod: PaymentMethodSummary | null;
}

export async function findProviderCustomer(db: Db, tenant: Tenant, provider: string, customerId: string): Promise<ProviderCustomerRow | null> {
  const r = await db
    .selectFrom('providerCustomers')
    .select(['customerId', 'providerCustomerId', 'paymentMethod'])
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('provider', '=', provider)
    .where('customerId', '=', customerId)
    .executeTakeFirst();
  return r ? toRow(r) : null;
}

const toRow = (r: { customerId: string; providerCustomerId: string; paymentMethod: string | null }): ProviderCustomerRow => ({
  ...r,
  paymentMethod: r.paymentMethod === null ? null : (JSON.parse(r.paymentMethod) as PaymentMethodSummary),
});

/** Several of ours at the provider at once, by our customer id (those never made there are absent). */
export async function findProviderCustomers(
  db: Db,
  tenant: Tenant,
  provider: string,
  customerIds: readonly string[],
): Promise<Map<string, ProviderCustomerRow>> {
  if (customerIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('providerCustomers')
    .select(['customerId', 'providerCustomerId', 'paymentMethod'])
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('provider', '=', provider)
    .where('customerId', 'in', [...new Set(customerIds)])
    .execute();
  return new Map(rows.map((r) => [r.customerId, toRow(r)]));
}

/** Keeps the first provider customer made for one of ours (two requests racing make one row; the loser reads the winner's). */
export async function insertProviderCustomer(
  db: Db,
  tenant: Tenant,
  provider: string,
  customerId: string,
  providerCustomerId: string,
  now: number,
): Promise<void> {
  await db
    .insertInto('providerCustomers')
    .values({ workspaceId: tenant.workspaceId, environment: tenant.environment, provider, customerId, providerCustomerId, paymentMethod: null, updatedAt: now })
    .onConflict((oc) => oc.columns(['workspaceId', 'environment', 'provider', 'customerId']).doNothing())
    .execute();
}

/**
 * Forgets a payment method shown as the default of our customers (it was detached at the provider):
 * the ids of our customers it was shown for. The method's id is matched exactly; the LIKE only
 * narrows the rows read (an id's `_` matches itself too).
 */
export async function clearProviderPaymentMethod(db: Db, tenant: Tenant, provider: string, paymentMethodId: string, now: number): Promise<string[]> {
  const rows = await db
    .selectFrom('providerCustomers')
    .select(['customerId', 'paymentMethod'])
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('provider', '=', provider)
    .where('paymentMethod', 'like', `%${paymentMethodId}%`)
    .execute();
  const shown = rows
    .filter((r) => r.paymentMethod !== null && (JSON.parse(r.paymentMethod) as PaymentMethodSummary).id === paymentMethodId)
    .map((r) => r.customerId);
  if (shown.length === 0) return [];
  await db
    .updateTable('providerCustomers')
    .set({ paymentMethod: null, updatedAt: now })
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('provider', '=', provider)
    .where('customerId', 'in', shown)
    .execute();
  return shown;
}

/** The default payment method of the provider's customer; the number of our customers it belongs to (0 when unknown). */
export async function setProviderPaymentMethod(
  db: Db,
  tenant: Tenant,
  provider: string,
  providerCustomerId: string,
  method: PaymentMethodSummary,
  now: number,
): Promise<string[]> {
  const rows = await db
    .updateTable('providerCustomers')
    .set({ paymentMethod: JSON.stringify(method), updatedAt: now })
    .where('workspaceId', '=', tenant.workspaceId)
    .where('environment', '=', tenant.environment)
    .where('provider', '=', provider)
    .where('providerCustomerId', '=', providerCustomerId)
    .returning('customerId')
    .execute();
  return rows.map((r) => r.customerId);
}

export async function markProviderEventApplied(db: Db, connectionId: string, providerEventId: string, now: number): Promise<void> {
  await db
    .updateTable('paymentProviderEvents')
    .set({ appliedAt: now })
    .where('connectionId', '=', connectionId)
    .where('providerEventId', '=', providerEventId)
    .execute();
}

export async function isProviderEventApplied(db: Db, connectionId: string, providerEventId: string): Promise<boolean> {
  const r = await db
    .selectFrom('paymentProviderEvents')
    .select('appliedAt')
    .where('connectionId', '=', connectionId)
    .where('providerEventId', '=', providerEventId)
    .executeTakeFirst();
  return r?.appliedAt !== null && r?.appliedAt !== undefined;
}
