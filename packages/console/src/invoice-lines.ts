/**
 * How the invoice page words its lines. The API names a unit's line by its codes ("api_calls
 * (INCLUDED_QUOTA)"); the page names it as the pricing page names the unit: the metric's display
 * name, then the price in @tollgate/pricing's words (describeUnitPricing), "API calls: $1.50 per
 * 1,000 calls after 100,000 free". Those words come from the rate plan, so they are used only
 * while the plan still says what the line was billed on; otherwise the line reads as the metric
 * and its model, "API calls (included quota, then overage)", which is true whatever changed.
 * Usage lines with no usage are folded away, not dropped. Pure.
 */
import {
  Decimal,
  describeUnitPricing,
  isDecimalString,
  metricLabel,
  pricingModels,
  unitPricingWith,
  type PricingModel,
  type UnitDisplay,
  type UnitPricing,
} from '@tollgate/pricing';
import { modelWords, type MetricLabels, type RatePlanRecord } from './plan-form.js';

export interface InvoiceLine {
  type: string;
  description: string;
  ratePlanId: string | null;
  metricName: string | null;
  pricingModel: string | null;
  quantity: string | null;
  freeUnits: string | null;
  billableQuantity: string | null;
  rate: string | null;
  amount: string;
  periodStart: string;
  periodEnd: string;
}

/** What the page has loaded to word the lines with: the invoice's currency, metrics, and the plans the lines name. */
export interface LineContext {
  currency: string;
  metrics: readonly MetricLabels[];
  plans: readonly RatePlanRecord[];
}

/** The lines that price a unit: its usage and its minimum-fee top-up. */
const UNIT_LINES = new Set(['usage', 'minimum_fee']);

const isModel = (model: string | null): model is PricingModel => model !== null && (pricingModels as readonly string[]).includes(model);

const decimal = (text: string | null): Decimal | null => (text !== null && isDecimalString(text) ? new Decimal(text) : null);

/** The plans to load for the page's wording: each one a unit's line names, once. */
export function ratePlanIdsOf(lines: readonly InvoiceLine[]): string[] {
  const ids = lines.filter((l) => UNIT_LINES.has(l.type) && l.ratePlanId !== null).map((l) => l.ratePlanId as string);
  return [...new Set(ids)];
}

/**
 * The unit the line was billed for, when what the page knows of it still says what the line was
 * billed on; otherwise null:
 * - no plan (a subscription priced by unitPrices): PER_UNIT at the line's rate, all there is to it;
 * - the plan, if it has not changed since the line's period began, is in the invoice's currency
 *   and prices the metric with the line's model; an offering's rate override is the line's rate;
 * - an allowance the line shows was not the plan's (an offering's override of includedFree: the
 *   free units ran out below it, or went above it) leaves the terms unknown.
 */
function billedUnit(line: InvoiceLine, model: PricingModel, ctx: LineContext): { unit: UnitPricing; period: RatePlanRecord['billingPeriod'] } | null {
  const metricName = line.metricName as string;
  if (line.ratePlanId === null) {
    if (model !== 'PER_UNIT' || decimal(line.rate) === null) return null;
    return { unit: unitPricingWith({ metricName, pricingModel: 'PER_UNIT', rate: line.rate as string }), period: 'MONTHLY' };
  }
  const plan = ctx.plans.find((p) => p.id === line.ratePlanId);
  if (!plan || plan.currency.toUpperCase() !== ctx.currency.toUpperCase()) return null;
  const changed = Date.parse(plan.updatedAt);
  const began = Date.parse(line.periodStart);
  if (Number.isNaN(changed) || Number.isNaN(began) || changed > began) return null;
  const unit = plan.metrics.find((m) => m.metricName === metricName && m.pricingModel === model);
  if (!unit) return null;
  const rate = decimal(line.rate);
  const free = decimal(line.freeUnits);
  const quantity = decimal(line.quantity);
  if (free !== null && quantity !== null) {
    if (free.gt(unit.includedFree)) return null;
    if (quantity.gt(free) && !free.eq(unit.includedFree)) return null;
  }
  return { unit: rate === null || rate.eq(unit.rate) ? unit : { ...unit, rate: line.rate as string }, period: plan.billingPeriod };
}

/** The unit as the pricing page words it, or null when the page cannot say it truthfully. */
function unitWords(line: InvoiceLine, model: PricingModel, metric: MetricLabels | undefined, ctx: LineContext): UnitDisplay | null {
  const billed = billedUnit(line, model, ctx);
  if (!billed) return null;
  try {
    return describeUnitPricing(
      { ...billed.unit, metricDisplayName: metric?.displayName ?? null, metricUnit: metric?.unit ?? null },
      ctx.currency,
      billed.period,
    );
  } catch {
    // Figures pricing cannot read (not decimals): the model's name says enough.
    return null;
  }
}

/**
 * A line's description. Usage: "API calls: $1.50 per 1,000 calls after 100,000 free", else "API
 * calls (included quota, then overage)"; a minimum-fee top-up: "API calls: Minimum $5.00/mo", else
 * "API calls: minimum fee". Any other line (entry price, proration, adjustment, discount) as the
 * API wrote it: those are sentences already.
 */
export function lineDescription(line: InvoiceLine, ctx: LineContext): string {
  if (!UNIT_LINES.has(line.type) || line.metricName === null) return line.description;
  const metric = ctx.metrics.find((m) => m.name === line.metricName);
  const label = metricLabel(line.metricName, metric?.displayName);
  const model = line.pricingModel;
  if (!isModel(model)) return line.type === 'usage' ? label : `${label}: minimum fee`;
  const words = unitWords(line, model, metric, ctx);
  if (line.type === 'minimum_fee') return words?.minimum ? `${label}: ${words.minimum}` : `${label}: minimum fee`;
  return words ? `${label}: ${words.headline}` : `${label} (${modelWords(model)})`;
}

/** A usage line that used nothing and bills nothing. Usage inside the free allowance is usage: not this. */
export function isZeroUsageLine(line: InvoiceLine): boolean {
  const quantity = line.quantity === null ? new Decimal(0) : decimal(line.quantity);
  const amount = decimal(line.amount);
  return line.type === 'usage' && quantity !== null && quantity.isZero() && amount !== null && amount.isZero();
}

/** The disclosure of the folded lines: "3 usage lines with no usage". */
export function foldedLinesText(count: number): string {
  return count === 1 ? '1 usage line with no usage' : `${count} usage lines with no usage`;
}
