import type { Db } from '../../db/database.js';
import { afterCommit } from '../../db/transaction.js';
import type { Deps } from '../../deps.js';
import type { Environment } from '../../lib/crypto.js';
import { matchesEventType, type CatalogType } from './event-catalog.js';
import { signalOutboxCommitted } from './outbox-signal.js';
import { buildWebhookBody, type WebhookEventData } from './webhook-payload.js';
import { listEndpointSubscriptions, type EndpointSubscription } from './webhook-endpoint.repository.js';
import { insertDeliveries, insertMessages, type NewDelivery, type NewMessage } from './webhook-message.repository.js';
import { ENDPOINT_DISABLED_ERROR } from './webhook-message.js';

/** One event to send: its type, its payload's data and what orders it (the subscription's id; null: unordered). */
export interface WebhookEventInput {
  type: CatalogType;
  /**
   * The payload's data, or a function that builds it: called only when an endpoint subscribes to
   * the type, so a renewal group nobody listens to presents nothing.
   */
  data: WebhookEventData | (() => WebhookEventData);
  orderingKey: string | null;
}

export interface WebhookEventOrigin {
  workspaceId: string;
  environment: Environment;
  correlationId: string;
}

/** A tenant's endpoints already read in a transaction (see endpointsOf). */
const readIn = new WeakMap<object, Map<string, Promise<EndpointSubscription[]>>>();

/**
 * Inside a transaction a tenant's endpoints are read once, however many events it emits (a
 * renewal group emits three per subscription). An endpoint created after that read does not get
 * the transaction's events: it was not there when they happened.
 */
function endpointsOf(db: Db, tenant: { workspaceId: string; environment: Environment }): Promise<EndpointSubscription[]> {
  if (!db.isTransaction) return listEndpointSubscriptions(db, tenant);
  let memo = readIn.get(db);
  if (!memo) {
    memo = new Map<string, Promise<EndpointSubscription[]>>();
    readIn.set(db, memo);
  }
  const key = `${tenant.workspaceId}:${tenant.environment}`;
  let endpoints = memo.get(key);
  if (!endpoints) {
    endpoints = listEndpointSubscriptions(db, tenant);
    memo.set(key, endpoints);
  }
  return endpoints;
}

/**
 * THE OUTBOX WRITE. Call it in the transaction of the change, next to its audit event, with the
 * caller's executor: the messages and their deliveries commit or roll back with the change, so
 * a crash after the commit loses nothing (the sender finds them pending) and a rolled-back
 * change sends nothing. Exactly one message per event that at least one endpoint subscribes to;
 * nothing is written otherwise. Messages are written in the order given (their seq), which is
 * the order a subscription's events reach each endpoint. Works with StorageDeps (the SQLite
 * writer thread) as well as Deps. Returns the number of messages written.
 */
export async function emitWebhookEvents(
  db: Db,
  deps: Pick<Deps, 'clock' | 'ids'>,
  items: ReadonlyArray<{ origin: WebhookEventOrigin; event: WebhookEventInput }>,
): Promise<number> {
  if (items.length === 0) return 0;
  const now = deps.clock.now();
  const messages: NewMessage[] = [];
  const targets: Array<{ messageId: string; origin: WebhookEventOrigin; event: WebhookEventInput; endpoints: EndpointSubscription[] }> = [];
  for (const { origin, event } of items) {
    const endpoints = (await endpointsOf(db, origin)).filter((e) => matchesEventType(e.eventTypes, event.type));
    if (endpoints.length === 0) continue;
    const id = deps.ids.next('webhookMessage');
    messages.push({
      id,
      workspaceId: origin.workspaceId,
      environment: origin.environment,
      eventType: event.type,
      orderingKey: event.orderingKey,
      body: buildWebhookBody(event.type, now, typeof event.data === 'function' ? event.data() : event.data),
      source: 'event',
      correlationId: origin.correlationId,
      createdAt: now,
    });
    targets.push({ messageId: id, origin, event, endpoints });
  }
  if (messages.length === 0) return 0;
  const seqs = await insertMessages(db, messages);
  const deliveries: NewDelivery[] = targets.flatMap(({ messageId, origin, event, endpoints }) =>
    endpoints.map((e) => ({
      messageId,
      endpointId: e.id,
      workspaceId: origin.workspaceId,
      environment: origin.environment,
      eventType: event.type,
      messageSeq: seqs.get(messageId)!,
      orderingKey: event.orderingKey,
      // A disabled endpoint's delivery is recorded as failed: a replay after re-enabling sends it.
      status: e.enabled ? 'pending' : 'failed',
      attempts: 0,
      scheduleStep: 0,
      nextAttemptAt: e.enabled ? now : null,
      lastAttemptAt: null,
      lastResponseStatus: null,
      lastError: e.enabled ? null : ENDPOINT_DISABLED_ERROR,
      createdAt: now,
      updatedAt: now,
    })),
  );
  await insertDeliveries(db, deliveries);
  await afterCommit(db, signalOutboxCommitted);
  return messages.length;
}

/** One event in the caller's transaction (see emitWebhookEvents); `origin` is the operation's context. */
export function emitWebhookEvent(db: Db, deps: Pick<Deps, 'clock' | 'ids'>, origin: WebhookEventOrigin, event: WebhookEventInput): Promise<number> {
  return emitWebhookEvents(db, deps, [{ origin, event }]);
}

/**
 * A change's message from its resource's presenter (the one the API's GET uses): `data.object` the
 * resource after the change, `previousAttributes` the presented fields it had before (when
 * `before` is given), `details` what the resource cannot say. Built only when an endpoint
 * subscribes to the type.
 */
export function resourceEvent<T>(
  type: CatalogType,
  orderingKey: string | null,
  present: (resource: T) => WebhookEventData['object'],
  after: T,
  before?: T,
  details?: Record<string, unknown>,
): WebhookEventInput {
  return {
    type,
    orderingKey,
    data: () => ({
      object: present(after),
      ...(before === undefined ? {} : { previousAttributes: previousAttributes(present(before), present(after)) }),
      ...(details === undefined ? {} : { details }),
    }),
  };
}

/** Fields every change moves: left out of previousAttributes. */
const ALWAYS_CHANGED = new Set(['version', 'updatedAt']);

/** JSON with every object's keys sorted: equal values give equal text whatever order their keys were built in. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x,
  );

/**
 * A change's `previousAttributes` (Stripe's previous_attributes): each field of the resource as
 * presented whose value the change altered, with its value before. `version` and `updatedAt`,
 * which every change moves, are left out. Pure: both arguments are presenter outputs.
 */
export function previousAttributes(before: object, after: object): Record<string, unknown> {
  const was = before as Record<string, unknown>;
  const is = after as Record<string, unknown>;
  const changed: Record<string, unknown> = {};
  for (const k of new Set([...Object.keys(was), ...Object.keys(is)])) {
    if (ALWAYS_CHANGED.has(k)) continue;
    if (canonical(was[k]) !== canonical(is[k])) changed[k] = was[k] ?? null;
  }
  return changed;
}
