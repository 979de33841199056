import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Db } from '../../db/database.js';
import { pageById, type Page, type PageParams } from '../../db/pagination.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { WebhookAttemptTable } from '../../db/tables/outbound-webhook.table.js';
import type { Environment } from '../../lib/crypto.js';
import { idFloor, type IdKind } from '../../lib/ids.js';
import type { Tenant } from '../../lib/tenant.js';
import type { CatalogType } from './event-catalog.js';
import type { AttemptFilter, MessageFilter, TimeRange } from './webhook-log-filter.js';
import type { WebhookAttempt } from './webhook-log.js';
import { toDelivery, toMessage } from './webhook-message.repository.js';
import type { AttemptTrigger, NextAttemptTrigger, WebhookDelivery, WebhookMessage } from './webhook-message.js';

/**
 * The delivery log's queries (the operator API over the sender's tables) and the replays'
 * writes. Every statement carries the workspace and the environment.
 */

/**
 * How far an id's instant may lie from its row's time column. A message's id is made after its
 * createdAt, in the emitting transaction; an attempt's id within the attempt (at most the
 * timeout). A time range is read as a range of ids widened by this (the index that orders the
 * page bounds the walk), then tested exactly on the column.
 */
const ID_SKEW_MS = 3_600_000;

/** The time range on both the id (the index) and the exact column. */
function inRange<QB extends { where: unknown }>(
  qb: QB,
  kind: IdKind,
  table: 'webhookMessages' | 'webhookAttempts',
  column: 'createdAt' | 'attemptedAt',
  range: TimeRange,
): QB {
  // Kysely's where() is typed per table; both tables have an id and the column.
  let q = qb as unknown as RangeFilterable;
  if (range.from !== undefined) q = q.where(`${table}.id`, '>=', idFloor(kind, range.from - ID_SKEW_MS)).where(`${table}.${column}`, '>=', range.from);
  if (range.to !== undefined) q = q.where(`${table}.id`, '<', idFloor(kind, range.to + ID_SKEW_MS)).where(`${table}.${column}`, '<', range.to);
  return q as unknown as QB;
}
interface RangeFilterable {
  where(column: string, op: '>=' | '<', value: string | number): RangeFilterable;
}

/** A tenant's messages matching every filter, newest first. */
export async function listWebhookMessages(db: Db, tenant: Tenant, filter: MessageFilter, page: PageParams): Promise<Page<WebhookMessage>> {
  let q = db.selectFrom('webhookMessages').selectAll('webhookMessages').$call(forTenant(tenant));
  if (filter.eventTypes) q = q.where('webhookMessages.eventType', 'in', filter.eventTypes);
  q = inRange(q, 'webhookMessage', 'webhookMessages', 'createdAt', filter.created);
  const { endpointId, status } = filter;
  if (endpointId !== undefined || status !== undefined) {
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('webhookDeliveries')
          .select('webhookDeliveries.messageId')
          .whereRef('webhookDeliveries.messageId', '=', 'webhookMessages.id')
          .where('webhookDeliveries.workspaceId', '=', tenant.workspaceId)
          .where('webhookDeliveries.environment', '=', tenant.environment)
          .$if(endpointId !== undefined, (d) => d.where('webhookDeliveries.endpointId', '=', endpointId!))
          .$if(status !== undefined, (d) => d.where('webhookDeliveries.status', '=', status!)),
      ),
    );
  }
  const { items, hasMore } = await pageById(q, 'webhookMessages', page);
  return { items: items.map(toMessage), hasMore };
}

/** The deliveries of a tenant's messages, by message id, each message's by endpoint id. */
export async function listDeliveriesOfMessages(db: Db, tenant: Tenant, messageIds: readonly string[]): Promise<Map<string, WebhookDelivery[]>> {
  const out = new Map<string, WebhookDelivery[]>(messageIds.map((id) => [id, []]));
  if (messageIds.length === 0) return out;
  const rows = await db
    .selectFrom('webhookDeliveries')
    .selectAll()
    .$call(forTenant(tenant))
    .where('messageId', 'in', [...messageIds])
    .orderBy('messageId')
    .orderBy('endpointId')
    .execute();
  for (const r of rows) out.get(r.messageId)?.push(toDelivery(r));
  return out;
}

