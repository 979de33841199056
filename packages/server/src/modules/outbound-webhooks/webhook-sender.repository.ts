import { sql, type Insertable, type UpdateQueryBuilder, type UpdateResult } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { WebhookAttemptTable } from '../../db/tables/outbound-webhook.table.js';
import type { Environment } from '../../lib/crypto.js';
import type { Tenant } from '../../lib/tenant.js';
import type { DisabledReason } from './endpoint-health.js';
import type { DeliveryStatus } from './webhook-message.js';

/**
 * The sender's queries (webhook-sender.ts). `status = 'pending'` is written as a literal, not a
 * parameter, so both databases match the partial indexes of migration 0016
 * (webhook_deliveries_due, webhook_deliveries_order) whatever plan they choose.
 */
const PENDING = sql.lit('pending');

// Rows per statement: well under SQLite's 32,766 and PostgreSQL's 65,535 parameters.
const CHUNK = 500;

// Typed parameters for a VALUES list: PostgreSQL infers a VALUES column's type from its first row.
const big = (v: number | null) => sql`cast(${v} as bigint)`;
const int = (v: number | null) => sql`cast(${v} as integer)`;
const text = (v: string | null) => sql`cast(${v} as text)`;

export interface DueEndpoint extends Tenant {
  endpointId: string;
}

/**
 * Endpoints with a delivery due now whose lane no other node holds: the only query of the sender
 * across tenants (it finds the tenants). Reads the pending deliveries alone (partial index).
 */
export async function findDueEndpoints(db: Db, owner: string, now: number, limit: number): Promise<DueEndpoint[]> {
  // Grouped by the endpoint alone, which leads the partial index (an endpoint has one tenant);
  // the lanes are looked at once per endpoint, after the grouping.
  const due = db
    .selectFrom('webhookDeliveries')
    .select((eb) => [
      'endpointId',
      eb.fn.min('workspaceId').as('workspaceId'),
      eb.fn.min('environment').as('environment'),
      eb.fn.min('nextAttemptAt').as('firstDue'),
    ])
    .where('status', '=', PENDING)
    .where('nextAttemptAt', '<=', now)
    .groupBy('endpointId')
    .as('g');
  const rows = await db
    .selectFrom(due)
    .select(['g.endpointId', 'g.workspaceId', 'g.environment'])
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('webhookLanes as l')
            .select(sql.lit(1).as('one'))
            .whereRef('l.endpointId', '=', 'g.endpointId')
            .where('l.owner', 'is not', null)
            .where('l.owner', '!=', owner)
            .where('l.leaseUntil', '>=', now),
        ),
      ),
    )
    .orderBy('g.firstDue')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ endpointId: r.endpointId, workspaceId: r.workspaceId, environment: r.environment as Environment }));
}

/** A delivery as claimed for one attempt: `attempts` already counts it (the fence of its result write). */
export interface ClaimedDelivery {
  messageId: string;
  eventType: string;
  attempts: number;
  scheduleStep: number;
  lastAttemptAt: number | null;
  lastError: string | null;
  /** Why the replay or test route made it due (migration 0017); null: the schedule. */
  nextAttemptTrigger: string | null;
  /** The message's exact bytes, sent and signed. */
  body: string;
  /** The message's source: event | test. */
  source: 'event' | 'test';
  /** When the delivery became due, as the claim read it (tollgate_outbound_webhook_queue_age_seconds). */
  dueAt: number;
}

/** What a pass claims for one lane: its endpoint, and how many deliveries at most. */
export interface LaneClaim extends Tenant {
  endpointId: string;
  limit: number;
}

/** Lanes per claim statement (a compound SELECT of one arm each; SQLite allows 500 arms). */
const LANES_PER_CLAIM = 64;

