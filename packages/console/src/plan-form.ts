/**
 * A rate plan as the console's form holds it (every input as the text typed), the request body it
 * sends, and the live preview of the pricing page's wording. The wording and the cross-field rules
 * are @tollgate/pricing's own (normaliseUnitPricing, describeRatePlan): the same code the hosted
 * pricing page and the server run, so the preview cannot say what the page would not. Pure.
 */
import {
  describeRatePlan,
  isCurrencyCode,
  metricLabel,
  normaliseUnitPricing,
  prefixFieldErrors,
  PRICE_RULES,
  type BillingPeriod,
  type CatalogUnitPricing,
  type FieldError,
  type PricingModel,
  type RatePlanDisplay,
  type UnitPricing,
  type UnitPricingInput,
} from '@tollgate/pricing';

export interface TierDraft {
  tierStart: string;
  /** Empty: open-ended (the last band). */
  tierEnd: string;
  unitPrice: string;
  flatFee: string;
}

export interface WeightDraft {
  status: string;
  weight: string;
}

export interface UnitDraft {
  metricName: string;
  pricingModel: PricingModel;
  rate: string;
  includedFree: string;
  blockSize: string;
  minFee: string;
  tiers: TierDraft[];
  weights: WeightDraft[];
}

export interface PlanDraft {
  name: string;
  currency: string;
  billingPeriod: BillingPeriod;
  metrics: UnitDraft[];
}

const has = (list: readonly string[], model: PricingModel) => list.includes(model);

/** Which inputs a pricing model uses: the rest are hidden and never sent (the API refuses them). */
export function fieldsOf(model: PricingModel) {
  return {
    rate: has(PRICE_RULES.modelsWithRate, model),
    includedFree: has(PRICE_RULES.modelsWithIncludedFree, model),
    blockSize: has(PRICE_RULES.modelsWithBlockSize, model),
    minFee: !has(PRICE_RULES.modelsWithoutMinFee, model),
    tiers: has(PRICE_RULES.tieredModels, model),
    tierUnitPrice: model === 'GRADUATED' || model === 'VOLUME_TIERED',
    weights: has(PRICE_RULES.modelsWithOutcomeWeights, model),
  };
}

/** The label of `rate`, which means something different per model (spec: Unit pricing). */
export function rateLabelOf(model: PricingModel): string {
  if (model === 'FLAT_RATE') return 'Fee per period';
  if (model === 'PERCENTAGE') return 'Percent of transaction value';
  if (model === 'INCLUDED_QUOTA') return 'Overage price per unit (per block with a block size)';
  return 'Price per unit';
}

export const emptyTier = (tierStart = '0'): TierDraft => ({ tierStart, tierEnd: '', unitPrice: '', flatFee: '' });

export function newUnit(metricName = '', pricingModel: PricingModel = 'PER_UNIT'): UnitDraft {
  return { metricName, pricingModel, rate: '', includedFree: '', blockSize: '', minFee: '', tiers: [emptyTier()], weights: [] };
}

export const newPlan = (): PlanDraft => ({ name: '', currency: 'USD', billingPeriod: 'MONTHLY', metrics: [newUnit()] });

/**
 * A quantity as typed: empty is absent; digits are a number; anything else is sent as typed, so
 * the API names the field it cannot read (the console does not guess what was meant).
 */
export function quantityOf(text: string): number | string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  return /^\d+(\.\d+)?$/.test(t) ? Number(t) : t;
}

const textOf = (text: string) => (text.trim() === '' ? undefined : text.trim());

type Body = Record<string, unknown>;

