import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { Environment } from '../../lib/crypto.js';
import type { Tenant } from '../../lib/tenant.js';
import type { StorefrontKey } from './storefront-key.js';
import type { StorefrontKeyTable } from '../../db/tables/storefront-key.table.js';
import type { FindCredentialByHash } from '../credentials/credential-lookup.js';

function toStorefrontKey(r: Selectable<StorefrontKeyTable>): StorefrontKey {
  return {
    id: r.id,
    environment: r.environment as Environment,
    name: r.name,
    storefrontId: r.storefrontId,
    hint: r.hint,
    status: r.status as StorefrontKey['status'],
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    revokedAt: r.revokedAt,
  };
}

export async function insertStorefrontKey(db: Db, tenant: Tenant, k: StorefrontKey, keyHash: string): Promise<void> {
  await db
    .insertInto('storefrontKeys')
    .values({ ...k, workspaceId: tenant.workspaceId, environment: tenant.environment, keyHash })
    .execute();
}

export async function findStorefrontKey(db: Db, tenant: Tenant, id: string): Promise<StorefrontKey | null> {
  const r = await db.selectFrom('storefrontKeys').selectAll().$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return r ? toStorefrontKey(r) : null;
}

export async function listStorefrontKeys(db: Db, tenant: Tenant, page: PageParams): Promise<Page<StorefrontKey>> {
  const q = db.selectFrom('storefrontKeys').selectAll().$call(forTenant(tenant));
  const { items, hasMore } = await pageById(q, 'storefrontKeys', page);
  return { items: items.map(toStorefrontKey), hasMore };
}

export async function revokeStorefrontKeyRow(db: Db, tenant: Tenant, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('storefrontKeys')
    .set({ status: 'REVOKED', revokedAt: now, updatedAt: now })
    .$call(forTenant(tenant))
    .where('id', '=', id)
    .where('status', '!=', 'REVOKED')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The hot-path lookup (behind the credential cache): a storefront key by the SHA-256 of its secret. */
export const findStorefrontKeyCredential: FindCredentialByHash = async (db, hash, rateLimitOf) => {
  const row = await db
    .selectFrom('storefrontKeys as s')
    .select((eb) => ['s.id', 's.workspaceId', 's.environment', 's.status', 's.storefrontId', rateLimitOf(db, eb.ref('s.workspaceId')).as('rateLimitPerMinute')])
    .where('s.keyHash', '=', hash)
    .executeTakeFirst();
  return row ? { ...row, environment: row.environment as Environment, expiresAt: null, type: 'storefront_key' } : null;
};
