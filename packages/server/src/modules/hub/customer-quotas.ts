import { Type, type Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import { checkEntitlement, EntitlementResultSchema } from '../entitlements/check-entitlement.js';
import { listSubscriptions } from '../subscriptions/subscription.repository.js';

export const QuotaSchema = Type.Object(
  { object: Type.Literal('quota'), productId: Type.String(), ...EntitlementResultSchema.properties },
  { title: 'HubQuota', description: 'The entitlement check’s answer for one product the customer subscribes to: what is left this period.' },
);

/** At most this many subscriptions are read: a customer has a handful. */
const MAX_SUBSCRIPTIONS = 100;

/**
 * What a customer has left, per product they hold a live subscription to: the entitlement check
 * itself (read-only, the same answer the seller's gateway gets), once per product.
 */
export async function listCustomerQuotas(deps: Deps, tenant: Tenant, customerId: string): Promise<Array<Static<typeof QuotaSchema>>> {
  const { items } = await listSubscriptions(deps.db, tenant, { customerId, limit: MAX_SUBSCRIPTIONS });
  const products = [...new Set(items.filter((s) => s.status !== 'CANCELLED').map((s) => s.productId))];
  const out: Array<Static<typeof QuotaSchema>> = [];
  for (const productId of products) out.push({ object: 'quota', productId, ...(await checkEntitlement(deps, tenant, customerId, productId)) });
  return out;
}