/** Drops the keys whose value is undefined: the API reads a missing field as "not given". */
function defined(o: Body): Body {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** One unit of the request body: only the fields its model uses. */
export function unitBody(u: UnitDraft): Body {
  const f = fieldsOf(u.pricingModel);
  return defined({
    metricName: u.metricName,
    pricingModel: u.pricingModel,
    rate: f.rate ? textOf(u.rate) : undefined,
    includedFree: f.includedFree ? quantityOf(u.includedFree) : undefined,
    blockSize: f.blockSize ? quantityOf(u.blockSize) : undefined,
    minFee: f.minFee ? textOf(u.minFee) : undefined,
    tiers: f.tiers
      ? u.tiers.map((t) =>
          defined({
            tierStart: quantityOf(t.tierStart) ?? 0,
            tierEnd: quantityOf(t.tierEnd) ?? null,
            unitPrice: f.tierUnitPrice ? textOf(t.unitPrice) : undefined,
            flatFee: textOf(t.flatFee),
          }),
        )
      : undefined,
    outcomeWeights: f.weights
      ? Object.fromEntries(u.weights.filter((w) => w.status.trim() !== '').map((w) => [w.status.trim(), quantityOf(w.weight) ?? 1]))
      : undefined,
  });
}

/** POST /api/v1/rate-plans; PATCH sends name and metrics only (currency and period are fixed once set). */
export function planBody(d: PlanDraft): Body {
  return { name: d.name.trim(), currency: d.currency.trim(), billingPeriod: d.billingPeriod, metrics: d.metrics.map(unitBody) };
}

/** The names of the form's inputs, as the API's error fields name them (body.metrics.0.tiers.1.unitPrice). */
export function planInputs(d: PlanDraft): string[] {
  const out = ['name', 'currency', 'billingPeriod', 'metrics'];
  d.metrics.forEach((u, i) => {
    const at = `metrics.${i}`;
    out.push(at, `${at}.metricName`, `${at}.metricId`, `${at}.pricingModel`, `${at}.rate`, `${at}.includedFree`, `${at}.blockSize`, `${at}.minFee`);
    out.push(`${at}.tiers`, `${at}.outcomeWeights`);
    u.tiers.forEach((_, j) => out.push(...['tierStart', 'tierEnd', 'unitPrice', 'flatFee'].map((k) => `${at}.tiers.${j}.${k}`)));
  });
  return out;
}

export interface Preview {
  /** The plan as the pricing page words it, from the units that are complete. */
  display: RatePlanDisplay | null;
  /** Why a unit is left out of the preview, by field. */
  issues: FieldError[];
}

/** What the metrics list says of a metric for people: the preview words its units with these. */
export interface MetricLabels {
  name: string;
  displayName: string | null;
  unit: string | null;
}

/**
 * The live preview: each complete unit through pricing's rules, annotated with its metric's
 * display name and unit (as the server annotates the page's units), the plan through its display
 * wording. A metric not in `metrics` (not loaded yet, or none chosen) is worded as pricing words
 * a unit without them: metricName made readable, "unit".
 */
export function previewOf(d: PlanDraft, metrics: readonly MetricLabels[] = []): Preview {
  const currency = d.currency.trim();
  if (!isCurrencyCode(currency)) return { display: null, issues: [{ field: 'currency', message: 'Enter a currency code such as USD to see the preview.' }] };
  const units: CatalogUnitPricing[] = [];
  const issues: FieldError[] = [];
  d.metrics.forEach((u, i) => {
    const name = u.metricName === '' ? `unit ${i + 1}` : u.metricName;
    // The server checks types before these rules; text left in a number's place is an issue here.
    const body = unitBody({ ...u, metricName: name });
    const typed = ['includedFree', 'blockSize'].every((k) => typeof body[k] !== 'string');
    const tiersTyped = ((body.tiers as Body[] | undefined) ?? []).every((t) => typeof t.tierStart === 'number' && typeof t.tierEnd !== 'string');
    const weightsTyped = Object.values((body.outcomeWeights as Body | undefined) ?? {}).every((w) => typeof w === 'number');
    if (!typed || !tiersTyped || !weightsTyped) {
      issues.push({ field: `metrics.${i}`, message: `${name}: a quantity or weight is not a number.` });
      return;
    }
    const checked = normaliseUnitPricing({ ...body, metricId: name, metricName: name } as unknown as UnitPricingInput, currency);
    const metric = metrics.find((m) => m.name === u.metricName);
    if (checked.ok) units.push({ ...checked.value, metricDisplayName: metric?.displayName ?? null, metricUnit: metric?.unit ?? null });
    else issues.push(...prefixFieldErrors(`metrics.${i}`, checked.errors));
  });
  return { display: describeRatePlan({ id: 'preview', name: d.name, currency, billingPeriod: d.billingPeriod, metrics: units }), issues };
}

/** A rate plan as the API answers it. */
export interface RatePlanRecord {
  id: string;
  name: string;
  currency: string;
  billingPeriod: BillingPeriod;
  version: number;
  updatedAt: string;
  /** As pricing types a unit (the API adds rating-only multipliers, which the console leaves alone). */
  metrics: UnitPricing[];
}

/** The form of a stored plan, for editing: the fields its models do not use stay empty. */
export function draftOf(p: RatePlanRecord): PlanDraft {
  return {
    name: p.name,
    currency: p.currency,
    billingPeriod: p.billingPeriod,
    metrics: p.metrics.map((m) => {
      const f = fieldsOf(m.pricingModel);
      return {
        metricName: m.metricName,
        pricingModel: m.pricingModel,
        rate: f.rate ? m.rate : '',
        includedFree: f.includedFree && m.includedFree > 0 ? String(m.includedFree) : '',
        blockSize: m.blockSize === null ? '' : String(m.blockSize),
        minFee: m.minFee ?? '',
        tiers: f.tiers
          ? m.tiers.map((t) => ({
              tierStart: String(t.tierStart),
              tierEnd: t.tierEnd === null ? '' : String(t.tierEnd),
              unitPrice: t.unitPrice ?? '',
              flatFee: t.flatFee ?? '',
            }))
          : [emptyTier()],
        weights: Object.entries(m.outcomeWeights ?? {}).map(([status, weight]) => ({ status, weight: String(weight) })),
      };
    }),
  };
}

/** The models' names in the form's select. */
export const MODEL_LABELS: Record<PricingModel, string> = {
  PER_UNIT: 'Per unit',
  FLAT_RATE: 'Flat rate per period',
  PERCENTAGE: 'Percentage of transaction value',
  INCLUDED_QUOTA: 'Included quota, then overage',
  GRADUATED: 'Graduated tiers',
  VOLUME_TIERED: 'Volume tiers',
  STAIRCASE: 'Staircase (a fee per band)',
  OUTCOME_BASED: 'Outcome-based',
};

/** A model's name inside a sentence or after a label: "API calls (included quota, then overage)". */
export function modelWords(model: PricingModel): string {
  const label = MODEL_LABELS[model];
  return label.charAt(0).toLowerCase() + label.slice(1);
}

/**
 * A billing period for people, as the pricing page's period switch words it (Monthly, Quarterly,
 * Annually); ONE_TIME, which the switch never shows, as its price suffix says it ("one-time").
 */
export function periodLabel(period: BillingPeriod): string {
  switch (period) {
    case 'MONTHLY':
      return 'Monthly';
    case 'QUARTERLY':
      return 'Quarterly';
    case 'ANNUAL':
      return 'Annually';
    case 'ONE_TIME':
      return 'One-time';
  }
}

/**
 * The metric select's options: each metric by its label, as pricing names it (its display name,
 * else its name made readable); the value is its name, which the API takes. Two metrics with one
 * label are told apart by their names. A `selected` metric the list does not hold (a stored plan's
 * metric beyond the first page loaded) is offered first, so the select can show it.
 */
export function metricChoices(metrics: readonly MetricLabels[], selected: string): Array<{ value: string; label: string }> {
  const listed = selected === '' || metrics.some((m) => m.name === selected) ? metrics : [{ name: selected, displayName: null, unit: null }, ...metrics];
  const named = listed.map((m) => ({ value: m.name, label: metricLabel(m.name, m.displayName) }));
  const shared = (label: string) => named.filter((n) => n.label === label).length > 1;
  return [{ value: '', label: 'Choose a metric' }, ...named.map((n) => (shared(n.label) ? { ...n, label: `${n.label} (${n.value})` } : n))];
}

/** A plan's units in the list of plans: "API calls (included quota, then overage), Tokens (volume tiers)". */
export function unitsText(units: ReadonlyArray<Pick<UnitPricing, 'metricName' | 'pricingModel'>>, metrics: readonly MetricLabels[]): string {
  if (units.length === 0) return 'None: contact sales';
  return units.map((u) => `${metricLabel(u.metricName, metrics.find((m) => m.name === u.metricName)?.displayName)} (${modelWords(u.pricingModel)})`).join(', ');
}

/** A unit switched to another model keeps what it typed; a tiered model gets a first band if it has none. */
export function withModel(u: UnitDraft, pricingModel: PricingModel): UnitDraft {
  return { ...u, pricingModel, tiers: u.tiers.length === 0 ? [emptyTier()] : u.tiers };
}
