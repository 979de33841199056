import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { Environment } from '../../lib/crypto.js';
import type { Tenant } from '../../lib/tenant.js';
import type { ClientCredential } from './client-credential.js';
import type { ClientCredentialTable } from '../../db/tables/client-credential.table.js';
import type { FindCredentialByHash } from '../credentials/credential-lookup.js';

function toClientCredential(r: Selectable<ClientCredentialTable>): ClientCredential {
  return {
    id: r.id,
    environment: r.environment as Environment,
    name: r.name,
    hint: r.hint,
    subscriptionId: r.subscriptionId,
    customerId: r.customerId,
    productId: r.productId,
    status: r.status as ClientCredential['status'],
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    revokedAt: r.revokedAt,
  };
}

export async function insertClientCredential(db: Db, tenant: Tenant, c: ClientCredential, secretHash: string): Promise<void> {
  await db
    .insertInto('clientCredentials')
    .values({ ...c, workspaceId: tenant.workspaceId, environment: tenant.environment, secretHash })
    .execute();
}

export async function findClientCredential(db: Db, tenant: Tenant, id: string): Promise<ClientCredential | null> {
  const r = await db.selectFrom('clientCredentials').selectAll().$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return r ? toClientCredential(r) : null;
}

/**
 * The token endpoint's look-up: the client ID is the only thing presented, so this is the one
 * query that finds its tenant from the row; the secret is then compared in constant time.
 */
export async function findClientForTokenGrant(db: Db, clientId: string): Promise<{ credential: ClientCredential; tenant: Tenant; secretHash: string } | null> {
  const r = await db.selectFrom('clientCredentials').selectAll().where('id', '=', clientId).executeTakeFirst();
  if (!r) return null;
  return {
    credential: toClientCredential(r),
    tenant: { workspaceId: r.workspaceId, environment: r.environment as Environment },
    secretHash: r.secretHash,
  };
}

export async function listClientCredentials(db: Db, tenant: Tenant, f: PageParams & { subscriptionId?: string }): Promise<Page<ClientCredential>> {
  let q = db.selectFrom('clientCredentials').selectAll().$call(forTenant(tenant));
  if (f.subscriptionId !== undefined) q = q.where('subscriptionId', '=', f.subscriptionId);
  const { items, hasMore } = await pageById(q, 'clientCredentials', f);
  return { items: items.map(toClientCredential), hasMore };
}

export async function revokeClientCredentialRow(db: Db, tenant: Tenant, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('clientCredentials')
    .set({ status: 'REVOKED', revokedAt: now, updatedAt: now })
    .$call(forTenant(tenant))
    .where('id', '=', id)
    .where('status', '!=', 'REVOKED')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function revokeClientCredentialsForSubscription(db: Db, tenant: Tenant, subscriptionId: string, now: number): Promise<string[]> {
  const rows = await db
    .updateTable('clientCredentials')
    .set({ status: 'REVOKED', revokedAt: now, updatedAt: now })
    .$call(forTenant(tenant))
    .where('subscriptionId', '=', subscriptionId)
    .where('status', '!=', 'REVOKED')
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function insertAccessToken(
  db: Db,
  tenant: Tenant,
  t: { tokenHash: string; clientCredentialId: string; expiresAt: number; createdAt: number },
): Promise<void> {
  await db
    .insertInto('accessTokens')
    .values({ ...t, workspaceId: tenant.workspaceId, environment: tenant.environment })
    .execute();
}

/** Expired tokens are useless; the prune job removes them. */
export async function deleteExpiredAccessTokens(db: Db, now: number): Promise<number> {
  const r = await db.deleteFrom('accessTokens').where('expiresAt', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/**
 * The hot-path lookup (behind the credential cache): an access token by the SHA-256 of its
 * secret, answering with its client credential's status, so revoking the credential revokes it.
 */
export const findAccessTokenCredential: FindCredentialByHash = async (db, hash, rateLimitOf) => {
  const row = await db
    .selectFrom('accessTokens as t')
    .innerJoin('clientCredentials as c', 'c.id', 't.clientCredentialId')
    .select((eb) => [
      'c.id',
      't.workspaceId',
      't.environment',
      'c.status',
      't.expiresAt',
      'c.customerId',
      'c.subscriptionId',
      'c.productId',
      rateLimitOf(db, eb.ref('t.workspaceId')).as('rateLimitPerMinute'),
    ])
    .where('t.tokenHash', '=', hash)
    .executeTakeFirst();
  return row ? { ...row, environment: row.environment as Environment, type: 'access_token' } : null;
};
