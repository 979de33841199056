import { Decimal, isCurrencyCode, nthPeriod, periodContaining, periodFraction, prorate, roundToMinorUnit } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import { loadPricedOffering, type PricedOffering } from '../catalog/load-priced-offering.js';
import { loadPriceVersion } from '../catalog/price-version.js';
import { periodAt, scheduleOf, type Subscription } from '../subscriptions/subscription.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Period } from '../usage/period-usage.js';
import { unitsOfOffering, unitsOfUnitPrices } from './priced-units.js';
import { readRatingUsage } from './read-rating-usage.js';
import { ratePeriod, type InvoiceLine, type PeriodRating, type PricedUnit } from './rate-period.js';
import { discountApplies, discountLine } from './discount-line.js';

export type { Period };

export interface RatedPeriod {
  period: Period;
  currency: string;
  units: PricedUnit[];
  rating: PeriodRating;
  /** Raw usage of every metric in the period (no multipliers or weights): what usage limits count. */
  used: Map<string, Decimal>;
  /** A PREPAID offering's overage rule (its usage draws from credits); null for POSTPAID. */
  overage: 'BILL' | 'BLOCK' | null;
}

/**
 * Rows written before currencies were checked may hold a code with no minor unit (XAU): a clear
 * conflict the operator can fix with a PATCH, rather than a RangeError and a 500.
 */
export function checkRatableCurrency(sub: Pick<Subscription, 'id' | 'currency'>): void {
  if (!isCurrencyCode(sub.currency)) {
    throw new AppError(
      'CONFLICT',
      `Subscription '${sub.id}' bills in '${sub.currency}', which is not an ISO 4217 currency with a minor unit, so its usage cannot be rated; set its currency (or its offering's) to one such as USD.`,
    );
  }
}

/**
 * The prices of the subscription's current period: its price version, or (for a subscription
 * from before versions existed) the offering as it is now. null without an offering.
 */
export async function pricingOf(deps: Deps, tenant: Tenant, sub: Pick<Subscription, 'offeringId' | 'priceVersionId'>): Promise<PricedOffering | null> {
  if (sub.offeringId === null) return null;
  if (sub.priceVersionId !== null) {
    const version = await loadPriceVersion(deps, tenant, sub.priceVersionId);
    if (version) return version;
  }
  return loadPricedOffering(deps, tenant, sub.offeringId);
}

export function unitsFor(sub: Pick<Subscription, 'unitPrices'>, priced: PricedOffering | null): PricedUnit[] {
  return priced ? unitsOfOffering(priced) : unitsOfUnitPrices(sub);
}

/**
 * Where the billing period that holds `t` starts: the trial, or the schedule's period. A usage
 * period that starts later (the part after an IMMEDIATE plan change) shares its allowance.
 */
export function billingPeriodStart(
  sub: Pick<Subscription, 'startedAt' | 'trialEndsAt' | 'billingAnchor' | 'billingPeriod' | 'periodAlignment'>,
  t: number,
): number {
  if (sub.trialEndsAt !== null && t < sub.trialEndsAt) return sub.startedAt;
  return periodContaining(scheduleOf(sub), t)?.start ?? t;
}

/**
 * The units of a part of a billing period that started at `allowanceFrom`: each unit's free
 * allowance less its metric's usage in [allowanceFrom, part start), never below 0 (@tollgate/pricing
 * README, "Usage and free allowances": changing plans never restarts an allowance). Raw
 * quantities are counted, as usage limits count them.
 */
async function sharingAllowances(
  deps: Deps,
  tenant: Tenant,
  customerId: string,
  units: PricedUnit[],
  period: Period,
  allowanceFrom: number,
): Promise<PricedUnit[]> {
  if (allowanceFrom >= period.start) return units;
  const { used } = await readRatingUsage(deps, tenant, customerId, { start: allowanceFrom, end: period.start }, units);
  return units.map((u) => {
    const before = used.get(u.pricing.metricName);
    if (!before || before.isZero()) return u;
    const allowance = u.override?.includedFree ?? u.pricing.includedFree;
    const left = Decimal.max(new Decimal(allowance).minus(before), 0);
    return { ...u, override: { ...(u.override ?? {}), includedFree: left.toNumber() } };
  });
}

