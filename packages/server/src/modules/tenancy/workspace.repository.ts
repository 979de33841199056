import type { AliasableExpression, Expression } from 'kysely';
import type { Db } from '../../db/database.js';
import type { WorkspaceTable } from '../../db/tables/workspace.table.js';

export type Workspace = WorkspaceTable;

export async function insertWorkspace(db: Db, w: Workspace): Promise<void> {
  await db.insertInto('workspaces').values(w).execute();
}

export async function findWorkspace(db: Db, id: string): Promise<Workspace | null> {
  return (await db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function countWorkspaces(db: Db): Promise<number> {
  const r = await db
    .selectFrom('workspaces')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function setWorkspaceRateLimit(db: Db, id: string, perMinute: number | null, now: number): Promise<boolean> {
  const r = await db.updateTable('workspaces').set({ rateLimitPerMinute: perMinute, updatedAt: now }).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * The workspace's own rate limit as a scalar subquery, for a credential lookup to select within
 * its one query (modules/credentials/credential-lookup.ts).
 */
export function workspaceRateLimitOf(db: Db, workspaceId: Expression<string>): AliasableExpression<number | null> {
  return db.selectFrom('workspaces as w').select('w.rateLimitPerMinute').where('w.id', '=', workspaceId).$asScalar();
}

/** The workspace's own requests-per-minute limit; null: the default, or no such workspace. */
export async function findWorkspaceRateLimit(db: Db, id: string): Promise<number | null> {
  const w = await db.selectFrom('workspaces').select('rateLimitPerMinute').where('id', '=', id).executeTakeFirst();
  return w?.rateLimitPerMinute ?? null;
}
