import { Decimal, prorateChange, roundToMinorUnit, type ChangeKind } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import type { PricedOffering } from '../catalog/load-priced-offering.js';
import { findOffering } from '../catalog/offering.repository.js';
import type { IssuedLine } from '../billing/invoice.js';
import { issued } from '../billing/issue-invoice.js';
import { paidForCurrentPeriod, type PaidEntry } from '../billing/plan-change-billing.js';
import {
  billingPeriodStart,
  checkRatableCurrency,
  entryPriceLine,
  pricingOf,
  ratePeriodUsage,
  unitsFor,
  type Period,
} from '../billing/rate-subscription-period.js';
import { firstPeriod, type Subscription } from '../subscriptions/subscription.js';
import { listChangeCandidates } from './change-candidates.js';
import type { ApplyAt, ChangeAction } from './plan-change.js';

/**
 * Everything a plan change or cancellation bills, worked out once for the preview and again, in
 * the change's own transaction, for the change itself: the preview's figures are the amounts the
 * change issues because both come from here. Reads; writes nothing.
 *
 * IMMEDIATE (billing README, "Plan changes"):
 * - The usage period ends now: its usage so far is rated on the current offering and billed now.
 * - credit = the unused share of what was paid for the current period (rounded down), debit = the
 *   new entry price's share for the same time (rounded down too), net = debit − credit.
 * - net ≥ 0 (an upgrade): one invoice, finalized at once: the debit, the credit as a negative
 *   line, the usage so far.
 * - net < 0 (a downgrade): a credit note for the credit against the invoice that charged the
 *   period, and an invoice, finalized at once, for the debit and the usage so far (when either is
 *   above zero). So every period's entry charge stays a positive line of one invoice, which the
 *   next change credits.
 * - In a trial nothing is charged or credited; the trial goes on, on the new offering.
 * - An offering on another billing period restarts the period now (Stripe's rule): the unused
 *   time is credited and the new offering's first period is charged in full.
 * PERIOD_END: nothing is billed now; the renewal at the period end applies it.
 */

export type ChangeTarget = { action: 'change'; offeringId: string } | { action: 'cancel' };

export interface ChangeQuote {
  action: ChangeAction;
  applyAt: ApplyAt;
  sub: Subscription;
  /** The subscription's time now. */
  now: number;
  effectiveAt: number;
  from: PricedOffering | null;
  to: PricedOffering | null;
  paid: PaidEntry;
  credit: string;
  debit: string;
  net: string;
  /** IMMEDIATE: the usage period that ends now, and its lines (rated on the current offering). */
  usagePeriod: Period | null;
  usageLines: IssuedLine[];
  usageTotal: string;
  allowanceFrom: number | null;
  /** IMMEDIATE change: the lines of its invoice, none when it issues none. */
  invoiceLines: IssuedLine[];
  /** IMMEDIATE change: what the credit note credits, null when none is issued. */
  creditNoteAmount: string | null;
  /** IMMEDIATE change: the subscription's usage period after it (a new period when the billing period differs). */
  nextPeriod: Period;
  /** IMMEDIATE change to another billing period: the schedule restarts at the change. */
  restarts: boolean;
  nextRenewalAt: number | null;
  nextRenewalAmount: string | null;
}

const NO_RATING = { ratePlanId: null, metricName: null, pricingModel: null, quantity: null, freeUnits: null, billableQuantity: null, rate: null };
const day = (t: number) => new Date(t).toISOString().slice(0, 10);
const positive = (x: string) => new Decimal(x).gt(0);

/** A live subscription with an offering, in a period that has not ended yet: what a change needs. */
export function checkChangeable(sub: Subscription, now: number): void {
  if (sub.status === 'CANCELLED') throw new AppError('SUBSCRIPTION_NOT_ACTIVE', `Subscription '${sub.id}' is CANCELLED.`);
  checkRatableCurrency(sub);
  if (now >= sub.currentPeriodEnd) {
    throw new AppError(
      'CONFLICT',
      `Subscription '${sub.id}''s period ended at ${new Date(sub.currentPeriodEnd).toISOString()} and is being renewed; try again in a moment.`,
    );
  }
}

/** The candidate offering a change goes to, or a 400/404 naming body.offeringId. */
async function targetOf(deps: Deps, ctx: OperationContext, sub: Subscription, offeringId: string): Promise<{ priced: PricedOffering; kind: ChangeKind }> {
  if (sub.offeringId === null) {
    throw new AppError('CONFLICT', `Subscription '${sub.id}' is priced by its own unitPrices, not an offering: it has no plan to change from.`);
  }
  if (offeringId === sub.offeringId) {
    throw new AppError('VALIDATION_FAILED', `Subscription '${sub.id}' is already on offering '${offeringId}'.`, { field: 'body.offeringId' });
  }
  const candidate = (await listChangeCandidates(deps, ctx, sub)).find((c) => c.priced.offering.id === offeringId);
  if (candidate) return candidate;
  if (!(await findOffering(deps.db, ctx, offeringId))) throw notFound('offering', offeringId);
  throw new AppError(
    'VALIDATION_FAILED',
    `Offering '${offeringId}' is not a change candidate for subscription '${sub.id}': candidates are published offerings of the same product and currency that bill by period (GET …/change-candidates).`,
    { field: 'body.offeringId' },
  );
}

/** The change or cancellation `target` of `sub` at `now` (its time), as it would bill. */
export async function quoteChange(
  deps: Deps,
  ctx: OperationContext,
  sub: Subscription,
  target: ChangeTarget,
  applyAt: ApplyAt,
  now: number,
): Promise<ChangeQuote> {
  checkChangeable(sub, now);
  const from = await pricingOf(deps, ctx, sub);
  const to = target.action === 'change' ? await targetOf(deps, ctx, sub, target.offeringId) : null;
  const action: ChangeAction = to ? to.kind : 'CANCEL';
  const zero = roundToMinorUnit('0', sub.currency);
  const end = sub.currentPeriodEnd;
  const restarts = to !== null && to.priced.offering.billingPeriod !== sub.billingPeriod && !(sub.trialEndsAt !== null && now < sub.trialEndsAt);
  const nextSub: Subscription = to
    ? { ...sub, offeringId: to.priced.offering.id, billingPeriod: to.priced.offering.billingPeriod as Subscription['billingPeriod'] }
    : sub;

  const quote: ChangeQuote = {
    action,
    applyAt,
    sub,
    now,
    effectiveAt: applyAt === 'IMMEDIATE' ? now : end,
    from,
    to: to?.priced ?? null,
    paid: { amount: zero, invoice: null },
    credit: zero,
    debit: zero,
    net: zero,
    usagePeriod: null,
    usageLines: [],
    usageTotal: zero,
    allowanceFrom: null,
    invoiceLines: [],
    creditNoteAmount: null,
    nextPeriod: { start: now, end },
    restarts,
    nextRenewalAt: to ? end : null,
    nextRenewalAmount: null,
  };

  if (applyAt === 'PERIOD_END') {
    if (to) quote.nextRenewalAmount = entryPriceLine(nextSub, to.priced, { start: end, end })?.amount ?? null;
    return quote;
  }

  // The usage period ends now: its usage so far, on the current offering.
  const usagePeriod = { start: sub.currentPeriodStart, end: Math.max(sub.currentPeriodStart, now) };
  const allowanceFrom = billingPeriodStart(sub, usagePeriod.start);
  const { rating } = await ratePeriodUsage(deps, ctx, sub, unitsFor(sub, from), usagePeriod, allowanceFrom);
  quote.usagePeriod = usagePeriod;
  quote.allowanceFrom = allowanceFrom < usagePeriod.start ? allowanceFrom : null;
  quote.usageLines = rating.lines.map((l) => issued(l, usagePeriod));
  quote.usageTotal = rating.total;

  // Proration of the entry price: what was paid for [start, end), its unused share.
  quote.paid = await paidForCurrentPeriod(deps, ctx, sub);
  const fromName = from?.offering.name ?? 'the current plan';
  quote.credit = prorateChange({
    currency: sub.currency,
    periodStart: sub.currentPeriodStart,
    periodEnd: end,
    changeAt: now,
    oldEntryPrice: quote.paid.amount,
    newEntryPrice: null,
  }).credit;
  if (to && restarts) {
    const fresh = { ...nextSub, billingAnchor: now };
    quote.nextPeriod = firstPeriod(fresh, now);
    quote.debit = entryPriceLine(fresh, to.priced, quote.nextPeriod)?.amount ?? zero;
    quote.nextRenewalAt = quote.nextPeriod.end;
    quote.nextRenewalAmount = entryPriceLine(fresh, to.priced, { start: quote.nextPeriod.end, end: quote.nextPeriod.end })?.amount ?? null;
  } else if (to) {
    // The new entry price for a whole period like this one (prorated like it, when it is a
    // calendar-aligned first period; waived in a trial), and its share for the rest of it.
    const whole = { start: billingPeriodStart(sub, sub.currentPeriodStart), end };
    const full = entryPriceLine(nextSub, to.priced, whole)?.amount ?? null;
    quote.debit = prorateChange({
      currency: sub.currency,
      periodStart: whole.start,
      periodEnd: end,
      changeAt: now,
      oldEntryPrice: null,
      newEntryPrice: full,
    }).debit;
    quote.nextRenewalAmount = entryPriceLine(nextSub, to.priced, { start: end, end })?.amount ?? null;
  }
  quote.net = roundToMinorUnit(new Decimal(quote.debit).minus(quote.credit), sub.currency);
  if (!to) {
    // A cancellation: the unused time on a credit note; the usage on the last invoice.
    if (positive(quote.credit) && quote.paid.invoice) quote.creditNoteAmount = quote.credit;
    return quote;
  }

  const toName = to.priced.offering.name;
  const rest = quote.nextPeriod;
  const debitLine: IssuedLine = {
    ...issued(
      {
        ...NO_RATING,
        type: restarts ? 'entry_price' : 'proration',
        description: `Remaining time on ${toName} (${day(rest.start)} to ${day(rest.end)})`,
        amount: quote.debit,
      },
      rest,
    ),
  };
  const creditDescription = `Unused time on ${fromName} (${day(now)} to ${day(end)})`;
  const lines: IssuedLine[] = [];
  if (positive(quote.debit)) lines.push(debitLine);
  if (!new Decimal(quote.net).isNegative()) {
    if (positive(quote.credit))
      lines.push(issued({ ...NO_RATING, type: 'proration', description: creditDescription, amount: `-${quote.credit}` }, { start: now, end }));
  } else {
    quote.creditNoteAmount = quote.credit;
  }
  lines.push(...quote.usageLines);
  quote.invoiceLines = lines;
  return quote;
}

/** The text of a credit note line for a quote's unused time. */
export function unusedTimeDescription(q: ChangeQuote): string {
  return `Unused time on ${q.from?.offering.name ?? 'the current plan'} (${day(q.now)} to ${day(q.sub.currentPeriodEnd)})`;
}
