import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { Tenant } from '../../lib/tenant.js';

/**
 * Every read and write of `idempotency_keys`. It holds two kinds of row: a request's key (its
 * fingerprint and, once the work is done, the response to replay), and a usage event's id
 * (`event:<id>`, no response), claimed for 24 hours.
 */

export interface KeyRow {
  fingerprint: string;
  /** '' until the work under the key has run (in the same transaction). */
  responseBody: string;
  createdAt: number;
}

const EVENT_KEY_PREFIX = 'event:';

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

/**
 * Claims per-event ids for 24 hours in the idempotency table (not a unique index on the event
 * table, which would halve the insert rate). Returns the ids claimed now; the others were seen
 * within the window. A claim older than the window is taken over.
 */
export async function claimEventIds(db: Db, tenant: Tenant, eventIds: string[], now: number, windowMs: number): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  eventIds = [...eventIds].sort(); // one lock order for every writer (see usage's addToAggregates)
  const claimed = new Set<string>();
  // 7 parameters a row; stay well inside both dialects' parameter limits.
  for (let i = 0; i < eventIds.length; i += 1000) {
    const chunk = eventIds.slice(i, i + 1000);
    const rows = await db
      .insertInto('idempotencyKeys')
      .values(
        chunk.map((id) => ({
          workspaceId: tenant.workspaceId,
          environment: tenant.environment,
          key: `${EVENT_KEY_PREFIX}${id}`,
          fingerprint: '',
          responseStatus: 200,
          responseBody: '',
          createdAt: now,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['workspaceId', 'environment', 'key'])
          .doUpdateSet({ createdAt: now })
          .where('idempotencyKeys.createdAt', '<=', now - windowMs),
      )
      .returning('key')
      .execute();
    for (const r of rows) claimed.add(r.key.slice(EVENT_KEY_PREFIX.length));
  }
  return claimed;
}

/** Read-only: which of these event ids were claimed after `since` (what claimEventIds would skip). */
export async function findClaimedEventIds(db: Db, tenant: Tenant, eventIds: readonly string[], since: number): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('idempotencyKeys')
    .select('key')
    .$call(forTenant(tenant))
    .where(
      'key',
      'in',
      [...new Set(eventIds)].map((id) => `${EVENT_KEY_PREFIX}${id}`),
    )
    .where('createdAt', '>', since)
    .execute();
  return new Set(rows.map((r) => r.key.slice(EVENT_KEY_PREFIX.length)));
}

/** Deletes every tenant's rows created at or before `cutoff`; returns how many. */
export async function deleteKeysCreatedUpTo(db: Db, cutoff: number): Promise<number> {
  const r = await db.deleteFrom('idempotencyKeys').where('createdAt', '<=', cutoff).executeTakeFirst();
  return Number(r.numDeletedRows);
}
