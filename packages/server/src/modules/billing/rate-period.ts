import {
  Decimal,
  rateUnit,
  roundToMinorUnit,
  type CatalogUnitPricing,
  type PricingModel,
  type UnitCharge,
  type UnitOverride,
  type UsageGroup,
} from '@tollgate/pricing';

/**
 * Pure: one subscription period rated into invoice lines. Each unit's line is rated and rounded
 * once by @tollgate/pricing's rateUnit (half up, at the currency's minor unit); this only adds
 * the entry price and sums lines, which are already in minor units, so no second rounding.
 *
 * Line order: the entry price, then for each plan in the offering's order each unit in the
 * plan's order, its minimum-fee top-up right after it.
 */
export interface PricedUnit {
  /** null for a subscription priced by unitPrices instead of an offering. */
  ratePlanId: string | null;
  pricing: CatalogUnitPricing;
  override: UnitOverride | null;
}

export interface PeriodRatingInput {
  currency: string;
  entryPrice: string | null;
  /** The period starts inside the trial: the entry price is not charged. */
  inTrial: boolean;
  units: readonly PricedUnit[];
  /** Usage of the period per metric name, by rating dimension. */
  usage: ReadonlyMap<string, readonly UsageGroup[]>;
}

/**
 * entry_price: the offering's price for a period, billed in advance; usage and minimum_fee: a
 * closed period's usage, billed in arrears; proration: part of an entry price for part of a
 * period (plan changes); adjustment: usage that arrived after the invoice of its period was
 * finalized, billed on the next one; discount: a retention discount, negative (discount-line.ts);
 * credits: what one prepaid credit grant paid of the usage, negative (invoice-credits.ts);
 * credit_purchase: the cost of prepaid credits bought (purchase-credits.ts).
 */
export type InvoiceLineType = 'entry_price' | 'usage' | 'minimum_fee' | 'proration' | 'adjustment' | 'discount' | 'credits' | 'credit_purchase';

export interface InvoiceLine {
  type: InvoiceLineType;
  description: string;
  ratePlanId: string | null;
  metricName: string | null;
  pricingModel: PricingModel | null;
  quantity: string | null;
  freeUnits: string | null;
  billableQuantity: string | null;
  /** The rate after any offering override. */
  rate: string | null;
  /** In the currency's minor unit, e.g. "12.50". */
  amount: string;
  /** credits: the grant (cgr_…) that paid; credit_purchase: the grant bought; absent on every other line. */
  creditGrantId?: string;
}

/** The fields of a line that prices no unit (entry price, proration, adjustment, discount). */
export const NO_UNIT = { ratePlanId: null, metricName: null, pricingModel: null, quantity: null, freeUnits: null, billableQuantity: null, rate: null } as const;

export interface PeriodRating {
  lines: InvoiceLine[];
  /** The unit charges as rated, for callers that need more than the lines. */
  charges: UnitCharge[];
  /** Usage lines only (no entry price, no minimum-fee top-ups): what a spend budget counts. */
  usageAmount: string;
  subtotal: string;
  total: string;
}

export function ratePeriod(input: PeriodRatingInput): PeriodRating {
  const { currency } = input;
  const lines: InvoiceLine[] = [];
  const charges: UnitCharge[] = [];
  const none = NO_UNIT;
  if (input.entryPrice !== null) {
    lines.push({
      ...none,
      type: 'entry_price',
      description: input.inTrial ? 'Entry price (waived: trial)' : 'Entry price',
      amount: roundToMinorUnit(input.inTrial ? '0' : input.entryPrice, currency),
    });
  }
  let usage = new Decimal(0);
  for (const u of input.units) {
    const charge = rateUnit({
      pricing: u.pricing,
      currency,
      usage: input.usage.get(u.pricing.metricName) ?? [],
      multipliers: u.pricing.multipliers,
      override: u.override,
    });
    charges.push(charge);
    usage = usage.plus(charge.amount);
    const unitFields = { ratePlanId: u.ratePlanId, metricName: charge.metricName, pricingModel: charge.pricingModel, rate: charge.rate };
    lines.push({
      ...unitFields,
      type: 'usage',
      description: `${charge.metricName} (${charge.pricingModel})`,
      quantity: charge.quantity,
      freeUnits: charge.freeUnits,
      billableQuantity: charge.billableQuantity,
      amount: charge.amount,
    });
    if (new Decimal(charge.minimumFeeTopUp).gt(0)) {
      lines.push({
        ...unitFields,
        type: 'minimum_fee',
        description: `${charge.metricName}: minimum fee ${u.pricing.minFee}`,
        quantity: null,
        freeUnits: null,
        billableQuantity: null,
        amount: charge.minimumFeeTopUp,
      });
    }
  }
  const subtotal = lines.reduce((acc, l) => acc.plus(l.amount), new Decimal(0));
  return {
    lines,
    charges,
    usageAmount: roundToMinorUnit(usage, currency),
    subtotal: roundToMinorUnit(subtotal, currency),
    // No taxes or discounts yet: they come with invoicing.
    total: roundToMinorUnit(subtotal, currency),
  };
}
