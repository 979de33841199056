import { resourceEvent, type WebhookEventInput } from '../outbound-webhooks/emit-webhook-events.js';
import type { CatalogType } from '../outbound-webhooks/event-catalog.js';
import { presentApiKey, type ApiKey } from './api-key.js';

/**
 * A key's webhook message: the key as GET /api/v1/api-keys/{id} presents it at `now` (its hint,
 * never its secret or hash), the fields it had before when given, ordered with the subscription
 * it is bound to (a workspace key: unordered).
 */
export function apiKeyEvent(type: CatalogType, key: ApiKey, now: number, opts: { before?: ApiKey; details?: Record<string, unknown> } = {}): WebhookEventInput {
  return resourceEvent(type, key.subscriptionId, (k: ApiKey) => presentApiKey(k, now), key, opts.before, opts.details);
}
