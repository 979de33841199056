import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import type { OperatorInvitationTable, OperatorUserTable } from '../../db/tables/operator.table.js';
import type { OperatorRole } from '../../lib/principal.js';
import type { FindCredentialByHash } from '../credentials/credential-lookup.js';
import type { Operator, OperatorInvitation } from './operator.js';

/*
 * Operators belong to a workspace, not to an environment (one person works in test and live), so
 * these tables carry only workspace_id, and every query here filters by it, except the lookups
 * by e-mail (sign-in, which finds the workspace) and by a secret's hash (a presented cookie or
 * invitation link), which is how a presented secret is found at all.
 */

function toOperator(r: Selectable<OperatorUserTable>): Operator {
  return { id: r.id, workspaceId: r.workspaceId, email: r.email, name: r.name, role: r.role as OperatorRole, createdAt: r.createdAt, removedAt: r.removedAt };
}

function toInvitation(r: Selectable<OperatorInvitationTable>): OperatorInvitation {
  return {
    id: r.id,
    workspaceId: r.workspaceId,
    email: r.email,
    role: r.role as OperatorRole,
    invitedBy: r.invitedBy,
    expiresAt: r.expiresAt,
    acceptedAt: r.acceptedAt,
    revokedAt: r.revokedAt,
    createdAt: r.createdAt,
  };
}

export async function insertOperator(db: Db, o: Operator, passwordHash: string): Promise<void> {
  await db
    .insertInto('operatorUsers')
    .values({ ...o, passwordHash })
    .execute();
}

/** Current (not removed) accounts with this e-mail, in every workspace, with their password hashes: for sign-in only. */
export async function findOperatorsForSignIn(db: Db, email: string): Promise<Array<Operator & { passwordHash: string }>> {
  const rows = await db.selectFrom('operatorUsers').selectAll().where('email', '=', email).where('removedAt', 'is', null).limit(20).execute();
  return rows.map((r) => ({ ...toOperator(r), passwordHash: r.passwordHash }));
}

export async function findOperator(db: Db, workspaceId: string, id: string): Promise<Operator | null> {
  const r = await db.selectFrom('operatorUsers').selectAll().where('workspaceId', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  return r ? toOperator(r) : null;
}

/** The current (not removed) account with this e-mail in the workspace. */
export async function findOperatorByEmail(db: Db, workspaceId: string, email: string): Promise<Operator | null> {
  const r = await db
    .selectFrom('operatorUsers')
    .selectAll()
    .where('workspaceId', '=', workspaceId)
    .where('email', '=', email)
    .where('removedAt', 'is', null)
    .executeTakeFirst();
  return r ? toOperator(r) : null;
}

export async function listOperators(db: Db, workspaceId: string, page: PageParams): Promise<Page<Operator>> {
  const qb = db.selectFrom('operatorUsers').selectAll().where('workspaceId', '=', workspaceId).where('removedAt', 'is', null);
  const p = await pageById(qb, 'operatorUsers', page);
  return { items: p.items.map(toOperator), hasMore: p.hasMore };
}

export async function countAdmins(db: Db, workspaceId: string): Promise<number> {
  const r = await db
    .selectFrom('operatorUsers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspaceId', '=', workspaceId)
    .where('role', '=', 'admin')
    .where('removedAt', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Marks the account removed unless it already is; true when this call did. */
export async function removeOperatorRow(db: Db, workspaceId: string, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('operatorUsers')
    .set({ removedAt: now })
    .where('workspaceId', '=', workspaceId)
    .where('id', '=', id)
    .where('removedAt', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function insertOperatorSession(
  db: Db,
  s: { id: string; workspaceId: string; operatorId: string; tokenHash: string; ip: string; expiresAt: number; createdAt: number },
): Promise<void> {
  await db
    .insertInto('operatorSessions')
    .values({ ...s, revokedAt: null })
    .execute();
}

/** Ends one session (sign-out); true when this call did. */
export async function revokeOperatorSessionRow(db: Db, workspaceId: string, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('operatorSessions')
    .set({ revokedAt: now })
    .where('workspaceId', '=', workspaceId)
    .where('id', '=', id)
    .where('revokedAt', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Ends every open session of an operator (the account was removed); how many it ended. */
export async function revokeSessionsOfOperator(db: Db, workspaceId: string, operatorId: string, now: number): Promise<number> {
  const r = await db
    .updateTable('operatorSessions')
    .set({ revokedAt: now })
    .where('workspaceId', '=', workspaceId)
    .where('operatorId', '=', operatorId)
    .where('revokedAt', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * The hot-path lookup (behind the credential cache): a console session by its cookie's SHA-256,
 * with its operator's role and e-mail. A removed operator's session reads as revoked.
 */
export const findOperatorSessionCredential: FindCredentialByHash = async (db, hash, rateLimitOf) => {
  const row = await db
    .selectFrom('operatorSessions as opses')
    .innerJoin('operatorUsers as opu', (j) => j.onRef('opu.id', '=', 'opses.operatorId').onRef('opu.workspaceId', '=', 'opses.workspaceId'))
    .select((eb) => [
      'opses.id',
      'opses.workspaceId',
      'opses.operatorId',
      'opses.expiresAt',
      'opses.revokedAt',
      'opu.email',
      'opu.role',
      'opu.removedAt',
      rateLimitOf(db, eb.ref('opses.workspaceId')).as('rateLimitPerMinute'),
    ])
    .where('opses.tokenHash', '=', hash)
    .executeTakeFirst();
  if (!row) return null;
  return {
    type: 'operator_session',
    id: row.id,
    workspaceId: row.workspaceId,
    environment: 'test',
    status: row.revokedAt === null && row.removedAt === null ? 'ACTIVE' : 'REVOKED',
    expiresAt: row.expiresAt,
    rateLimitPerMinute: row.rateLimitPerMinute,
    operatorId: row.operatorId,
    email: row.email,
    role: row.role as OperatorRole,
  };
};

export async function insertInvitation(db: Db, i: OperatorInvitation, tokenHash: string): Promise<void> {
  await db
    .insertInto('operatorInvitations')
    .values({ ...i, tokenHash })
    .execute();
}

/** An invitation by its link token's SHA-256, whatever its state (the caller decides). */
export async function findInvitationByTokenHash(db: Db, tokenHash: string): Promise<OperatorInvitation | null> {
  const r = await db.selectFrom('operatorInvitations').selectAll().where('tokenHash', '=', tokenHash).executeTakeFirst();
  return r ? toInvitation(r) : null;
}

/** Uses the invitation once: true only for the one call that marked it accepted. */
export async function markInvitationAccepted(db: Db, workspaceId: string, id: string, now: number): Promise<boolean> {
  const r = await db
    .updateTable('operatorInvitations')
    .set({ acceptedAt: now })
    .where('workspaceId', '=', workspaceId)
    .where('id', '=', id)
    .where('acceptedAt', 'is', null)
    .where('revokedAt', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
