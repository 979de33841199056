import { sql } from 'kysely';
import type { Db, DialectName } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { Tenant } from '../../lib/tenant.js';
import { paddedRows, runStatement, statementText } from '../../db/statement-text.js';

/**
 * webhook_lanes: which node sends for an endpoint. A node owns a lane while `lease_until` is
 * ahead and renews it while it works; another node takes it over only once the lease has
 * expired, and every claim bumps `generation`, so a renewal or release by a node that lost the
 * lane matches no row and it learns it has lost it. Attempt results are fenced separately, by the
 * delivery's attempt count (webhook-sender.repository.ts).
 */

export interface OwnedLane {
  endpointId: string;
  generation: number;
}

/**
 * Claims the lane of an endpoint for `owner` when it is free, its lease expired, or `owner` holds
 * it already; returns its new generation, or null when another node holds it.
 */
export async function claimLane(db: Db, tenant: Tenant, endpointId: string, owner: string, now: number, leaseMs: number): Promise<number | null> {
  const row = await db
    .insertInto('webhookLanes')
    .values({ endpointId, workspaceId: tenant.workspaceId, environment: tenant.environment, owner, leaseUntil: now + leaseMs, generation: 1 })
    .onConflict((oc) =>
      oc
        .column('endpointId')
        .doUpdateSet({
          owner,
          leaseUntil: now + leaseMs,
          generation: sql<number>`webhook_lanes.generation + 1`,
        })
        .where((eb) => eb.or([eb('webhookLanes.owner', 'is', null), eb('webhookLanes.leaseUntil', '<', now), eb('webhookLanes.owner', '=', owner)])),
    )
    .returning('generation')
    .executeTakeFirst();
  return row ? Number(row.generation) : null;
}

/** Extends the lease of a lane this node still owns at this generation; false when it has lost it. */
export async function renewLane(db: Db, tenant: Tenant, lane: OwnedLane, owner: string, now: number, leaseMs: number): Promise<boolean> {
  const r = await db
    .updateTable('webhookLanes')
    .set({ leaseUntil: now + leaseMs })
    .$call(forTenant(tenant))
    .where('endpointId', '=', lane.endpointId)
    .where('owner', '=', owner)
    .where('generation', '=', lane.generation)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * renewLane for every lane of a pass in one statement; returns the endpoint ids of those still
 * held (a lane missing from it was lost). Its text is made once per padded lane count (the last
 * lane repeated: an OR of the same group twice is the same condition), not built every pass.
 */
export async function renewLanes(
  db: Db,
  dialect: DialectName,
  lanes: ReadonlyArray<OwnedLane & Tenant>,
  owner: string,
  now: number,
  leaseMs: number,
): Promise<Set<string>> {
  if (lanes.length === 0) return new Set();
  const groups = paddedRows(dialect, lanes.length);
  const text = statementText(
    `renew-lanes ${groups}`,
    () =>
      `update webhook_lanes set lease_until = ? where (${Array.from({ length: groups }, () => '(workspace_id = ? and environment = ? and endpoint_id = ? and generation = ?)').join(' or ')}) and owner = ? returning endpoint_id`,
  );
  const params: unknown[] = [now + leaseMs];
  for (let i = 0; i < groups; i++) {
    const l = lanes[Math.min(i, lanes.length - 1)]!;
    params.push(l.workspaceId, l.environment, l.endpointId, l.generation);
  }
  params.push(owner);
  const rows = await runStatement<{ endpointId: string }>(db, text, params);
  return new Set(rows.map((r) => r.endpointId));
}

/** Gives a lane up (idle, disabled endpoint, closing): any node may claim it at once. */
export async function releaseLane(db: Db, tenant: Tenant, lane: OwnedLane, owner: string, now: number): Promise<void> {
  await db
    .updateTable('webhookLanes')
    .set({ owner: null, leaseUntil: now })
    .$call(forTenant(tenant))
    .where('endpointId', '=', lane.endpointId)
    .where('owner', '=', owner)
    .where('generation', '=', lane.generation)
    .execute();
}

/** Lanes of endpoints deleted (or gone), unless a node holds one: for the pruning job. Bounded. */
export async function deleteLanesOfDeletedEndpoints(db: Db, now: number, limit: number): Promise<number> {
  const stale = await db
    .selectFrom('webhookLanes as l')
    .select(['l.endpointId', 'l.workspaceId', 'l.environment'])
    .where((eb) => eb.or([eb('l.owner', 'is', null), eb('l.leaseUntil', '<', now)]))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('webhookEndpoints as e')
            .select(sql.lit(1).as('one'))
            .whereRef('e.workspaceId', '=', 'l.workspaceId')
            .whereRef('e.environment', '=', 'l.environment')
            .whereRef('e.id', '=', 'l.endpointId')
            .where('e.deletedAt', 'is', null),
        ),
      ),
    )
    .limit(limit)
    .execute();
  if (stale.length === 0) return 0;
  const r = await db
    .deleteFrom('webhookLanes')
    .where(
      'endpointId',
      'in',
      stale.map((s) => s.endpointId),
    )
    .where((eb) => eb.or([eb('owner', 'is', null), eb('leaseUntil', '<', now)]))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