/**
 * Claims, for each lane, up to its `limit` deliveries of its endpoint for an attempt each: due,
 * pending, and, for an ordered one, the earliest pending of its ordering key to this endpoint (a
 * later message waits while an earlier one is pending, in flight or waiting for a retry). Each
 * claimed row counts the attempt and is due again only at `inFlightUntil`, the time another node
 * may take it over if this one never writes a result. Run inside the transaction that renews the
 * lanes. Returns each endpoint's claims in due order, with their bodies.
 *
 * Two statements for every lane of a pass, not two per lane: a SELECT of one arm per lane (each
 * with its own order and LIMIT, on the due index) joined to the bodies, and one UPDATE of every
 * row read. One per lane was most of a pass's round trips on PostgreSQL.
 */
export async function claimDueDeliveries(db: Db, lanes: readonly LaneClaim[], now: number, inFlightUntil: number): Promise<Map<string, ClaimedDelivery[]>> {
  const out = new Map<string, ClaimedDelivery[]>();
  const wanted = lanes.filter((l) => l.limit > 0);
  for (let i = 0; i < wanted.length; i += LANES_PER_CLAIM) {
    for (const [endpointId, claimed] of await claimChunk(db, wanted.slice(i, i + LANES_PER_CLAIM), now, inFlightUntil)) out.set(endpointId, claimed);
  }
  return out;
}

/** One lane's arm of the claim's read: its due, sendable deliveries in order, with their bodies. */
function sendableOf(db: Db, lane: LaneClaim, now: number) {
  return db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookMessages as m', (j) =>
      j.onRef('m.workspaceId', '=', 'd.workspaceId').onRef('m.environment', '=', 'd.environment').onRef('m.id', '=', 'd.messageId'),
    )
    .select(['d.endpointId', 'd.messageId', 'm.body', 'm.source', 'd.nextAttemptAt'])
    .where('d.workspaceId', '=', lane.workspaceId)
    .where('d.environment', '=', lane.environment)
    .where('d.endpointId', '=', lane.endpointId)
    .where('d.status', '=', PENDING)
    .where('d.nextAttemptAt', '<=', now)
    .where((eb) =>
      eb.or([
        eb('d.orderingKey', 'is', null),
        eb.not(
          eb.exists(
            eb
              .selectFrom('webhookDeliveries as e')
              .select(sql.lit(1).as('one'))
              .whereRef('e.endpointId', '=', 'd.endpointId')
              .whereRef('e.orderingKey', '=', 'd.orderingKey')
              .where('e.status', '=', PENDING)
              .whereRef('e.messageSeq', '<', 'd.messageSeq')
              .whereRef('e.workspaceId', '=', 'd.workspaceId')
              .whereRef('e.environment', '=', 'd.environment'),
          ),
        ),
      ]),
    )
    .orderBy('d.nextAttemptAt')
    .orderBy('d.messageSeq')
    .limit(lane.limit);
}

