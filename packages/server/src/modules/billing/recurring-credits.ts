import { Decimal, periodContaining, roundToMinorUnit } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { PricedOffering } from '../catalog/load-priced-offering.js';
import type { RecurringCredits } from '../catalog/offering.js';
import type { NewGrant } from '../credits/credit-grant.js';
import { drawableGrants, holdCreditBalance } from '../credits/credit-ledger.repository.js';
import { recordGrant } from '../credits/grant-credits.js';
import { scheduleOf, type Subscription } from '../subscriptions/subscription.js';
import type { Period } from './rate-subscription-period.js';

/**
 * A PREPAID offering's recurring credits (issue 41): at the start of each period (subscribing, and
 * each renewal) the subscription is granted the offering's amount, limited to it and expiring at
 * the period's end. When the period's usage has drawn for good (its invoice finalized, or at the
 * renewal when there is no invoice), what its recurring and rollover grants have left is carried
 * into the next period as one rollover grant, at most the offering's `rolloverCap`; what is not
 * carried expires with them (expire-credit-grants.ts). An IMMEDIATE plan change grants nothing.
 */

/** The recurring credits of the prices a period is billed with; null for POSTPAID or none. */
export function recurringCreditsOf(priced: PricedOffering | null): RecurringCredits | null {
  return priced?.offering.billingMode === 'PREPAID' ? (priced.offering.recurringCredits ?? null) : null;
}

/** A grant the service makes to one subscription: active at once, for every metric. */
function subscriptionGrant(
  sub: Pick<Subscription, 'id' | 'customerId' | 'currency'>,
  source: 'recurring' | 'rollover',
  amount: string,
  priority: number,
  effectiveAt: number,
  expiresAt: number | null,
): NewGrant {
  const none = { metricNames: null, costAmount: null, invoiceId: null, metadata: {} };
  return {
    customerId: sub.customerId,
    currency: sub.currency,
    amount,
    priority,
    effectiveAt,
    expiresAt,
    source,
    status: 'active',
    subscriptionId: sub.id,
    ...none,
  };
}

/** Grants the period's recurring credits, in the caller's transaction (`deps.db`). */
export async function grantRecurringCredits(
  deps: Deps,
  origin: OperationContext,
  sub: Pick<Subscription, 'id' | 'customerId' | 'currency'>,
  priced: PricedOffering | null,
  period: Period,
): Promise<void> {
  const rc = recurringCreditsOf(priced);
  if (!rc) return;
  await recordGrant(deps, origin, subscriptionGrant(sub, 'recurring', rc.amount, rc.priority, period.start, period.end), period.start);
}

/**
 * Carries what the subscription's recurring and rollover grants expiring at `boundary` have left
 * into the period that starts there, at most `rc.rolloverCap`, in the caller's transaction. Call
 * it once the closed period's draws are final. Nothing for a subscription that has ended.
 */
export async function rollOverCredits(deps: Deps, origin: OperationContext, sub: Subscription, rc: RecurringCredits | null, boundary: number): Promise<void> {
  if (rc === null || rc.rolloverCap === null || sub.status === 'CANCELLED') return;
  if (!(await holdCreditBalance(deps.db, deps, origin, sub.customerId, sub.currency))) return;
  const ending = (await drawableGrants(deps.db, origin, sub.customerId, sub.currency, [])).filter(
    (g) => g.subscriptionId === sub.id && (g.source === 'recurring' || g.source === 'rollover') && g.expiresAt === boundary,
  );
  const left = ending.reduce((acc, g) => acc.plus(g.remaining), new Decimal(0));
  const amount = Decimal.min(left, rc.rolloverCap);
  if (amount.lte(0)) return;
  const next = periodContaining(scheduleOf(sub), boundary);
  const amountText = roundToMinorUnit(amount, sub.currency);
  await recordGrant(deps, origin, subscriptionGrant(sub, 'rollover', amountText, rc.priority, boundary, next?.end ?? null), boundary);
}
