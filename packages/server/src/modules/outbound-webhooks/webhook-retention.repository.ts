import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { transaction } from '../../db/transaction.js';
import { idFloor } from '../../lib/ids.js';

/**
 * The delivery log's retention (OUTBOUND_WEBHOOK_LOG_RETENTION_DAYS), for the pruning job: across
 * tenants, in bounded batches. Message and attempt ids are time-ordered, so "older than" is a
 * range of the primary key. Each batch is one transaction, and what a replay made pending again
 * meanwhile is left alone.
 */

/** Messages older than `cutoff` whose deliveries are all final, with their deliveries and attempts. Returns how many messages. */
export async function deleteFinalMessagesBefore(db: Db, cutoff: number, batch: number): Promise<number> {
  return transaction(db, async (trx) => {
    const old = await trx
      .selectFrom('webhookMessages as m')
      .select('m.id')
      .where('m.id', '<', idFloor('webhookMessage', cutoff))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('webhookDeliveries as d')
              .select(sql.lit(1).as('one'))
              .whereRef('d.messageId', '=', 'm.id')
              .where('d.status', '=', sql.lit('pending')),
          ),
        ),
      )
      .orderBy('m.id')
      .limit(batch)
      .execute();
    if (old.length === 0) return 0;
    const ids = old.map((m) => m.id);
    await trx.deleteFrom('webhookDeliveries').where('messageId', 'in', ids).where('status', '!=', sql.lit('pending')).execute();
    const gone = await trx
      .deleteFrom('webhookMessages')
      .where('webhookMessages.id', 'in', ids)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('webhookDeliveries as d').select(sql.lit(1).as('one')).whereRef('d.messageId', '=', 'webhookMessages.id'))))
      .returning(['id', 'workspaceId', 'environment'])
      .execute();
    // By tenant: the attempts' index leads with it.
    const byTenant = new Map<string, { workspaceId: string; environment: string; ids: string[] }>();
    for (const m of gone) {
      const key = `${m.workspaceId}:${m.environment}`;
      let group = byTenant.get(key);
      if (!group) byTenant.set(key, (group = { workspaceId: m.workspaceId, environment: m.environment, ids: [] }));
      group.ids.push(m.id);
    }
    for (const g of byTenant.values()) {
      await trx
        .deleteFrom('webhookAttempts')
        .where('workspaceId', '=', g.workspaceId)
        .where('environment', '=', g.environment)
        .where('messageId', 'in', g.ids)
        .execute();
    }
    return gone.length;
  });
}

/** Attempts older than `cutoff`, whatever their message (a message replayed for months keeps only its recent log). */
export async function deleteAttemptsBefore(db: Db, cutoff: number, batch: number): Promise<number> {
  const old = await db.selectFrom('webhookAttempts').select('id').where('id', '<', idFloor('webhookAttempt', cutoff)).orderBy('id').limit(batch).execute();
  if (old.length === 0) return 0;
  const r = await db
    .deleteFrom('webhookAttempts')
    .where(
      'id',
      'in',
      old.map((a) => a.id),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