/**
 * A period's usage rated into usage and minimum-fee lines (no entry price). `allowanceFrom`: the
 * start of the billing period whose allowance it shares, when it is the part after a plan change.
 */
export async function ratePeriodUsage(
  deps: Deps,
  tenant: Tenant,
  sub: Pick<Subscription, 'customerId' | 'currency'>,
  units: PricedUnit[],
  period: Period,
  allowanceFrom: number | null = null,
): Promise<{ rating: PeriodRating; used: Map<string, Decimal> }> {
  const shared = allowanceFrom === null ? units : await sharingAllowances(deps, tenant, sub.customerId, units, period, allowanceFrom);
  const { used, usage } = await readRatingUsage(deps, tenant, sub.customerId, period, shared);
  const rating = ratePeriod({ currency: sub.currency, entryPrice: null, inTrial: false, units: shared, usage });
  return { rating, used };
}

/**
 * The entry-price line for a period billed in advance: the offering's price, prorated when the
 * period is part of a whole one (a calendar-aligned first period), waived inside a trial.
 */
export function entryPriceLine(
  sub: Pick<Subscription, 'billingAnchor' | 'billingPeriod' | 'periodAlignment' | 'trialEndsAt' | 'currency'>,
  priced: PricedOffering | null,
  period: Period,
): InvoiceLine | null {
  const price = priced?.offering.entryPrice ?? null;
  if (price === null) return null;
  const none = { ratePlanId: null, metricName: null, pricingModel: null, quantity: null, freeUnits: null, billableQuantity: null, rate: null };
  if (sub.trialEndsAt !== null && period.start < sub.trialEndsAt) {
    return { ...none, type: 'entry_price', description: 'Entry price (waived: trial)', amount: roundToMinorUnit('0', sub.currency) };
  }
  // The schedule's period that starts here: partial only when calendar-aligned and first.
  const schedule = scheduleOf(sub);
  const first = nthPeriod(schedule, 0);
  const fraction = first.start === period.start ? periodFraction(first) : { numerator: 1, denominator: 1 };
  const whole = fraction.numerator === fraction.denominator;
  return {
    ...none,
    type: 'entry_price',
    description: whole ? 'Entry price' : `Entry price (prorated: ${((fraction.numerator / fraction.denominator) * 100).toFixed(2)}% of a period)`,
    rate: whole ? null : price,
    amount: roundToMinorUnit(prorate(price, fraction), sub.currency),
  };
}

/**
 * The subscription's period at `now`, rated as its renewal invoice will be: the usage so far, and
 * (unless it ends then) the entry price of the next period, billed in advance, and the retention
 * discount while one runs. Shared by the upcoming-invoice preview and entitlement checks, so a
 * budget counts exactly what the invoice will charge for usage (usageAmount: before any discount).
 */
export async function rateSubscriptionPeriod(deps: Deps, tenant: Tenant, sub: Subscription, now: number): Promise<RatedPeriod> {
  checkRatableCurrency(sub);
  const period = periodAt(sub, now);
  const priced = await pricingOf(deps, tenant, sub);
  const units = unitsFor(sub, priced);
  const { rating, used } = await ratePeriodUsage(deps, tenant, sub, units, period, billingPeriodStart(sub, period.start));
  const next = sub.cancelAtPeriodEnd ? null : entryPriceLine(sub, priced, { start: period.end, end: period.end });
  if (next) rating.lines.unshift(next);
  // As the renewal does (renew-subscription.ts): a cycle invoice carries the discount, a last one does not.
  if (!sub.cancelAtPeriodEnd && discountApplies(sub.discount)) rating.lines.push(discountLine(sub.discount, rating.lines, sub.currency));
  rating.subtotal = roundToMinorUnit(
    rating.lines.reduce((acc, l) => acc.plus(l.amount), new Decimal(0)),
    sub.currency,
  );
  rating.total = rating.subtotal;
  const overage = priced?.offering.billingMode === 'PREPAID' ? (priced.offering.overage ?? 'BILL') : null;
  return { period, currency: sub.currency, units, rating, used, overage };
}
