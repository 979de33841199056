import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { Tenant } from '../../lib/tenant.js';
import type { AuditSearchPreset } from './audit-search-preset.js';
import type { AuditFilterQuery } from './audit-filter.js';
import type { AuditSearchPresetTable } from '../../db/tables/audit-search-preset.table.js';

const toPreset = (r: Selectable<AuditSearchPresetTable>): AuditSearchPreset => ({
  id: r.id,
  name: r.name,
  filters: JSON.parse(r.filters) as AuditFilterQuery,
  createdAt: Number(r.createdAt),
});

export async function insertPreset(db: Db, tenant: Tenant, p: AuditSearchPreset): Promise<void> {
  await db
    .insertInto('auditSearchPresets')
    .values({ ...p, workspaceId: tenant.workspaceId, environment: tenant.environment, filters: JSON.stringify(p.filters) })
    .execute();
}

export async function findPreset(db: Db, tenant: Tenant, id: string): Promise<AuditSearchPreset | null> {
  const r = await db.selectFrom('auditSearchPresets').selectAll().$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return r ? toPreset(r) : null;
}

export async function listPresets(db: Db, tenant: Tenant, page: PageParams): Promise<Page<AuditSearchPreset>> {
  const { items, hasMore } = await pageById(db.selectFrom('auditSearchPresets').selectAll().$call(forTenant(tenant)), 'auditSearchPresets', page);
  return { items: items.map(toPreset), hasMore };
}

export async function deletePreset(db: Db, tenant: Tenant, id: string): Promise<boolean> {
  const r = await db.deleteFrom('auditSearchPresets').$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