function toAttempt(r: Selectable<WebhookAttemptTable>): WebhookAttempt {
  return {
    id: r.id,
    workspaceId: r.workspaceId,
    environment: r.environment as Environment,
    messageId: r.messageId,
    endpointId: r.endpointId,
    eventType: r.eventType as CatalogType,
    attemptNumber: Number(r.attemptNumber),
    trigger: r.trigger as AttemptTrigger,
    url: r.url,
    status: r.status as WebhookAttempt['status'],
    responseStatus: r.responseStatus === null ? null : Number(r.responseStatus),
    responseBody: r.responseBody,
    responseTruncated: Number(r.responseTruncated) === 1,
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    latencyMs: Number(r.latencyMs),
    attemptedAt: Number(r.attemptedAt),
    nextAttemptAt: r.nextAttemptAt === null ? null : Number(r.nextAttemptAt),
  };
}

/**
 * A tenant's attempts matching every filter, newest first. The tenant index (workspace,
 * environment, id) orders the page; an endpoint or a message filter walks its own index instead.
 */
export async function listWebhookAttempts(db: Db, tenant: Tenant, filter: AttemptFilter, page: PageParams): Promise<Page<WebhookAttempt>> {
  let q = db.selectFrom('webhookAttempts').selectAll('webhookAttempts').$call(forTenant(tenant));
  if (filter.endpointId !== undefined) q = q.where('webhookAttempts.endpointId', '=', filter.endpointId);
  if (filter.messageId !== undefined) q = q.where('webhookAttempts.messageId', '=', filter.messageId);
  if (filter.eventTypes) q = q.where('webhookAttempts.eventType', 'in', filter.eventTypes);
  if (filter.status !== undefined) q = q.where('webhookAttempts.status', '=', filter.status);
  if (filter.trigger !== undefined) q = q.where('webhookAttempts.trigger', '=', filter.trigger);
  q = inRange(q, 'webhookAttempt', 'webhookAttempts', 'attemptedAt', filter.attempted);
  const { items, hasMore } = await pageById(q, 'webhookAttempts', page);
  return { items: items.map(toAttempt), hasMore };
}

export type EndpointState = 'enabled' | 'disabled' | 'deleted';

/** The state of a tenant's endpoints by id, deleted ones included (a replay names them); ids of no endpoint of the tenant are absent. */
export async function findEndpointStates(db: Db, tenant: Tenant, ids: readonly string[]): Promise<Map<string, EndpointState>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhookEndpoints')
    .select(['id', 'status', 'deletedAt'])
    .$call(forTenant(tenant))
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((r) => [r.id, r.deletedAt !== null ? 'deleted' : (r.status as 'enabled' | 'disabled')]));
}

/** What a replay writes: pending, due now, the retry schedule from its start, and why. */
const replayed = (now: number, trigger: NextAttemptTrigger) =>
  ({ status: 'pending', nextAttemptAt: now, scheduleStep: 0, nextAttemptTrigger: trigger, updatedAt: now }) as const;

/**
 * Sends a message again to these endpoints: their deliveries go back to pending, due now. Only
 * to endpoints still enabled when the statement runs, so a disable committed meanwhile (whose
 * failPendingDeliveries ran before this) leaves nothing pending behind it. Returns how many.
 */
export async function replayMessageDeliveries(db: Db, tenant: Tenant, messageId: string, endpointIds: readonly string[], now: number): Promise<number> {
  if (endpointIds.length === 0) return 0;
  const r = await db
    .updateTable('webhookDeliveries')
    .set(replayed(now, 'replay'))
    .$call(forTenant(tenant))
    .where('messageId', '=', messageId)
    .where('endpointId', 'in', [...endpointIds])
    .where(toEnabledEndpoint(tenant))
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/**
 * Every failed delivery of an endpoint written at or after `since` (with its message: they are
 * written together) goes back to pending, due now, in one statement; only while the endpoint is
 * enabled. Returns how many.
 */
export async function replayFailedDeliveriesSince(db: Db, tenant: Tenant, endpointId: string, since: number, now: number): Promise<number> {
  const r = await db
    .updateTable('webhookDeliveries')
    .set(replayed(now, 'replay'))
    .$call(forTenant(tenant))
    .where('endpointId', '=', endpointId)
    .where('status', '=', 'failed')
    .where('createdAt', '>=', since)
    .where(toEnabledEndpoint(tenant))
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** The delivery's endpoint is enabled and not deleted (a condition of an update of webhook_deliveries). */
const toEnabledEndpoint = (tenant: Tenant) => (eb: ExpressionBuilder<Database, 'webhookDeliveries'>) =>
  eb.exists(
    eb
      .selectFrom('webhookEndpoints')
      .select('webhookEndpoints.id')
      .whereRef('webhookEndpoints.id', '=', 'webhookDeliveries.endpointId')
      .where('webhookEndpoints.workspaceId', '=', tenant.workspaceId)
      .where('webhookEndpoints.environment', '=', tenant.environment)
      .where('webhookEndpoints.status', '=', 'enabled')
      .where('webhookEndpoints.deletedAt', 'is', null),
  );
