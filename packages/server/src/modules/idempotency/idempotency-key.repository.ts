import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { Tenant } from '../../lib/tenant.js';

/**
 * Every read and write of `idempotency_keys`: a request's key, its fingerprint and, once the work
 * is done, the response to replay. (Usage events' ids are claimed in usage's own table since 0015.)
 */

export interface KeyRow {
  fingerprint: string;
  /** '' until the work under the key has run (in the same transaction). */
  responseBody: string;
  createdAt: number;
}

export async function findKeyRow(db: Db, tenant: Tenant, key: string): Promise<KeyRow | undefined> {
  return db
    .selectFrom('idempotencyKeys')
    .select(['fingerprint', 'responseBody', 'createdAt'])
    .$call(forTenant(tenant))
    .where('key', '=', key)
    .executeTakeFirst();
}

export async function deleteKeyRow(db: Db, tenant: Tenant, key: string): Promise<void> {
  await db.deleteFrom('idempotencyKeys').$call(forTenant(tenant)).where('key', '=', key).execute();
}

/** Inserts the key's row with no response yet; false when a row for the key exists (another request holds it). */
export async function insertKeyRow(db: Db, tenant: Tenant, key: string, fingerprint: string, now: number): Promise<boolean> {
  const inserted = await db
    .insertInto('idempotencyKeys')
    .values({
      workspaceId: tenant.workspaceId,
      environment: tenant.environment,
      key,
      fingerprint,
      responseStatus: 200,
      responseBody: '',
      createdAt: now,
    })
    .onConflict((oc) => oc.columns(['workspaceId', 'environment', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function storeResponse(db: Db, tenant: Tenant, key: string, responseBody: string): Promise<void> {
  await db.updateTable('idempotencyKeys').set({ responseBody }).$call(forTenant(tenant)).where('key', '=', key).execute();
}

/** Deletes every tenant's rows created at or before `cutoff`; returns how many. */
export async function deleteKeysCreatedUpTo(db: Db, cutoff: number): Promise<number> {
  const r = await db.deleteFrom('idempotencyKeys').where('createdAt', '<=', cutoff).executeTakeFirst();
  return Number(r.numDeletedRows);
}
