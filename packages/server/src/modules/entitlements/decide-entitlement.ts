import { Decimal, type Money } from '../../lib/money.js';
import type { Enforcement } from '../subscriptions/subscription.js';

/**
 * Pure: may this customer use the product now? No I/O, so the pricing catalog can feed it later
 * (included units, usage limits and rated charges) without changing the rule.
 */
export interface LimitUsage {
  metricName: string;
  limit: number;
  enforcement: Enforcement;
  /** Exact usage in the current period. */
  used: Money;
}

export interface EntitlementInput {
  subscriptionActive: boolean;
  /** Past due beyond the workspace's grace period: refused until paid, whatever the limits say. */
  paymentPastDue?: boolean;
  limits: readonly LimitUsage[];
  /** null: no budget, unlimited. */
  budget: { amount: Money; enforcement: Enforcement; spent: Money } | null;
  /**
   * A PREPAID subscription's live credit balance after the period's usage so far (negative by
   * what no grant can pay) and its overage rule; absent or null for POSTPAID.
   */
  credits?: { remaining: Money; overage: 'BILL' | 'BLOCK' } | null;
}

export const entitlementReasons = ['OK', 'NO_ACTIVE_SUBSCRIPTION', 'PAYMENT_PAST_DUE', 'QUOTA_EXHAUSTED', 'BUDGET_EXHAUSTED', 'CREDITS_EXHAUSTED'] as const;
export type EntitlementReason = (typeof entitlementReasons)[number];

export interface EntitlementDecision {
  allowed: boolean;
  reason: EntitlementReason;
  /** The smallest remainder among the limits, never below 0; null when there is no limit. */
  quotaRemaining: Money | null;
  /**
   * The metric whose limit leaves quotaRemaining (on a tie, a BLOCK limit, then the first listed);
   * null without a limit or an active subscription. Not in the API's answer: the developer hub
   * says what is left of what.
   */
  quotaMetricName: string | null;
  /**
   * Budget minus charges so far, never below 0; null when there is no budget. For PREPAID with
   * overage BLOCK, at most the credits left (they refuse at zero too).
   */
  budgetRemaining: Money | null;
  /** A PREPAID subscription's credits left, never below 0; null for POSTPAID. */
  creditsRemaining: Money | null;
}

const ZERO = new Decimal(0);
const atLeastZero = (d: Money) => (d.isNegative() ? ZERO : d);

export function decideEntitlement(input: EntitlementInput): EntitlementDecision {
  let quotaRemaining: Money | null = null;
  let tightest: LimitUsage | null = null;
  let blockedByQuota = false;
  for (const l of input.limits) {
    const left = new Decimal(l.limit).minus(l.used);
    const kept = atLeastZero(left);
    if (quotaRemaining === null || kept.lt(quotaRemaining) || (kept.eq(quotaRemaining) && l.enforcement === 'BLOCK' && tightest?.enforcement !== 'BLOCK')) {
      quotaRemaining = kept;
      tightest = l;
    }
    // Used up means the next unit would go past the limit.
    if (l.enforcement === 'BLOCK' && left.lte(0)) blockedByQuota = true;
  }
  let budgetRemaining: Money | null = null;
  let blockedByBudget = false;
  if (input.budget) {
    const left = input.budget.amount.minus(input.budget.spent);
    budgetRemaining = atLeastZero(left);
    if (input.budget.enforcement === 'BLOCK' && left.lte(0)) blockedByBudget = true;
  }
  const credits = input.credits ?? null;
  const creditsRemaining = credits ? atLeastZero(credits.remaining) : null;
  // Out of credits means no grant can pay the next unit; with BILL it is billed instead.
  const blockedByCredits = credits !== null && credits.overage === 'BLOCK' && credits.remaining.lte(0);
  if (credits?.overage === 'BLOCK') budgetRemaining = budgetRemaining === null ? creditsRemaining : Decimal.min(budgetRemaining, creditsRemaining!);
  if (!input.subscriptionActive) {
    return {
      allowed: false,
      reason: 'NO_ACTIVE_SUBSCRIPTION',
      quotaRemaining: ZERO,
      quotaMetricName: null,
      budgetRemaining: ZERO,
      creditsRemaining: credits ? ZERO : null,
    };
  }
  // Unpaid comes first: usage left under a limit does not make a past-due subscription servable.
  const reason: EntitlementReason = input.paymentPastDue
    ? 'PAYMENT_PAST_DUE'
    : blockedByQuota
      ? 'QUOTA_EXHAUSTED'
      : blockedByBudget
        ? 'BUDGET_EXHAUSTED'
        : blockedByCredits
          ? 'CREDITS_EXHAUSTED'
          : 'OK';
  return { allowed: reason === 'OK', reason, quotaRemaining, quotaMetricName: tightest?.metricName ?? null, budgetRemaining, creditsRemaining };
}
