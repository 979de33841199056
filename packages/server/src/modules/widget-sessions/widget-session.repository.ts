import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { Environment } from '../../lib/crypto.js';
import type { Tenant } from '../../lib/tenant.js';
import type { WidgetSessionTable } from '../../db/tables/widget-session.table.js';
import type { FindCredentialByHash } from '../credentials/credential-lookup.js';
import type { WidgetSession } from './widget-session.js';

function toWidgetSession(r: Selectable<WidgetSessionTable>): WidgetSession {
  return {
    id: r.id,
    environment: r.environment as Environment,
    subscriptionId: r.subscriptionId,
    customerId: r.customerId,
    allowedOrigins: JSON.parse(r.allowedOrigins) as string[],
    expiresAt: r.expiresAt,
    revokedAt: r.revokedAt,
    createdAt: r.createdAt,
  };
}

export async function insertWidgetSession(db: Db, tenant: Tenant, s: WidgetSession, tokenHash: string): Promise<void> {
  await db
    .insertInto('widgetSessions')
    .values({
      id: s.id,
      workspaceId: tenant.workspaceId,
      environment: tenant.environment,
      subscriptionId: s.subscriptionId,
      customerId: s.customerId,
      tokenHash,
      allowedOrigins: JSON.stringify(s.allowedOrigins),
      expiresAt: s.expiresAt,
      revokedAt: s.revokedAt,
      createdAt: s.createdAt,
    })
    .execute();
}

export async function findWidgetSession(db: Db, tenant: Tenant, id: string): Promise<WidgetSession | null> {
  const r = await db.selectFrom('widgetSessions').selectAll().$call(forTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return r ? toWidgetSession(r) : null;
}

/** Marks the session revoked unless it already is; true when this call did. */
export async function revokeWidgetSessionRow(db: Db, tenant: Tenant, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('widgetSessions')
    .set({ revokedAt: now })
    .$call(forTenant(tenant))
    .where('id', '=', id)
    .where('revokedAt', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * The hot-path lookup (behind the credential cache): a session by the SHA-256 of its token,
 * whatever its state. The subscription's status is not read: a session whose subscription was
 * cancelled still authenticates, so the widget can show the outcome. (The alias is not `w`:
 * tenancy's rate-limit subquery names workspaces so.)
 */
export const findWidgetSessionCredential: FindCredentialByHash = async (db, hash, rateLimitOf) => {
  const row = await db
    .selectFrom('widgetSessions as wses')
    .select((eb) => [
      'wses.id',
      'wses.workspaceId',
      'wses.environment',
      'wses.subscriptionId',
      'wses.customerId',
      'wses.allowedOrigins',
      'wses.expiresAt',
      'wses.revokedAt',
      rateLimitOf(db, eb.ref('wses.workspaceId')).as('rateLimitPerMinute'),
    ])
    .where('wses.tokenHash', '=', hash)
    .executeTakeFirst();
  if (!row) return null;
  const { allowedOrigins, revokedAt, ...rest } = row;
  return {
    ...rest,
    environment: row.environment as Environment,
    status: revokedAt === null ? 'ACTIVE' : 'REVOKED',
    allowedOrigins: JSON.parse(allowedOrigins) as string[],
    type: 'widget_session',
  };
};
