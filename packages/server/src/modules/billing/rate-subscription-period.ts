import { Decimal, isCurrencyCode } from '@tollgate/pricing';
import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import { monthStartsOverlapping } from '../../lib/periods.js';
import { loadPricedOffering } from '../catalog/load-priced-offering.js';
import { periodAt, type Subscription } from '../subscriptions/subscription.js';
import type { Tenant } from '../../lib/tenant.js';
import { readDimensionRows } from '../usage/usage.repository.js';
import { readCustomerTotals } from '../usage/usage-totals.repository.js';
import { metricsRatedByDimension, unitsOfOffering, unitsOfUnitPrices, usageGroupsOf } from './priced-units.js';
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
 * The subscription's period at `now`, rated from the usage totals of the calendar months it
 * overlaps (periods are calendar-aligned, so a period is whole months), the dimension rows of
 * the units that need them, and the catalog as it is now. Shared by the
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
  const months = monthStartsOverlapping(period.start, period.end);
  const totals = await readCustomerTotals(deps.db, tenant, sub.customerId, months);
  // A row per distinct (status, tool, endpoint) only for the units whose pricing uses the split:
  // a customer may send thousands of distinct endpoints to a plan that prices none of them.
  const byDimension = metricsRatedByDimension(units);
  const used = new Map<string, Decimal>();
  for (const t of totals) used.set(t.metricName, (used.get(t.metricName) ?? new Decimal(0)).plus(t.quantitySum));
  const dimensionRows = await readDimensionRows(
    deps.db,
    tenant,
    sub.customerId,
    months,
    [...byDimension].filter((m) => used.has(m)),
  );
  const rating = ratePeriod({
    currency: sub.currency,
    entryPrice: priced?.offering.entryPrice ?? null,
    inTrial: sub.trialEndsAt !== null && period.start < sub.trialEndsAt,
    units,
    usage: usageGroupsOf(totals, dimensionRows, byDimension),
  });
  return { period, currency: sub.currency, units, rating, used };
}
