import { Type, type Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { toIso } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { Decimal, type Money } from '../../lib/money.js';
import { findProduct } from '../products/product.repository.js';
import { findDecidingSubscription } from '../subscriptions/subscription.repository.js';
import type { Tenant } from '../../lib/tenant.js';
import { resolveCustomerRefs } from '../customers/customer.repository.js';
import { rateSubscriptionPeriod, type RatedPeriod } from '../billing/rate-subscription-period.js';
import { activeGrantsOf, liveCreditBalance } from '../credits/live-credits.js';
import { evaluateCreditSettings } from '../credits/evaluate-credit-settings.js';
import { billingOrigin } from '../billing/billing-origin.js';
import { creditInvoicing } from '../billing/purchase-credits.js';
import { minorUnitDigits } from '@tollgate/pricing';
import type { Subscription } from '../subscriptions/subscription.js';
import { timeOf } from '../test-clocks/clock-time.js';
import { usageLimitsOf } from '../subscriptions/usage-limits.js';
import { decideEntitlement, entitlementReasons, type EntitlementDecision } from './decide-entitlement.js';
import { pastDueBlocks } from '../subscriptions/subscription.js';

/** What JSON can carry for "no limit": the spec's fields are numbers, and clients compare them. */
export const UNLIMITED = Number.MAX_SAFE_INTEGER;

export const EntitlementResultSchema = Type.Object(
  {
    allowed: Type.Boolean(),
    quotaRemaining: Type.Number({
      description: `Units left in the current period under the tightest usage limit, never below 0; ${UNLIMITED} (Number.MAX_SAFE_INTEGER) when the subscription has no limit.`,
    }),
    budgetRemaining: Type.Number({
      description: `Spend budget left this period (budget minus charges so far), never below 0; ${UNLIMITED} when there is no budget. For a PREPAID subscription whose overage is BLOCK, at most the credits left (creditsRemaining). Exact value in budgetRemainingAmount.`,
    }),
    reason: Type.Union(
      entitlementReasons.map((r) => Type.Literal(r)),
      {
        description:
          'Why allowed is what it is. PAYMENT_PAST_DUE: an automatic payment failed and the subscription has been past due longer than the workspace’s grace period (pastDueGraceDays); allowed again once the invoice is paid. CREDITS_EXHAUSTED: a PREPAID subscription whose offering’s overage is BLOCK has no credit left to pay for more usage; allowed again after a grant or a top-up.',
      },
    ),
    subscriptionId: Type.Union([Type.String(), Type.Null()], {
      description: 'The subscription that decided; null when the customer has none for the product.',
    }),
    periodStart: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    periodEnd: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    quotaUnlimited: Type.Boolean(),
    budgetUnlimited: Type.Boolean(),
    budgetRemainingAmount: Type.Union([Type.String(), Type.Null()], {
      description: 'Exact decimal, in the subscription currency; null without a budget.',
    }),
    creditsRemaining: Type.Union([Type.String({ maxLength: 40 }), Type.Null()], {
      description:
        'PREPAID: the credits left after the current period’s usage so far (never below 0), in the subscription currency’s minor digits; null otherwise.',
    }),
    limits: Type.Array(
      Type.Object({
        metricName: Type.String(),
        limit: Type.Number({ description: 'Units per billing period.' }),
        enforcement: Type.Union([Type.Literal('BLOCK'), Type.Literal('ALERT')]),
        used: Type.Number({ description: 'Usage of the metric in the current period so far.' }),
        source: Type.Union([Type.Literal('SUBSCRIPTION'), Type.Literal('RATE_PLAN')], {
          description: "SUBSCRIPTION: the subscription's own usageLimits entry; RATE_PLAN: its offering's rate plan default.",
        }),
      }),
      {
        description:
          'The usage limits that apply to the deciding subscription (its own usageLimits entry for a metric, else its offering’s rate plan default: the subscription’s effectiveUsageLimits) with the period’s usage, for whoever enforces them (a gateway, the SDK’s guard): a BLOCK limit refuses once used reaches limit (allowed is then false); an ALERT limit allows and warns. Empty without a subscription or limits.',
      },
    ),
  },
  { title: 'EntitlementResult' },
);
export type EntitlementResult = Static<typeof EntitlementResultSchema>;

/**
 * A PREPAID subscription's credits left now, after its period's usage so far (live-credits.ts);
 * a threshold of the customer's credit settings it crossed fires (an alert, a top-up).
 */
async function liveCredits(deps: Deps, tenant: Tenant, sub: Subscription, now: number, rated: RatedPeriod): Promise<Money> {
  const grants = await activeGrantsOf(deps, tenant, sub.customerId, sub.currency);
  const usage = rated.rating.lines.filter((l) => l.type === 'usage' && l.metricName !== null).map((l) => ({ metricName: l.metricName!, amount: l.amount }));
  const balance = liveCreditBalance(grants, sub, now, usage);
  await evaluateCreditSettings(
    deps,
    tenant,
    () => billingOrigin(deps, tenant),
    {
      customerId: sub.customerId,
      testClockId: sub.testClockId,
      subscriptionId: sub.id,
      currency: sub.currency,
      balance,
      periodKey: String(rated.period.start),
      at: now,
    },
    creditInvoicing,
  );
  return new Decimal(balance);
}

/**
 * Read-only: decides from the subscription and the usage of exactly its current period (a row
 * per metric, summed by the database from the hourly rows); it never writes or decrements anything.
 */
export async function checkEntitlement(deps: Deps, tenant: Tenant, accessorId: string, productId: string): Promise<EntitlementResult> {
  const { quotaMetricName: _quotaMetricName, customerId: _customerId, ...answer } = await explainEntitlement(deps, tenant, accessorId, productId);
  return answer;
}

/**
 * The answer, the metric whose limit its quotaRemaining is (decide-entitlement.ts: for the developer
 * hub) and the customer the accessor named (the answer cache forgets answers by customer); neither is in the API's answer.
 */
export type ExplainedEntitlement = EntitlementResult & { quotaMetricName: string | null; customerId: string };

/** checkEntitlement, saying also which metric is the tightest. */
export async function explainEntitlement(deps: Deps, tenant: Tenant, accessorId: string, productId: string): Promise<ExplainedEntitlement> {
  const customerId = (await resolveCustomerRefs(deps.db, tenant, [accessorId])).get(accessorId);
  if (!customerId) {
    throw new AppError('NOT_FOUND', `No customer with id or externalId '${accessorId}' exists in this environment.`, { field: 'query.accessorId' });
  }
  const sub = await findDecidingSubscription(deps.db, tenant, customerId, productId);
  // A subscription names an existing product, so only an answer without one needs the look-up.
  if (!sub && !(await findProduct(deps.db, tenant, productId))) {
    throw new AppError('NOT_FOUND', `No product with id '${productId}' exists in this environment.`, { field: 'query.productId' });
  }
  let decision: EntitlementDecision;
  let period: { start: number; end: number } | null = null;
  let limits: EntitlementResult['limits'] = [];
  if (!sub || sub.status === 'CANCELLED') {
    decision = decideEntitlement({ subscriptionActive: false, limits: [], budget: null });
  } else {
    const now = await timeOf(deps, tenant, sub.testClockId);
    const rated = await rateSubscriptionPeriod(deps, tenant, sub, now);
    period = rated.period;
    // The subscription's own limits, else its offering's rate plans' defaults (as they are now).
    const effective = await usageLimitsOf(deps, tenant, sub);
    const explicit = new Set(effective.map((l) => l.metricName));
    const own = effective.map((l) => ({ ...l, used: rated.used.get(l.metricName) ?? new Decimal(0) }));
    limits = own.map((l) => ({ metricName: l.metricName, limit: l.limit, enforcement: l.enforcement, used: l.used.toNumber(), source: l.source }));
    decision = decideEntitlement({
      subscriptionActive: true,
      paymentPastDue: pastDueBlocks(sub, now),
      limits: [
        ...own,
        // The catalog's free units are the quota: they inform quotaRemaining and never refuse
        // (usage past them is billed); a BLOCK usage limit is what refuses.
        ...rated.rating.charges
          .filter((c) => c.includedFree > 0 && !explicit.has(c.metricName))
          .map((c) => ({ metricName: c.metricName, limit: c.includedFree, enforcement: 'ALERT' as const, used: new Decimal(c.freeUnits) })),
      ],
      // Spend is what the invoice will charge for usage so far (rounded lines, before minimums).
      budget: sub.spendBudget
        ? { amount: new Decimal(sub.spendBudget.amount), enforcement: sub.spendBudget.enforcement, spent: new Decimal(rated.rating.usageAmount) }
        : null,
      credits: rated.overage === null ? null : { remaining: await liveCredits(deps, tenant, sub, now, rated), overage: rated.overage },
    });
  }
  return {
    allowed: decision.allowed,
    quotaRemaining: decision.quotaRemaining === null ? UNLIMITED : decision.quotaRemaining.toNumber(),
    budgetRemaining: decision.budgetRemaining === null ? UNLIMITED : decision.budgetRemaining.toNumber(),
    reason: decision.reason,
    subscriptionId: sub?.id ?? null,
    periodStart: period ? toIso(period.start) : null,
    periodEnd: period ? toIso(period.end) : null,
    quotaUnlimited: decision.quotaRemaining === null,
    budgetUnlimited: decision.budgetRemaining === null,
    budgetRemainingAmount: decision.budgetRemaining === null ? null : decision.budgetRemaining.toFixed(),
    creditsRemaining: decision.creditsRemaining === null ? null : decision.creditsRemaining.toFixed(minorUnitDigits(sub!.currency)),
    limits,
    quotaMetricName: decision.quotaMetricName,
    customerId,
  };
}
