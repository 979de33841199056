import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { Environment } from '../../lib/crypto.js';
import type { Tenant } from '../../lib/tenant.js';
import { EMPTY_STOREFRONT_DISPLAY, type Storefront, type StorefrontDisplay } from './storefront.js';
import type { StorefrontTable } from '../../db/tables/storefront.table.js';

function toStorefront(r: Selectable<StorefrontTable>): Storefront {
  return {
    id: r.id,
    environment: r.environment as Environment,
    name: r.name,
    draftOfferingIds: JSON.parse(r.draftOfferingIds) as string[],
    publishedOfferingIds: r.publishedOfferingIds === null ? null : (JSON.parse(r.publishedOfferingIds) as string[]),
    draftDisplay: r.draftDisplay ? (JSON.parse(r.draftDisplay) as StorefrontDisplay) : EMPTY_STOREFRONT_DISPLAY,
    publishedDisplay: r.publishedDisplay === null ? null : (JSON.parse(r.publishedDisplay) as StorefrontDisplay),
    publishedVersion: Number(r.publishedVersion),
    publishedAt: r.publishedAt,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

function toRow(tenant: Tenant, s: Storefront) {
  return {
    ...s,
    workspaceId: tenant.workspaceId,
    environment: tenant.environment,
    draftOfferingIds: JSON.stringify(s.draftOfferingIds),
    publishedOfferingIds: s.publishedOfferingIds === null ? null : JSON.stringify(s.publishedOfferingIds),
    draftDisplay: JSON.stringify(s.draftDisplay),
    publishedDisplay: s.publishedDisplay === null ? null : JSON.stringify(s.publishedDisplay),
  };
}

export async function insertStorefront(db: Db, tenant: Tenant, s: Storefront): Promise<void> {
  await db.insertInto('storefronts').values(toRow(tenant, s)).execute();
}

export async function findStorefront(db: Db, tenant: Tenant, id: string): Promise<Storefront | null> {
  const r = await db.selectFrom('storefronts').selectAll().$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return r ? toStorefront(r) : null;
}

/**
 * The hosted page is public: its URL carries only the storefront id, which decides the tenant.
 * Nothing but published pricing is read through it.
 */
export async function findStorefrontById(db: Db, id: string): Promise<(Storefront & Tenant) | null> {
  const r = await db.selectFrom('storefronts').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? { ...toStorefront(r), workspaceId: r.workspaceId } : null;
}

export async function listStorefronts(db: Db, tenant: Tenant, page: PageParams): Promise<Page<Storefront>> {
  const { items, hasMore } = await pageById(db.selectFrom('storefronts').selectAll().$call(forTenant(tenant)), 'storefronts', page);
  return { items: items.map(toStorefront), hasMore };
}

export async function updateStorefrontRow(db: Db, tenant: Tenant, s: Storefront): Promise<void> {
  const { id, workspaceId: _w, environment: _e, createdAt: _c, ...changes } = toRow(tenant, s);
  await db.updateTable('storefronts').set(changes).$call(forTenant(tenant)).where('id', '=', id).execute();
}

/** Every offering some storefront of the tenant publishes: what a subscriber can change to. */
export async function publishedOfferingIds(db: Db, tenant: Tenant): Promise<Set<string>> {
  const rows = await db
    .selectFrom('storefronts')
    .select('publishedOfferingIds')
    .$call(forTenant(tenant))
    .where('publishedOfferingIds', 'is not', null)
    .execute();
  return new Set(rows.flatMap((r) => (r.publishedOfferingIds === null ? [] : (JSON.parse(r.publishedOfferingIds) as string[]))));
}