async function claimChunk(db: Db, lanes: readonly LaneClaim[], now: number, inFlightUntil: number): Promise<Map<string, ClaimedDelivery[]>> {
  // Each arm in its own subquery: a compound SELECT takes ORDER BY and LIMIT only on the whole.
  const arm = (l: LaneClaim) => db.selectFrom(sendableOf(db, l, now).as('s')).selectAll('s');
  const sendable = await lanes
    .slice(1)
    .reduce((q, l) => q.unionAll(arm(l)), arm(lanes[0]!))
    .execute();
  const out = new Map<string, ClaimedDelivery[]>();
  if (sendable.length === 0) return out;
  const laneOf = new Map(lanes.map((l) => [l.endpointId, l]));
  // The same conditions again: a row failed (endpoint disabled) or claimed since the read is not
  // taken. Joined to a VALUES list of the whole keys read (as completeClaimedDeliveries does): an
  // OR of one group per lane let PostgreSQL factor out the tenant and read its every pending row.
  // `+next_attempt_at` keeps SQLite on the key: on the column itself it chose the due index and
  // read every due row of the endpoint to update a few (2 ms a claim in a backlog).
  const keys = sql.join(
    sendable.map((r) => {
      const lane = laneOf.get(r.endpointId)!;
      return sql`(${text(lane.workspaceId)}, ${text(lane.environment)}, ${text(r.messageId)}, ${text(r.endpointId)})`;
    }),
  );
  const { rows } = await sql<Omit<ClaimedDelivery, 'body' | 'source'> & { endpointId: string }>`
    update webhook_deliveries as d
    set attempts = d.attempts + 1, next_attempt_at = ${big(inFlightUntil)}, updated_at = ${big(now)}
    from (values ${keys}) as v
    where d.workspace_id = v.column1 and d.environment = v.column2
      and d.message_id = v.column3 and d.endpoint_id = v.column4
      and d.status = ${PENDING} and +d.next_attempt_at <= ${big(now)}
    returning endpoint_id, message_id, event_type, attempts, schedule_step, last_attempt_at, last_error, next_attempt_trigger`.execute(db);
  const n = (v: number | null) => (v === null ? null : Number(v));
  const claimed = new Map(rows.map((r) => [`${r.endpointId} ${r.messageId}`, r]));
  // In the read's order (due, then message order): the UPDATE's RETURNING has none.
  for (const m of sendable) {
    const r = claimed.get(`${m.endpointId} ${m.messageId}`);
    if (!r) continue;
    const list = out.get(m.endpointId) ?? [];
    if (list.length === 0) out.set(m.endpointId, list);
    list.push({
      messageId: r.messageId,
      body: m.body,
      source: m.source === 'test' ? 'test' : 'event',
      dueAt: Number(m.nextAttemptAt),
      eventType: r.eventType,
      attempts: Number(r.attempts),
      scheduleStep: Number(r.scheduleStep),
      lastAttemptAt: n(r.lastAttemptAt),
      lastError: r.lastError,
      nextAttemptTrigger: r.nextAttemptTrigger ?? null,
    });
  }
  return out;
}

export interface ClaimKey {
  messageId: string;
  endpointId: string;
  /** The attempt count written by the claim: the row is left alone when it has moved on since. */
  claimedAttempts: number;
}

/** The fence of every write after a claim: the delivery, still pending, still at the claim's attempt count. */
function asClaimed(tenant: Tenant, key: ClaimKey) {
  return (qb: UpdateQueryBuilder<Database, 'webhookDeliveries', 'webhookDeliveries', UpdateResult>) =>
    qb
      .$call(forTenant(tenant))
      .where('messageId', '=', key.messageId)
      .where('endpointId', '=', key.endpointId)
      .where('status', '=', PENDING)
      .where('attempts', '=', key.claimedAttempts);
}

export interface DeliveryResult extends ClaimKey {
  status: DeliveryStatus;
  scheduleStep: number;
  nextAttemptAt: number | null;
  lastAttemptAt: number;
  lastResponseStatus: number | null;
  lastError: string | null;
}

/** A result and the tenant of its delivery. */
export interface TenantDeliveryResult extends DeliveryResult {
  tenant: Tenant;
}

/** The key of a delivery in the set completeClaimedDeliveries returns. */
export const deliveryKey = (k: { messageId: string; endpointId: string }) => `${k.messageId} ${k.endpointId}`;

/**
 * Writes attempts' results to their deliveries, each only if its delivery is still pending with
 * the attempt count of the claim: a node that lost its lane (its attempt retaken by another), or
 * a delivery failed meanwhile (its endpoint disabled or deleted), changes nothing. Returns the
 * deliveryKey of each row written.
 *
 * One UPDATE … FROM a VALUES list per CHUNK results (both SQLite and PostgreSQL take it), not
 * one statement per result: a pass writes every result that arrived during the previous one, and
 * a statement each was most of the sender's time on SQLite (bench/outbound-webhooks.ts).
 */
