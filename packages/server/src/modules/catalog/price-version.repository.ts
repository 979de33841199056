import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { Tenant } from '../../lib/tenant.js';

export interface PriceVersionRow {
  id: string;
  offeringId: string;
  contentHash: string;
  content: string;
  createdAt: number;
}

export async function findPriceVersion(db: Db, tenant: Tenant, id: string): Promise<PriceVersionRow | null> {
  const r = await db
    .selectFrom('priceVersions')
    .select(['id', 'offeringId', 'contentHash', 'content', 'createdAt'])
    .$call(forTenant(tenant))
    .where('id', '=', id)
    .executeTakeFirst();
  return r ? { ...r, createdAt: Number(r.createdAt) } : null;
}

export async function findPriceVersionByHash(db: Db, tenant: Tenant, offeringId: string, contentHash: string): Promise<string | null> {
  const r = await db
    .selectFrom('priceVersions')
    .select('id')
    .$call(forTenant(tenant))
    .where('offeringId', '=', offeringId)
    .where('contentHash', '=', contentHash)
    .executeTakeFirst();
  return r?.id ?? null;
}

/** Inserts the version unless an equal one exists (a concurrent insert wins the unique index). */
export async function insertPriceVersion(db: Db, tenant: Tenant, v: PriceVersionRow): Promise<void> {
  await db
    .insertInto('priceVersions')
    .values({ ...v, workspaceId: tenant.workspaceId, environment: tenant.environment })
    .onConflict((oc) => oc.columns(['workspaceId', 'environment', 'offeringId', 'contentHash']).doNothing())
    .execute();
}
