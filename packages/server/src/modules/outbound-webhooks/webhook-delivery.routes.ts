import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';

/**
 * Operator API: the delivery log (messages, attempts), replay, the event types, the test event.
 * Registered by app.ts already; the routes come with the sender (issue 19, work package 3).
 */
export function webhookDeliveryRoutes(_app: App, _deps: Deps): Promise<void> {
  return Promise.resolve();
}
