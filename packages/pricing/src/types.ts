/**
 * The catalog's pricing shapes, as the headless configuration publishes them (spec: Rate plan,
 * Unit pricing, Tier), plus what only rating sees (multipliers, offering overrides).
 *
 * Prices and amounts are decimal strings, never JS numbers, except where the spec fixes a
 * number: tier unitPrice and flatFee in the published configuration, which the server converts
 * at the edge (catalog prices are limited to 15 significant digits, so the number is exact).
 */

export const pricingModels = ['PER_UNIT', 'FLAT_RATE', 'PERCENTAGE', 'INCLUDED_QUOTA', 'GRADUATED', 'VOLUME_TIERED', 'STAIRCASE', 'OUTCOME_BASED'] as const;
export type PricingModel = (typeof pricingModels)[number];

export const billingPeriods = ['MONTHLY', 'QUARTERLY', 'ANNUAL', 'ONE_TIME'] as const;
export type BillingPeriod = (typeof billingPeriods)[number];

/** Statuses the spec shows for OUTCOME_BASED; others may be configured too. */
export const outcomeStatuses = ['SUCCESS', 'PARTIAL', 'ERROR', 'TIMEOUT'] as const;

/**
 * A band of a tiered price. A band covers quantities above tierStart up to and including
 * tierEnd (null: no end). The first band starts at 0, each next band starts where the previous
 * ends, and only the last is open-ended.
 */
export interface Tier {
  tierStart: number;
  tierEnd: number | null;
  /** Decimal text; null where the model has no per-unit part (STAIRCASE). */
  unitPrice: string | null;
  /** Decimal text; GRADUATED and VOLUME_TIERED: once per band entered; STAIRCASE: the charge. */
  flatFee: string | null;
}

/** How one billable unit is priced on a rate plan (spec: ratePlans[].metrics[]). */
export interface UnitPricing {
  metricId: string;
  metricName: string;
  pricingModel: PricingModel;
  /** Price per unit; FLAT_RATE: fee per period; PERCENTAGE: percent ("2.9"); "0" for tiered models. */
  rate: string;
  /** Free units each period; 0 when none. */
  includedFree: number;
  /** INCLUDED_QUOTA: overage billed in whole blocks of this many units, rate per block; null: per unit. */
  blockSize: number | null;
  /** Minimum charge per period for this unit (decimal text), or null. */
  minFee: string | null;
  /** Sorted by tierStart; empty for models without tiers. */
  tiers: Tier[];
  /** OUTCOME_BASED only: execution status -> weight from 0 to 1; unlisted statuses bill at 1. */
  outcomeWeights: Record<string, number> | null;
  /**
   * Display only, from the metric (not in the spec's unit; the headless configuration adds them
   * as extra fields): its name for people ("API calls") and its unit, singular ("call"). Absent
   * or null: surfaces fall back to metricName made readable and to "unit".
   */
  metricDisplayName?: string | null;
  metricUnit?: string | null;
}

/**
 * Rating-only factors (never published): usage carrying `metadata.tool` or `metadata.endpoint`
 * equal to a key counts as quantity x factor. Factors are decimal text >= 0.
 */
export interface Multipliers {
  tools: Record<string, string>;
  endpoints: Record<string, string>;
}

/** An offering's change to one unit of one of its rate plans; it applies to that offering only. */
export interface UnitOverride {
  /** Replaces includedFree (the quota). */
  includedFree?: number;
  /** Replaces rate (the overage rate, or price per unit). */
  rate?: string;
}

/**
 * Usage of one unit in one period, summed per distinct rating dimension. Events without these
 * metadata fields form one group with all three null.
 */
export interface UsageGroup {
  /** Exact decimal text, the sum of the events' quantities (PERCENTAGE: transaction value). */
  quantity: string;
  /** metadata.executionStatus of the events (OUTCOME_BASED weights). */
  executionStatus: string | null;
  /** metadata.tool (per-tool multipliers). */
  tool: string | null;
  /** metadata.endpoint (per-endpoint multipliers). */
  endpoint: string | null;
}

export interface RateUnitInput {
  pricing: UnitPricing;
  /** ISO 4217 code: decides the minor unit the line is rounded to. */
  currency: string;
  usage: readonly UsageGroup[];
  multipliers?: Multipliers | null;
  override?: UnitOverride | null;
}

/** One band's share of a tiered charge (GRADUATED: every band entered; others: the band landed in). */
export interface BandCharge {
  tierStart: number;
  tierEnd: number | null;
  /** Units billed in this band (decimal text). */
  quantity: string;
  /** Exact, unrounded (decimal text). */
  amount: string;
}

/** The charge for one unit in one period: one invoice line, rounded once. */
export interface UnitCharge {
  metricName: string;
  pricingModel: PricingModel;
  /** Units after multipliers (PERCENTAGE: transaction value). Decimal text. */
  quantity: string;
  /** Units the free allowance covered. Decimal text. */
  freeUnits: string;
  /**
   * Units charged for after the allowance. OUTCOME_BASED: outcome-weighted units;
   * INCLUDED_QUOTA with blockSize: before rounding up to blocks (see `blocks`).
   */
  billableQuantity: string;
  /** INCLUDED_QUOTA with a blockSize: whole blocks billed; otherwise null. */
  blocks: string | null;
  /** The rate after any override (decimal text). */
  rate: string;
  /** The included free units after any override. */
  includedFree: number;
  bands: BandCharge[];
  /** The usage charge before the minimum fee, exact and unrounded. */
  exactAmount: string;
  /** The usage charge rounded to the currency's minor unit (half up). */
  amount: string;
  /** What the minimum fee adds: max(0, minFee - amount), in minor units; "0" without a minFee. */
  minimumFeeTopUp: string;
  /** amount + minimumFeeTopUp. */
  total: string;
}

/** A published rate plan (spec: Rate plan). The plan-level model fields repeat metrics[0]. */
export interface RatePlan {
  id: string;
  name: string;
  currency: string;
  billingPeriod: BillingPeriod;
  metrics: UnitPricing[];
}

/** A published offering (spec: Offering). Overrides are not published. */
export interface Offering {
  id: string;
  name: string;
  billingMode: 'POSTPAID' | 'PREPAID';
  currency: string;
  /** Fixed price per billing period (decimal text); null when usage-only. */
  entryPrice: string | null;
  billingPeriod: BillingPeriod;
  trialDays: number;
  ratePlanIds: string[];
}

/** A tier as the operator API accepts it; prices as decimal text. */
export interface TierInput {
  tierStart: number;
  tierEnd: number | null;
  unitPrice?: string | null;
  flatFee?: string | null;
}

/**
 * One unit of a rate plan as the operator API accepts it, after the JSON schema checked the
 * types and the server resolved the metric. normaliseUnitPricing() applies the cross-field rules.
 */
export interface UnitPricingInput {
  metricId: string;
  metricName: string;
  pricingModel: PricingModel;
  /** When given, must equal the plan's currency. */
  currency?: string;
  rate?: string;
  includedFree?: number | null;
  blockSize?: number | null;
  minFee?: string | null;
  tiers?: TierInput[] | null;
  outcomeWeights?: Record<string, number> | null;
  toolMultipliers?: Record<string, string> | null;
  endpointMultipliers?: Record<string, string> | null;
}

/** A catalog unit: what is published plus what only rating sees. */
export interface CatalogUnitPricing extends UnitPricing {
  multipliers: Multipliers;
}

/** A rule broken by an input, named by its path relative to the object checked ("tiers.1.tierEnd"). */
export interface FieldError {
  field: string;
  message: string;
}

export type Checked<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };
