import type { CatalogType } from './event-catalog.js';

/**
 * A message's body, built once at emit time and stored: the bytes signed and sent on every
 * attempt. Pure. `{type, timestamp, data}` as Standard Webhooks recommends, with `data.object`
 * the resource exactly as the API's GET returns it at the event's commit.
 */
export interface WebhookEventData {
  /** The resource as the API presents it (an `id` and an `object` field, but a usage alert has no id). */
  object: { object: string; id?: string } & Record<string, unknown>;
  /** For changes: the fields before the change. */
  previousAttributes?: Record<string, unknown>;
  /** What the resource cannot say (a plan change's invoice and credit, a cancellation's reason…). */
  details?: Record<string, unknown>;
}

/** Bodies past this fall back to a thin payload, so an emit never fails the business transaction on size. */
export const MAX_BODY_BYTES = 256 * 1024;

/**
 * The minified JSON body. Over `maxBytes` (an invoice of a thousand lines), `data` keeps only
 * `{object: {id, object}}` and `thin: true`: the seller GETs the resource.
 */
export function buildWebhookBody(type: CatalogType, timestampMs: number, data: WebhookEventData, maxBytes = MAX_BODY_BYTES): string {
  const timestamp = new Date(timestampMs).toISOString();
  const full = JSON.stringify({ type, timestamp, data });
  if (Buffer.byteLength(full, 'utf8') <= maxBytes) return full;
  const { id, object } = data.object;
  return JSON.stringify({ type, timestamp, data: { object: id === undefined ? { object } : { id, object }, thin: true } });
}
