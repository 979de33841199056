import type { Selectable } from 'kysely';
import type { BillingPeriod } from '@tollgate/pricing';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { Environment } from '../../lib/crypto.js';
import { parseMetadata, type Tenant } from '../../lib/tenant.js';
import type { BillingMode, Offering, OfferingOverride, OverageRule, RecurringCredits } from './offering.js';
import type { OfferingTable } from '../../db/tables/offering.table.js';

function toOffering(r: Selectable<OfferingTable>): Offering {
  return {
    id: r.id,
    environment: r.environment as Environment,
    productId: r.productId,
    name: r.name,
    billingMode: r.billingMode as BillingMode,
    overage: r.overage as OverageRule | null,
    recurringCredits: r.recurringCredits === null ? null : (JSON.parse(r.recurringCredits) as RecurringCredits),
    currency: r.currency,
    entryPrice: r.entryPrice,
    billingPeriod: r.billingPeriod as BillingPeriod,
    trialDays: Number(r.trialDays),
    ratePlanIds: JSON.parse(r.ratePlanIds) as string[],
    overrides: JSON.parse(r.overrides) as OfferingOverride[],
    metadata: parseMetadata(r.metadata),
    version: Number(r.version),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

function toRow(tenant: Tenant, o: Offering) {
  return {
    ...o,
    workspaceId: tenant.workspaceId,
    environment: tenant.environment,
    ratePlanIds: JSON.stringify(o.ratePlanIds),
    overrides: JSON.stringify(o.overrides),
    recurringCredits: o.recurringCredits === null ? null : JSON.stringify(o.recurringCredits),
    metadata: JSON.stringify(o.metadata),
  };
}

export async function insertOffering(db: Db, tenant: Tenant, o: Offering): Promise<void> {
  await db.insertInto('offerings').values(toRow(tenant, o)).execute();
}

export async function findOffering(db: Db, tenant: Tenant, id: string): Promise<Offering | null> {
  const r = await db.selectFrom('offerings').selectAll().$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return r ? toOffering(r) : null;
}

/** The offerings with these ids, in the order asked; unknown ids are left out. */
export async function findOfferings(db: Db, tenant: Tenant, ids: readonly string[]): Promise<Offering[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('offerings')
    .selectAll()
    .$call(forTenant(tenant))
    .where('id', 'in', [...new Set(ids)])
    .execute();
  const byId = new Map(rows.map((r) => [r.id, toOffering(r)]));
  return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
}

export async function listOfferings(db: Db, tenant: Tenant, page: PageParams): Promise<Page<Offering>> {
  const { items, hasMore } = await pageById(db.selectFrom('offerings').selectAll().$call(forTenant(tenant)), 'offerings', page);
  return { items: items.map(toOffering), hasMore };
}

export async function updateOfferingRow(db: Db, tenant: Tenant, o: Offering, expectedVersion: number): Promise<boolean> {
  const { id, workspaceId: _w, environment: _e, createdAt: _c, ...changes } = toRow(tenant, o);
  const r = await db
    .updateTable('offerings')
    .set(changes)
    .$call(forTenant(tenant))
    .where('id', '=', id)
    .where('version', '=', expectedVersion)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The offerings that list this rate plan (a plan is on a handful of offerings). */
export async function findOfferingsWithPlan(db: Db, tenant: Tenant, ratePlanId: string): Promise<Offering[]> {
  // Ids are [a-z0-9_], so the quoted id cannot match inside another id or need escaping.
  const rows = await db.selectFrom('offerings').selectAll().$call(forTenant(tenant)).where('ratePlanIds', 'like', `%"${ratePlanId}"%`).execute();
  return rows.map(toOffering).filter((o) => o.ratePlanIds.includes(ratePlanId));
}
