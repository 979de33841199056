import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import { forTenant } from '../../db/tenant-scope.js';
import type { WebhookDeliveryTable, WebhookMessageTable } from '../../db/tables/outbound-webhook.table.js';
import type { Environment } from '../../lib/crypto.js';
import type { Tenant } from '../../lib/tenant.js';
import type { CatalogType } from './event-catalog.js';
import {
  ENDPOINT_DELETED_ERROR,
  ENDPOINT_DISABLED_ERROR,
  type DeliveryStatus,
  type NextAttemptTrigger,
  type WebhookDelivery,
  type WebhookMessage,
} from './webhook-message.js';

// Rows per statement: well under SQLite's 32,766 and PostgreSQL's 65,535 parameters.
const CHUNK = 500;

export function toMessage(r: Selectable<WebhookMessageTable>): WebhookMessage {
  return {
    id: r.id,
    seq: Number(r.seq),
    workspaceId: r.workspaceId,
    environment: r.environment as Environment,
    eventType: r.eventType as CatalogType,
    orderingKey: r.orderingKey,
    body: r.body,
    source: r.source as WebhookMessage['source'],
    correlationId: r.correlationId,
    createdAt: Number(r.createdAt),
  };
}

export function toDelivery(r: Selectable<WebhookDeliveryTable>): WebhookDelivery {
  const n = (v: number | null) => (v === null ? null : Number(v));
  return {
    messageId: r.messageId,
    endpointId: r.endpointId,
    status: r.status as DeliveryStatus,
    attempts: Number(r.attempts),
    scheduleStep: Number(r.scheduleStep),
    nextAttemptAt: n(r.nextAttemptAt),
    lastAttemptAt: n(r.lastAttemptAt),
    lastResponseStatus: n(r.lastResponseStatus),
    lastError: r.lastError,
    nextAttemptTrigger: r.nextAttemptTrigger as NextAttemptTrigger | null,
    createdAt: Number(r.createdAt),
    updatedAt: Number(r.updatedAt),
  };
}

export type NewMessage = Omit<Insertable<WebhookMessageTable>, 'seq'>;

/** Inserts messages in the order given and returns each one's seq by id (RETURNING does not promise the order). */
export async function insertMessages(db: Db, messages: readonly NewMessage[]): Promise<Map<string, number>> {
  const seqs = new Map<string, number>();
  for (let i = 0; i < messages.length; i += CHUNK) {
    const rows = await db
      .insertInto('webhookMessages')
      .values(messages.slice(i, i + CHUNK))
      .returning(['id', 'seq'])
      .execute();
    for (const r of rows) seqs.set(r.id, Number(r.seq));
  }
  return seqs;
}

export type NewDelivery = Insertable<WebhookDeliveryTable>;

export async function insertDeliveries(db: Db, deliveries: readonly NewDelivery[]): Promise<void> {
  for (let i = 0; i < deliveries.length; i += CHUNK) {
    await db
      .insertInto('webhookDeliveries')
      .values(deliveries.slice(i, i + CHUNK))
      .execute();
  }
}

/** A tenant's messages by id, in seq order (the ids may be of other tenants: those are not returned). */
export async function findMessages(db: Db, tenant: Tenant, ids: readonly string[]): Promise<WebhookMessage[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('webhookMessages')
    .selectAll()
    .$call(forTenant(tenant))
    .where('id', 'in', [...ids])
    .orderBy('seq')
    .execute();
  return rows.map(toMessage);
}

export async function findMessage(db: Db, tenant: Tenant, id: string): Promise<WebhookMessage | null> {
  return (await findMessages(db, tenant, [id]))[0] ?? null;
}

/** A tenant's messages of one ordering key (a subscription), oldest first: for the order checks. */
export async function listMessagesOfOrderingKey(db: Db, tenant: Tenant, orderingKey: string): Promise<WebhookMessage[]> {
  const rows = await db.selectFrom('webhookMessages').selectAll().$call(forTenant(tenant)).where('orderingKey', '=', orderingKey).orderBy('seq').execute();
  return rows.map(toMessage);
}

/** A tenant's first messages in seq order (tests and the parity checks; the paged log is the delivery routes'). */
export async function listTenantMessages(db: Db, tenant: Tenant, limit = 1000): Promise<WebhookMessage[]> {
  const rows = await db.selectFrom('webhookMessages').selectAll().$call(forTenant(tenant)).orderBy('seq').limit(limit).execute();
  return rows.map(toMessage);
}

export async function listDeliveriesOfMessage(db: Db, tenant: Tenant, messageId: string): Promise<WebhookDelivery[]> {
  const rows = await db.selectFrom('webhookDeliveries').selectAll().$call(forTenant(tenant)).where('messageId', '=', messageId).orderBy('endpointId').execute();
  return rows.map(toDelivery);
}

/**
 * An endpoint disabled (by an operator, or by the sender's health rules) or deleted: its pending
 * deliveries fail with `endpoint_disabled` (a replay after re-enabling sends them) or
 * `endpoint_deleted`. Returns how many.
 */
export async function failPendingDeliveries(
  db: Db,
  tenant: Tenant,
  endpointId: string,
  now: number,
  reason: typeof ENDPOINT_DISABLED_ERROR | typeof ENDPOINT_DELETED_ERROR = ENDPOINT_DISABLED_ERROR,
): Promise<number> {
  const r = await db
    .updateTable('webhookDeliveries')
    .set({ status: 'failed', nextAttemptAt: null, lastError: reason, updatedAt: now })
    .$call(forTenant(tenant))
    .where('endpointId', '=', endpointId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
