import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { RetentionOfferAcceptanceTable } from '../../db/tables/retention-offer-acceptance.table.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { Tenant } from '../../lib/tenant.js';
import type { AcceptanceChannel, CancelReason, RetentionOffer, RetentionOfferAcceptance } from './retention-offer.js';

function toAcceptance(r: Selectable<RetentionOfferAcceptanceTable>): RetentionOfferAcceptance {
  return {
    id: r.id,
    subscriptionId: r.subscriptionId,
    reason: r.reason as CancelReason,
    offer: JSON.parse(r.offer) as RetentionOffer,
    channel: r.channel as AcceptanceChannel,
    acceptedAt: Number(r.acceptedAt),
    createdAt: Number(r.createdAt),
  };
}

export async function findAcceptance(db: Db, tenant: Tenant, subscriptionId: string, reason: CancelReason): Promise<RetentionOfferAcceptance | null> {
  const r = await db
    .selectFrom('retentionOfferAcceptances')
    .selectAll()
    .$call(forTenant(tenant))
    .where('subscriptionId', '=', subscriptionId)
    .where('reason', '=', reason)
    .executeTakeFirst();
  return r ? toAcceptance(r) : null;
}

/**
 * Records an acceptance unless one exists for its subscription and reason (the unique index):
 * true when this one was written. A concurrent second accept waits for the first's commit, then
 * writes nothing.
 */
export async function insertAcceptance(db: Db, tenant: Tenant, a: RetentionOfferAcceptance): Promise<boolean> {
  const r = await db
    .insertInto('retentionOfferAcceptances')
    .values({
      id: a.id,
      workspaceId: tenant.workspaceId,
      environment: tenant.environment,
      subscriptionId: a.subscriptionId,
      reason: a.reason,
      offerType: a.offer.type,
      offer: JSON.stringify(a.offer),
      channel: a.channel,
      acceptedAt: a.acceptedAt,
      createdAt: a.createdAt,
    })
    .onConflict((oc) => oc.columns(['workspaceId', 'environment', 'subscriptionId', 'reason']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
}
