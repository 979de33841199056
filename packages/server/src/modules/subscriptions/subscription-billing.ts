import type { Deps } from '../../deps.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { PricedOffering } from '../catalog/load-priced-offering.js';
import type { Subscription } from './subscription.js';

/**
 * What billing does when a subscription starts: issue its first invoice (the entry price, in
 * advance) in the same transaction. modules/billing sits above this module and implements it
 * (`subscriptionBilling`); app.ts and the demo hand it down.
 */
export interface SubscriptionBilling {
  opened(txDeps: Deps, ctx: OperationContext, sub: Subscription, priced: PricedOffering | null): Promise<void>;
}
