import { sql, type Insertable, type UpdateQueryBuilder, type UpdateResult } from 'kysely';
import type { Db, DialectName } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { WebhookAttemptTable } from '../../db/tables/outbound-webhook.table.js';
import type { Environment } from '../../lib/crypto.js';
import type { Tenant } from '../../lib/tenant.js';
import type { DisabledReason } from './endpoint-health.js';
import type { DeliveryStatus } from './webhook-message.js';
import { paddedRows, runStatement, statementText, valuesList } from '../../db/statement-text.js';

/**
 * The sender's queries (webhook-sender.ts). `status = 'pending'` is written as a literal, not a
 * parameter, so both databases match the partial indexes of migration 0016
 * (webhook_deliveries_due, webhook_deliveries_order) whatever plan they choose.
 */
const PENDING = sql.lit('pending');

// Rows per statement: well under SQLite's 32,766 and PostgreSQL's 65,535 parameters.
const CHUNK = 500;

export interface DueEndpoint extends Tenant {
  endpointId: string;
}

/**
 * Endpoints with a delivery due now whose lane no other node holds: the only query of the sender
 * across tenants (it finds the tenants). Reads the pending deliveries alone (partial index).
 */
export async function findDueEndpoints(db: Db, owner: string, now: number, limit: number): Promise<DueEndpoint[]> {
  // Grouped by the endpoint alone, from the partial due index only (it leads with the endpoint
  // and holds the due time): no delivery row is read, however long the backlog. Each endpoint's
  // tenant comes from the endpoint, one row per group (an endpoint has one tenant); taking it from
  // the deliveries (min(workspace_id)) read every due row from the table, 10 ms a poll in a
  // 20,000-delivery backlog. The lanes are looked at once per endpoint, after the grouping.
  const due = db
    .selectFrom('webhookDeliveries')
    .select((eb) => ['endpointId', eb.fn.min('nextAttemptAt').as('firstDue')])
    .where('status', '=', PENDING)
    .where('nextAttemptAt', '<=', now)
    .groupBy('endpointId')
    .as('g');
  const rows = await db
    .selectFrom(due)
    .innerJoin('webhookEndpoints as ep', 'ep.id', 'g.endpointId')
    .select(['g.endpointId', 'ep.workspaceId', 'ep.environment'])
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
export async function claimDueDeliveries(
  db: Db,
  dialect: DialectName,
  lanes: readonly LaneClaim[],
  now: number,
  inFlightUntil: number,
): Promise<Map<string, ClaimedDelivery[]>> {
  const out = new Map<string, ClaimedDelivery[]>();
  const wanted = lanes.filter((l) => l.limit > 0);
  for (let i = 0; i < wanted.length; i += LANES_PER_CLAIM) {
    for (const [endpointId, claimed] of await claimChunk(db, dialect, wanted.slice(i, i + LANES_PER_CLAIM), now, inFlightUntil)) out.set(endpointId, claimed);
  }
  return out;
}

/**
 * One lane's arm of the claim's read: its due, sendable deliveries in order, with their bodies
 * (parameters: workspace, environment, endpoint, now, limit). Each arm in its own subquery: a
 * compound SELECT takes ORDER BY and LIMIT only on the whole.
 */
const SENDABLE_ARM = `select "s".* from (select "d"."endpoint_id", "d"."message_id", "m"."body", "m"."source", "d"."next_attempt_at"
  from "webhook_deliveries" as "d"
  inner join "webhook_messages" as "m" on "m"."workspace_id" = "d"."workspace_id" and "m"."environment" = "d"."environment" and "m"."id" = "d"."message_id"
  where "d"."workspace_id" = ? and "d"."environment" = ? and "d"."endpoint_id" = ? and "d"."status" = 'pending' and "d"."next_attempt_at" <= ?
    and ("d"."ordering_key" is null or not exists (select 1 as "one" from "webhook_deliveries" as "e"
      where "e"."endpoint_id" = "d"."endpoint_id" and "e"."ordering_key" = "d"."ordering_key" and "e"."status" = 'pending'
        and "e"."message_seq" < "d"."message_seq" and "e"."workspace_id" = "d"."workspace_id" and "e"."environment" = "d"."environment"))
  order by "d"."next_attempt_at", "d"."message_seq" limit ?) as "s"`;

const CLAIM_KEY = '(cast(? as text), cast(? as text), cast(? as text), cast(? as text))';

async function claimChunk(
  db: Db,
  dialect: DialectName,
  lanes: readonly LaneClaim[],
  now: number,
  inFlightUntil: number,
): Promise<Map<string, ClaimedDelivery[]>> {
  const readText = statementText(`claim-read ${lanes.length}`, () => lanes.map(() => SENDABLE_ARM).join(' union all '));
  const sendable = await runStatement<{ endpointId: string; messageId: string; body: string; source: string; nextAttemptAt: number | string }>(
    db,
    readText,
    lanes.flatMap((l) => [l.workspaceId, l.environment, l.endpointId, now, l.limit]),
  );
  const out = new Map<string, ClaimedDelivery[]>();
  if (sendable.length === 0) return out;
  const laneOf = new Map(lanes.map((l) => [l.endpointId, l]));
  // The same conditions again: a row failed (endpoint disabled) or claimed since the read is not
  // taken. Joined to a VALUES list of the whole keys read (as completeClaimedDeliveries does): an
  // OR of one group per lane let PostgreSQL factor out the tenant and read its every pending row.
  // `+next_attempt_at` keeps SQLite on the key: on the column itself it chose the due index and
  // read every due row of the endpoint to update a few (2 ms a claim in a backlog).
  const rows = paddedRows(dialect, sendable.length);
  const claimText = statementText(
    `claim-update ${rows}`,
    () => `update webhook_deliveries as d
    set attempts = d.attempts + 1, next_attempt_at = cast(? as bigint), updated_at = cast(? as bigint)
    from (values ${valuesList(CLAIM_KEY, rows)}) as v
    where d.workspace_id = v.column1 and d.environment = v.column2
      and d.message_id = v.column3 and d.endpoint_id = v.column4
      and d.status = 'pending' and +d.next_attempt_at <= cast(? as bigint)
    returning endpoint_id, message_id, event_type, attempts, schedule_step, last_attempt_at, last_error, next_attempt_trigger`,
  );
  const params: unknown[] = [inFlightUntil, now];
  for (const r of sendable) {
    const lane = laneOf.get(r.endpointId)!;
    params.push(lane.workspaceId, lane.environment, r.messageId, r.endpointId);
  }
  // Padding rows: null keys match nothing.
  for (let i = sendable.length; i < rows; i++) params.push(null, null, null, null);
  params.push(now);
  type Claimed = Omit<ClaimedDelivery, 'body' | 'source' | 'dueAt'> & { endpointId: string };
  const updated = await runStatement<Claimed>(db, claimText, params);
  const n = (v: number | string | null) => (v === null ? null : Number(v));
  const claimed = new Map(updated.map((r) => [`${r.endpointId} ${r.messageId}`, r]));
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
export async function completeClaimedDeliveries(db: Db, dialect: DialectName, results: readonly TenantDeliveryResult[], now: number): Promise<Set<string>> {
  const applied = new Set<string>();
  for (let i = 0; i < results.length; i += CHUNK) {
    const chunk = results.slice(i, i + CHUNK);
    const rows = paddedRows(dialect, chunk.length);
    // A VALUES list names its columns column1, column2, … in both dialects; PostgreSQL plans it
    // as one node (a UNION ALL of one SELECT per row took it 20 ms to plan at 100 rows).
    // next_attempt_trigger: the replay or test that made this attempt due is answered; later retries
    // are the schedule's. RETURNING names bare columns: SQLite refuses the table's alias there.
    const text = statementText(
      `complete ${rows}`,
      () => `update webhook_deliveries as d
      set status = v.column6, schedule_step = v.column7, next_attempt_at = v.column8, last_attempt_at = v.column9,
          last_response_status = v.column10, last_error = v.column11, next_attempt_trigger = null, updated_at = cast(? as bigint)
      from (values ${valuesList(RESULT_ROW, rows)}) as v
      where d.workspace_id = v.column1 and d.environment = v.column2
        and d.message_id = v.column3 and d.endpoint_id = v.column4
        and d.status = 'pending' and d.attempts = v.column5
      returning message_id, endpoint_id`,
    );
    const params: unknown[] = [now];
    for (const r of chunk)
      params.push(
        r.tenant.workspaceId,
        r.tenant.environment,
        r.messageId,
        r.endpointId,
        r.claimedAttempts,
        r.status,
        r.scheduleStep,
        r.nextAttemptAt,
        r.lastAttemptAt,
        r.lastResponseStatus,
        r.lastError,
      );
    // Padding rows: null keys match nothing.
    for (let k = chunk.length; k < rows; k++) for (let c = 0; c < RESULT_COLUMNS; c++) params.push(null);
    for (const r of await runStatement<{ messageId: string; endpointId: string }>(db, text, params)) applied.add(deliveryKey(r));
  }
  return applied;
}

/** A result row of completeClaimedDeliveries' VALUES list, typed (PostgreSQL types a VALUES column by its first row). */
const RESULT_ROW =
  '(cast(? as text), cast(? as text), cast(? as text), cast(? as text), cast(? as integer), cast(? as text), cast(? as integer), cast(? as bigint), cast(? as bigint), cast(? as integer), cast(? as text))';
const RESULT_COLUMNS = 11;

/** An attempt abandoned before its answer (the node is closing): the delivery is due again at `dueAt`, for any node. */
export async function reopenClaimedDelivery(db: Db, tenant: Tenant, key: ClaimKey, dueAt: number, now: number): Promise<void> {
  await db.updateTable('webhookDeliveries').set({ nextAttemptAt: dueAt, updatedAt: now }).$call(asClaimed(tenant, key)).execute();
}

export type NewAttempt = Insertable<WebhookAttemptTable>;

/** The log's columns, in the order insertAttempts writes them. */
const ATTEMPT_COLUMNS = [
  'id',
  'workspace_id',
  'environment',
  'message_id',
  'endpoint_id',
  'event_type',
  'attempt_number',
  'trigger',
  'url',
  'node_id',
  'status',
  'response_status',
  'response_body',
  'response_truncated',
  'error_code',
  'error_message',
  'latency_ms',
  'attempted_at',
  'next_attempt_at',
] as const;
const ATTEMPT_ROW = `(${ATTEMPT_COLUMNS.map(() => '?').join(', ')})`;

/**
 * The attempts' log rows. Rows can not be padded (each is written), so on SQLite they go in
 * statements of at most 16 rows (16 texts, one prepared statement each); PostgreSQL takes a chunk
 * in one.
 */
export async function insertAttempts(db: Db, dialect: DialectName, attempts: readonly NewAttempt[]): Promise<void> {
  const size = dialect === 'sqlite' ? 16 : CHUNK;
  for (let i = 0; i < attempts.length; i += size) {
    const chunk = attempts.slice(i, i + size);
    const text = statementText(
      `attempts ${chunk.length}`,
      () => `insert into webhook_attempts (${ATTEMPT_COLUMNS.join(', ')}) values ${valuesList(ATTEMPT_ROW, chunk.length)}`,
    );
    const params: unknown[] = [];
    for (const a of chunk)
      params.push(
        a.id,
        a.workspaceId,
        a.environment,
        a.messageId,
        a.endpointId,
        a.eventType,
        a.attemptNumber,
        a.trigger,
        a.url,
        a.nodeId,
        a.status,
        a.responseStatus ?? null,
        a.responseBody ?? null,
        a.responseTruncated,
        a.errorCode ?? null,
        a.errorMessage ?? null,
        a.latencyMs,
        a.attemptedAt,
        a.nextAttemptAt ?? null,
      );
    await runStatement(db, text, params);
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
