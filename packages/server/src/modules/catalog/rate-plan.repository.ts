import type { Selectable } from 'kysely';
import type { BillingPeriod, CatalogUnitPricing } from '@tollgate/pricing';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { Environment } from '../../lib/crypto.js';
import { parseMetadata, type Tenant } from '../../lib/tenant.js';
import type { RatePlan } from './rate-plan.js';
import type { UsageLimit } from './usage-limit.js';
import type { RatePlanTable } from '../../db/tables/rate-plan.table.js';

function toRatePlan(r: Selectable<RatePlanTable>): RatePlan {
  return {
    id: r.id,
    environment: r.environment as Environment,
    name: r.name,
    currency: r.currency,
    billingPeriod: r.billingPeriod as BillingPeriod,
    metrics: JSON.parse(r.metrics) as CatalogUnitPricing[],
    usageLimits: JSON.parse(r.usageLimits) as UsageLimit[],
    metadata: parseMetadata(r.metadata),
    version: Number(r.version),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

function toRow(tenant: Tenant, p: RatePlan) {
  return {
    ...p,
    workspaceId: tenant.workspaceId,
    environment: tenant.environment,
    metrics: JSON.stringify(p.metrics),
    usageLimits: JSON.stringify(p.usageLimits),
    metadata: JSON.stringify(p.metadata),
  };
}

export async function insertRatePlan(db: Db, tenant: Tenant, p: RatePlan): Promise<void> {
  await db.insertInto('ratePlans').values(toRow(tenant, p)).execute();
}

export async function findRatePlan(db: Db, tenant: Tenant, id: string): Promise<RatePlan | null> {
  const r = await db.selectFrom('ratePlans').selectAll().$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return r ? toRatePlan(r) : null;
}

export async function listRatePlans(db: Db, tenant: Tenant, page: PageParams): Promise<Page<RatePlan>> {
  const { items, hasMore } = await pageById(db.selectFrom('ratePlans').selectAll().$call(forTenant(tenant)), 'ratePlans', page);
  return { items: items.map(toRatePlan), hasMore };
}

/**
 * The plans with these ids that can be read. A plan whose stored units cannot be parsed is left
 * out and reported through `onUnreadable`: the published configuration omits it rather than
 * failing (spec: "a rate plan that cannot be read is omitted without an error").
 */
export async function findRatePlans(
  db: Db,
  tenant: Tenant,
  ids: readonly string[],
  onUnreadable?: (id: string, err: unknown) => void,
): Promise<Map<string, RatePlan>> {
  const out = new Map<string, RatePlan>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('ratePlans')
    .selectAll()
    .$call(forTenant(tenant))
    .where('id', 'in', [...new Set(ids)])
    .execute();
  for (const r of rows) {
    try {
      out.set(r.id, toRatePlan(r));
    } catch (err) {
      onUnreadable?.(r.id, err);
    }
  }
  return out;
}

/** Writes the plan if `expectedVersion` is still current; false when another change won. */
export async function updateRatePlanRow(db: Db, tenant: Tenant, p: RatePlan, expectedVersion: number): Promise<boolean> {
  const r = await db
    .updateTable('ratePlans')
    .set({
      name: p.name,
      metrics: JSON.stringify(p.metrics),
      usageLimits: JSON.stringify(p.usageLimits),
      metadata: JSON.stringify(p.metadata),
      version: p.version,
      updatedAt: p.updatedAt,
    })
    .$call(forTenant(tenant))
    .where('id', '=', p.id)
    .where('version', '=', expectedVersion)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
