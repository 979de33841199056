import { Type, type Static } from '@sinclair/typebox';
import { metricLabel } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import type { Tenant } from '../../lib/tenant.js';
import { EntitlementResultSchema, explainEntitlement } from '../entitlements/check-entitlement.js';
import { findMetricLabels, findMetricsByIdOrName } from '../metrics/metric.repository.js';
import { listSubscriptions } from '../subscriptions/subscription.repository.js';
import { namePlans, PlanNameFields } from './customer-plans.js';

const Label = Type.String({ description: 'The metric’s display name, else its name made readable (`api_calls`: `Api calls`).' });
const { limits: Limits } = EntitlementResultSchema.properties;

export const QuotaSchema = Type.Object(
  {
    object: Type.Literal('quota'),
    productId: Type.String(),
    ...PlanNameFields,
    ...EntitlementResultSchema.properties,
    limits: Type.Array(Type.Object({ ...Limits.items.properties, label: Label }), { description: Limits.description }),
    quotaMetric: Type.Union([Type.Object({ name: Type.String(), label: Label }), Type.Null()], {
      description:
        'The metric quotaRemaining is of: the one whose usage limit or free allowance leaves the least. null when the quota is unlimited or there is no active subscription.',
    }),
  },
  {
    title: 'HubQuota',
    description:
      'The entitlement check’s answer for one product the customer subscribes to (what is left this period), with the deciding subscription’s product and plan by name and each metric’s label.',
  },
);
export type Quota = Static<typeof QuotaSchema>;

/** At most this many subscriptions are read: a customer has a handful. */
const MAX_SUBSCRIPTIONS = 100;

/**
 * What a customer has left, per product they hold a live subscription to: the entitlement check
 * itself (read-only, the same answer the seller's gateway gets), once per product, with the names
 * the hub shows instead of ids.
 */
export async function listCustomerQuotas(deps: Deps, tenant: Tenant, customerId: string): Promise<Quota[]> {
  const { items } = await listSubscriptions(deps.db, tenant, { customerId, limit: MAX_SUBSCRIPTIONS });
  const live = items.filter((s) => s.status !== 'CANCELLED');
  const answers = [];
  for (const productId of new Set(live.map((s) => s.productId)))
    answers.push({ productId, ...(await explainEntitlement(deps, tenant, customerId, productId)) });
  const names = await namePlans(deps, tenant, live);
  const labels = await metricLabels(
    deps,
    tenant,
    answers.flatMap((a) => [...a.limits.map((l) => l.metricName), ...(a.quotaMetricName === null ? [] : [a.quotaMetricName])]),
  );
  return answers.map(({ quotaMetricName, ...a }) => {
    // The deciding subscription is one of the live ones read above.
    const deciding = live.find((s) => s.id === a.subscriptionId) ?? live.find((s) => s.productId === a.productId)!;
    return {
      object: 'quota' as const,
      ...a,
      ...names.get(deciding.id)!,
      limits: a.limits.map((l) => ({ ...l, label: labels.get(l.metricName)! })),
      quotaMetric: quotaMetricName === null ? null : { name: quotaMetricName, label: labels.get(quotaMetricName)! },
    };
  });
}

/** Each metric's label by name (pricing's rule: the display name, else the name made readable). */
async function metricLabels(deps: Deps, tenant: Tenant, names: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(names)];
  const found = unique.length === 0 ? [] : await findMetricsByIdOrName(deps.db, tenant, [], unique);
  const labels = await findMetricLabels(
    deps.db,
    tenant,
    found.map((m) => m.id),
  );
  const idOf = new Map(found.map((m) => [m.name, m.id]));
  return new Map(unique.map((name) => [name, metricLabel(name, labels.get(idOf.get(name) ?? '')?.displayName)]));
}
