import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { Environment } from '../../lib/crypto.js';
import type { Tenant } from '../../lib/tenant.js';
import type { HubSessionTable } from '../../db/tables/hub-session.table.js';
import type { FindCredentialByHash } from '../credentials/credential-lookup.js';
import type { HubSession, HubTheme } from './hub-session.js';

function toHubSession(r: Selectable<HubSessionTable>): HubSession {
  return {
    id: r.id,
    environment: r.environment as Environment,
    customerId: r.customerId,
    returnUrl: r.returnUrl,
    theme: JSON.parse(r.theme) as HubTheme,
    linkUsedAt: r.linkUsedAt,
    expiresAt: r.expiresAt,
    revokedAt: r.revokedAt,
    createdAt: r.createdAt,
  };
}

export async function insertHubSession(db: Db, tenant: Tenant, s: HubSession, linkTokenHash: string): Promise<void> {
  await db
    .insertInto('hubSessions')
    .values({
      id: s.id,
      workspaceId: tenant.workspaceId,
      environment: tenant.environment,
      customerId: s.customerId,
      linkTokenHash,
      linkUsedAt: null,
      tokenHash: null,
      csrfHash: null,
      returnUrl: s.returnUrl,
      theme: JSON.stringify(s.theme),
      expiresAt: s.expiresAt,
      revokedAt: s.revokedAt,
      createdAt: s.createdAt,
    })
    .execute();
}

export async function findHubSession(db: Db, tenant: Tenant, id: string): Promise<HubSession | null> {
  const r = await db.selectFrom('hubSessions').selectAll().$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return r ? toHubSession(r) : null;
}

/** Marks the session revoked unless it already is; true when this call did. */
export async function revokeHubSessionRow(db: Db, tenant: Tenant, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('hubSessions')
    .set({ revokedAt: now })
    .$call(forTenant(tenant))
    .where('id', '=', id)
    .where('revokedAt', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Uses a link: one conditional update sets the session's secrets on an unused, unrevoked,
 * unexpired link of the environment its prefix names, so that of two browsers opening one link
 * at once exactly one gets a session. Null when the link is unknown, used, revoked or expired
 * (the caller cannot tell which, and neither can whoever holds a stolen link).
 */
export async function useHubLink(
  db: Db,
  link: { hash: string; environment: Environment },
  secrets: { tokenHash: string; csrfHash: string },
  now: number,
): Promise<{ tenant: Tenant; session: HubSession } | null> {
  const r = await db
    .updateTable('hubSessions')
    .set({ linkUsedAt: now, tokenHash: secrets.tokenHash, csrfHash: secrets.csrfHash })
    .where('linkTokenHash', '=', link.hash)
    .where('environment', '=', link.environment)
    .where('linkUsedAt', 'is', null)
    .where('revokedAt', 'is', null)
    .where('expiresAt', '>', now)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) return null;
  const row = await db.selectFrom('hubSessions').selectAll().where('linkTokenHash', '=', link.hash).executeTakeFirstOrThrow();
  return { tenant: { workspaceId: row.workspaceId, environment: row.environment as Environment }, session: toHubSession(row) };
}

/**
 * The hot-path lookup (behind the credential cache): an opened session by the SHA-256 of its
 * cookie secret, whatever its state. (The alias is not `w`: tenancy's rate-limit subquery names
 * workspaces so.)
 */
export const findHubSessionCredential: FindCredentialByHash = async (db, hash, rateLimitOf) => {
  const row = await db
    .selectFrom('hubSessions as hses')
    .select((eb) => [
      'hses.id',
      'hses.workspaceId',
      'hses.environment',
      'hses.customerId',
      'hses.csrfHash',
      'hses.expiresAt',
      'hses.revokedAt',
      rateLimitOf(db, eb.ref('hses.workspaceId')).as('rateLimitPerMinute'),
    ])
    .where('hses.tokenHash', '=', hash)
    .executeTakeFirst();
  if (!row || row.csrfHash === null) return null;
  const { revokedAt, csrfHash, ...rest } = row;
  return {
    ...rest,
    environment: row.environment as Environment,
    status: revokedAt === null ? 'ACTIVE' : 'REVOKED',
    csrfHash,
    type: 'hub_session',
  };
};
