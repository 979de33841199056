import { isCurrencyCode } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { PricedOffering } from '../catalog/load-priced-offering.js';
import type { Subscription } from '../subscriptions/subscription.js';
import type { SubscriptionBilling } from '../subscriptions/subscription-billing.js';
import { issueDraftInvoice, issued } from './issue-invoice.js';
import { grantRecurringCredits } from './recurring-credits.js';
import { billingPeriodStart, entryPriceLine, pricingOf, ratePeriodUsage, unitsFor } from './rate-subscription-period.js';

/**
 * A new subscription's first invoice: the entry price of its first period, in advance (prorated
 * for a calendar-aligned partial period, waived in a trial). Usage is billed in arrears, at the
 * first renewal. Without an entry price there is nothing to bill yet, and no invoice. A PREPAID
 * offering's recurring credits for the first period are granted here too.
 */
export async function openSubscription(txDeps: Deps, ctx: OperationContext, sub: Subscription, priced: PricedOffering | null): Promise<void> {
  const period = { start: sub.currentPeriodStart, end: sub.currentPeriodEnd };
  await grantRecurringCredits(txDeps, ctx, sub, priced, period);
  const line = entryPriceLine(sub, priced, period);
  if (line === null) return;
  await issueDraftInvoice(txDeps, ctx, ctx, {
    sub,
    cycleKey: 'create',
    billingReason: 'subscription_create',
    period,
    priceVersionId: sub.priceVersionId,
    lines: [issued(line, period)],
    at: sub.currentPeriodStart,
  });
}

/**
 * A subscription cancelled now: the usage of its period so far, up to `at`, on a last invoice
 * (nothing when there is none to bill); returns its id.
 */
export async function closeCancelledSubscription(txDeps: Deps, ctx: OperationContext, sub: Subscription, at: number): Promise<string | null> {
  // A row from before currencies were checked (XAU) cannot be rated; it can still be cancelled.
  if (!isCurrencyCode(sub.currency)) return null;
  const period = { start: sub.currentPeriodStart, end: Math.max(sub.currentPeriodStart, at) };
  const priced = await pricingOf(txDeps, ctx, sub);
  const allowanceFrom = billingPeriodStart(sub, period.start);
  const { rating } = await ratePeriodUsage(txDeps, ctx, sub, unitsFor(sub, priced), period, allowanceFrom);
  if (rating.lines.length === 0) return null;
  const invoice = await issueDraftInvoice(txDeps, ctx, ctx, {
    sub,
    cycleKey: `cancel:${at}`,
    billingReason: 'subscription_cancel',
    period,
    allowanceFrom: allowanceFrom < period.start ? allowanceFrom : null,
    priceVersionId: sub.priceVersionId,
    lines: rating.lines.map((l) => issued(l, period)),
    at,
  });
  return invoice?.id ?? null;
}

export const subscriptionBilling: SubscriptionBilling = { opened: openSubscription, cancelled: closeCancelledSubscription };
