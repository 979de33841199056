import { resourceEvent, type WebhookEventInput } from '../outbound-webhooks/emit-webhook-events.js';
import type { CatalogType } from '../outbound-webhooks/event-catalog.js';
import { presentSubscription, type Subscription } from './subscription.js';

/**
 * A subscription change's webhook message (written next to its audit event, in its transaction):
 * the subscription as GET presents it after the change, the fields it had before, and `details`
 * (what the resource cannot say: a plan change's kind, invoice and credit note, a cancellation's
 * reason), ordered with the subscription's other events. Without `before`: a creation.
 */
export function subscriptionEvent(type: CatalogType, after: Subscription, before?: Subscription, details?: Record<string, unknown>): WebhookEventInput {
  return resourceEvent(type, after.id, presentSubscription, after, before, details);
}
