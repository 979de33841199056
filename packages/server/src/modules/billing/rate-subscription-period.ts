import { Decimal, isCurrencyCode } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import { loadPricedOffering } from '../catalog/load-priced-offering.js';
import { periodAt, type Subscription } from '../subscriptions/subscription.js';
import type { Tenant } from '../../lib/tenant.js';
import { unitsOfOffering, unitsOfUnitPrices } from './priced-units.js';
import { readRatingUsage } from './read-rating-usage.js';
import { ratePeriod, type PeriodRating, type PricedUnit } from './rate-period.js';

export interface RatedPeriod {
  period: { start: number; end: number };
  currency: string;
  units: PricedUnit[];
  rating: PeriodRating;
  /** Raw usage of every metric in the period (no multipliers or weights): what usage limits count. */
  used: Map<string, Decimal>;
}

/**
 * The subscription's period at `now`, rated from its usage over exactly [start, end) (readRatingUsage:
 * hourly rows, and the raw partial hours at the edges) and the catalog as it is now. Shared by the
 * upcoming-invoice preview and entitlement checks, so a budget counts exactly what the invoice
 * will charge.
 */
export async function rateSubscriptionPeriod(deps: Deps, tenant: Tenant, sub: Subscription, now: number): Promise<RatedPeriod> {
  // Rows written before currencies were checked may hold a code with no minor unit (XAU):
  // a clear conflict the operator can fix with a PATCH, rather than a RangeError and a 500.
  if (!isCurrencyCode(sub.currency)) {
    throw new AppError(
      'CONFLICT',
      `Subscription '${sub.id}' bills in '${sub.currency}', which is not an ISO 4217 currency with a minor unit, so its usage cannot be rated; set its currency (or its offering's) to one such as USD.`,
    );
  }
  const period = periodAt(sub, now);
  const priced = sub.offeringId === null ? null : await loadPricedOffering(deps, tenant, sub.offeringId);
  const units = priced ? unitsOfOffering(priced) : unitsOfUnitPrices(sub);
  const { used, usage } = await readRatingUsage(deps, tenant, sub.customerId, period, units);
  const rating = ratePeriod({
    currency: sub.currency,
    entryPrice: priced?.offering.entryPrice ?? null,
    inTrial: sub.trialEndsAt !== null && period.start < sub.trialEndsAt,
    units,
    usage,
  });
  return { period, currency: sub.currency, units, rating, used };
}
