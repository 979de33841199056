import type { Deps } from '../../deps.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { PricedOffering } from '../catalog/load-priced-offering.js';
import type { Subscription } from './subscription.js';

/**
 * What billing does when a subscription starts (its first invoice: the entry price, in advance)
 * and when it is cancelled at once (a last invoice for the usage so far), in the same transaction. modules/billing sits above this module and implements it
 * (`subscriptionBilling`); app.ts and the demo hand it down.
 */
export interface SubscriptionBilling {
  opened(txDeps: Deps, ctx: OperationContext, sub: Subscription, priced: PricedOffering | null): Promise<void>;
  /** A cancellation now: the usage of the period so far, up to `at`, on a last invoice; its id, or null when there was nothing to bill. */
  cancelled(txDeps: Deps, ctx: OperationContext, sub: Subscription, at: number): Promise<string | null>;
}
