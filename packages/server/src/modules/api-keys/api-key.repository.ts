import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { Environment } from '../../lib/crypto.js';
import type { Tenant } from '../../lib/tenant.js';
import type { ApiKey, ApiKeyKind, ApiKeyStatus } from './api-key.js';
import type { ApiKeyTable } from '../../db/tables/api-key.table.js';
import type { Scope } from '../../lib/principal.js';
import type { FindCredentialByHash } from '../credentials/credential-lookup.js';

function toApiKey(r: Selectable<ApiKeyTable>): ApiKey {
  return {
    id: r.id,
    environment: r.environment as Environment,
    kind: r.kind as ApiKeyKind,
    name: r.name,
    hint: r.hint,
    scopes: r.scopes.split(' ').filter(Boolean) as Scope[],
    subscriptionId: r.subscriptionId,
    customerId: r.customerId,
    productId: r.productId,
    status: r.status as ApiKeyStatus,
    expiresAt: r.expiresAt,
    replacedById: r.replacedById,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    revokedAt: r.revokedAt,
  };
}

export async function insertApiKey(db: Db, tenant: Tenant, k: ApiKey, keyHash: string): Promise<void> {
  await db
    .insertInto('apiKeys')
    .values({ ...k, workspaceId: tenant.workspaceId, environment: tenant.environment, scopes: k.scopes.join(' '), keyHash })
    .execute();
}

export async function findApiKey(db: Db, tenant: Tenant, id: string): Promise<ApiKey | null> {
  const r = await db.selectFrom('apiKeys').selectAll().$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return r ? toApiKey(r) : null;
}

/** A tenant's keys by id, in id order (ids of other tenants are not returned). */
export async function findApiKeys(db: Db, tenant: Tenant, ids: readonly string[]): Promise<ApiKey[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('apiKeys')
    .selectAll()
    .$call(forTenant(tenant))
    .where('id', 'in', [...ids])
    .orderBy('id')
    .execute();
  return rows.map(toApiKey);
}

export interface ApiKeyFilter extends PageParams {
  kind?: ApiKeyKind;
  status?: ApiKeyStatus;
  subscriptionId?: string;
  /** A customer's product keys (the developer hub's list). */
  customerId?: string;
}

export async function listApiKeys(db: Db, tenant: Tenant, f: ApiKeyFilter): Promise<Page<ApiKey>> {
  let q = db.selectFrom('apiKeys').selectAll().$call(forTenant(tenant));
  if (f.kind !== undefined) q = q.where('kind', '=', f.kind);
  if (f.status !== undefined) q = q.where('status', '=', f.status);
  if (f.subscriptionId !== undefined) q = q.where('subscriptionId', '=', f.subscriptionId);
  if (f.customerId !== undefined) q = q.where('customerId', '=', f.customerId);
  const { items, hasMore } = await pageById(q, 'apiKeys', f);
  return { items: items.map(toApiKey), hasMore };
}

/**
 * Moves an ACTIVE key to ROTATED (with a grace end) or REVOKED. The status condition makes two
 * concurrent rotations of one key impossible: only one of them changes a row.
 */
export async function retireActiveKey(
  db: Db,
  tenant: Tenant,
  id: string,
  change: {
    status: 'ROTATED' | 'REVOKED';
    expiresAt: number | null;
    replacedById: string;
    now: number;
    /** A grace in a test clock's time instead of expiresAt. */
    clockGrace?: { testClockId: string; endsAt: number } | null;
  },
): Promise<boolean> {
  const r = await db
    .updateTable('apiKeys')
    .set({
      status: change.status,
      expiresAt: change.expiresAt,
      graceTestClockId: change.clockGrace?.testClockId ?? null,
      graceEndsAtClock: change.clockGrace?.endsAt ?? null,
      replacedById: change.replacedById,
      updatedAt: change.now,
      revokedAt: change.status === 'REVOKED' ? change.now : null,
    })
    .$call(forTenant(tenant))
    .where('id', '=', id)
    .where('status', '=', 'ACTIVE')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Revokes one key whatever its state (a rotated key in its grace period too). */
export async function revokeApiKeyRow(db: Db, tenant: Tenant, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('apiKeys')
    .set({ status: 'REVOKED', revokedAt: now, updatedAt: now })
    .$call(forTenant(tenant))
    .where('id', '=', id)
    .where('status', '!=', 'REVOKED')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Revokes every key bound to a subscription; returns their ids. */
export async function revokeKeysForSubscription(db: Db, tenant: Tenant, subscriptionId: string, now: number): Promise<string[]> {
  const rows = await db
    .updateTable('apiKeys')
    .set({ status: 'REVOKED', revokedAt: now, updatedAt: now })
    .$call(forTenant(tenant))
    .where('subscriptionId', '=', subscriptionId)
    .where('status', '!=', 'REVOKED')
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Stamps the first use of a rotated key during its grace (api_key.grace_used): true only for the
 * call that set it, so the event is written once per key, ever, whatever the nodes and races.
 */
export async function markGraceUsed(db: Db, tenant: Tenant, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('apiKeys')
    .set({ graceUsedAt: now })
    .$call(forTenant(tenant))
    .where('id', '=', id)
    .where('status', '=', 'ROTATED')
    .where('graceUsedAt', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** The hot-path lookup (behind the credential cache): a key by the SHA-256 of its secret. */
export const findApiKeyCredential: FindCredentialByHash = async (db, hash, rateLimitOf) => {
  const row = await db
    .selectFrom('apiKeys as k')
    .select((eb) => [
      'k.id',
      'k.workspaceId',
      'k.environment',
      'k.kind',
      'k.scopes',
      'k.status',
      'k.expiresAt',
      'k.customerId',
      'k.subscriptionId',
      'k.productId',
      rateLimitOf(db, eb.ref('k.workspaceId')).as('rateLimitPerMinute'),
    ])
    .where('k.keyHash', '=', hash)
    .executeTakeFirst();
  if (!row) return null;
  const base = {
    id: row.id,
    workspaceId: row.workspaceId,
    environment: row.environment as Environment,
    status: row.status,
    expiresAt: row.expiresAt,
    rateLimitPerMinute: row.rateLimitPerMinute,
  };
  if (row.kind === 'WORKSPACE') {
    return { ...base, type: 'workspace_key', scopes: row.scopes.split(' ').filter(Boolean) as Scope[] };
  }
  return {
    ...base,
    type: 'product_key',
    customerId: row.customerId ?? '',
    subscriptionId: row.subscriptionId ?? '',
    productId: row.productId ?? '',
  };
};

/**
 * Ends the grace of keys rotated on a test clock once the clock has passed it (`upTo`): they
 * expire at `now`, real time, which is what verification compares. Returns their ids.
 */
export async function expireClockGraceKeys(db: Db, tenant: Tenant, testClockId: string, upTo: number, now: number): Promise<string[]> {
  const rows = await db
    .updateTable('apiKeys')
    .set({ expiresAt: now, updatedAt: now })
    .$call(forTenant(tenant))
    .where('graceTestClockId', '=', testClockId)
    .where('status', '=', 'ROTATED')
    .where('expiresAt', 'is', null)
    .where('graceEndsAtClock', '<=', upTo)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}