export async function completeClaimedDeliveries(db: Db, results: readonly TenantDeliveryResult[], now: number): Promise<Set<string>> {
  const applied = new Set<string>();
  for (let i = 0; i < results.length; i += CHUNK) {
    // A VALUES list names its columns column1, column2, … in both dialects; PostgreSQL plans it
    // as one node (a UNION ALL of one SELECT per row took it 20 ms to plan at 100 rows).
    const rows = sql.join(
      results
        .slice(i, i + CHUNK)
        .map(
          (r) =>
            sql`(${text(r.tenant.workspaceId)}, ${text(r.tenant.environment)}, ${text(r.messageId)}, ${text(r.endpointId)}, ${int(r.claimedAttempts)}, ${text(r.status)}, ${int(r.scheduleStep)}, ${big(r.nextAttemptAt)}, ${big(r.lastAttemptAt)}, ${int(r.lastResponseStatus)}, ${text(r.lastError)})`,
        ),
    );
    // next_attempt_trigger: the replay or test that made this attempt due is answered; later retries
    // are the schedule's. RETURNING names bare columns: SQLite refuses the table's alias there.
    const res = await sql<{ messageId: string; endpointId: string }>`
      update webhook_deliveries as d
      set status = v.column6, schedule_step = v.column7, next_attempt_at = v.column8, last_attempt_at = v.column9,
          last_response_status = v.column10, last_error = v.column11, next_attempt_trigger = null, updated_at = ${big(now)}
      from (values ${rows}) as v
      where d.workspace_id = v.column1 and d.environment = v.column2
        and d.message_id = v.column3 and d.endpoint_id = v.column4
        and d.status = ${PENDING} and d.attempts = v.column5
      returning message_id, endpoint_id`.execute(db);
    for (const r of res.rows) applied.add(deliveryKey(r));
  }
  return applied;
}

/** An attempt abandoned before its answer (the node is closing): the delivery is due again at `dueAt`, for any node. */
export async function reopenClaimedDelivery(db: Db, tenant: Tenant, key: ClaimKey, dueAt: number, now: number): Promise<void> {
  await db.updateTable('webhookDeliveries').set({ nextAttemptAt: dueAt, updatedAt: now }).$call(asClaimed(tenant, key)).execute();
}

export type NewAttempt = Insertable<WebhookAttemptTable>;

export async function insertAttempts(db: Db, attempts: readonly NewAttempt[]): Promise<void> {
  for (let i = 0; i < attempts.length; i += CHUNK) {
    await db
      .insertInto('webhookAttempts')
      .values(attempts.slice(i, i + CHUNK))
      .execute();
  }
}

/** What the health rules need of an endpoint, read in the transaction that applies them. */
export interface EndpointHealthState {
  enabled: boolean;
  failingSince: number | null;
}

export async function readEndpointHealth(db: Db, tenant: Tenant, endpointId: string): Promise<EndpointHealthState | null> {
  const r = await db
    .selectFrom('webhookEndpoints')
    .select(['status', 'failingSince'])
    .$call(forTenant(tenant))
    .where('id', '=', endpointId)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
  return r ? { enabled: r.status === 'enabled', failingSince: r.failingSince === null ? null : Number(r.failingSince) } : null;
}

/** A failure after health (set) or a success after failures (null). */
export async function setEndpointFailingSince(db: Db, tenant: Tenant, endpointId: string, failingSince: number | null): Promise<void> {
  await db.updateTable('webhookEndpoints').set({ failingSince }).$call(forTenant(tenant)).where('id', '=', endpointId).where('deletedAt', 'is', null).execute();
}

/** The health rules disable an endpoint (gone, or failing too long); true unless it was disabled or deleted meanwhile. */
export async function disableEndpointForHealth(
  db: Db,
  tenant: Tenant,
  endpointId: string,
  reason: Exclude<DisabledReason, 'manual'>,
  failingSince: number | null,
  now: number,
): Promise<boolean> {
  const r = await db
    .updateTable('webhookEndpoints')
    .set({ status: 'disabled', disabledReason: reason, disabledAt: now, failingSince, updatedAt: now })
    .$call(forTenant(tenant))
    .where('id', '=', endpointId)
    .where('status', '=', 'enabled')
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
