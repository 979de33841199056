import { fitsMinorUnit, isCurrencyCode, minorUnitDigits } from './currency.js';
import { Decimal, isDecimalString, toDecimalText } from './decimal.js';
import {
  pricingModels,
  type CatalogUnitPricing,
  type Checked,
  type FieldError,
  type PricingModel,
  type Tier,
  type TierInput,
  type UnitOverride,
  type UnitPricingInput,
} from './types.js';

/**
 * The catalog's cross-field rules for unit pricing. The server's JSON schemas check types; these
 * functions check what a schema cannot express (which fields a model uses, tier bands, a currency's
 * minor unit) and return every broken rule at once, so an operator fixes a plan in one round trip.
 *
 * Error fields are relative to the object checked ("rate", "tiers.1.tierEnd"); callers prefix
 * them with where that object sits in the request (see prefixFieldErrors). Messages name the
 * field the same relative way.
 */

/** The pricing models whose `rate` carries a price (the others price on their tiers). */
const RATE_MODELS = ['PER_UNIT', 'FLAT_RATE', 'PERCENTAGE', 'INCLUDED_QUOTA', 'OUTCOME_BASED'] as const;
const TIERED_MODELS = ['GRADUATED', 'VOLUME_TIERED', 'STAIRCASE'] as const;
const INCLUDED_FREE_MODELS = ['PER_UNIT', 'INCLUDED_QUOTA', 'GRADUATED', 'VOLUME_TIERED', 'OUTCOME_BASED'] as const;

export type TieredModel = (typeof TIERED_MODELS)[number];

/**
 * The limits the rules below enforce, exported so the server's JSON schemas (and the docs) cite
 * the same numbers rather than copies that drift.
 */
export const PRICE_RULES = {
  /**
   * Every price and amount: at most this many significant digits (trailing zeros of the integer
   * part count, those after the point do not). Up to 15 digits survive the round trip through an
   * IEEE double exactly, which the published configuration needs for tier prices (JSON numbers).
   */
  maxSignificantDigits: 15,
  /** Per-unit prices (rate of PER_UNIT, INCLUDED_QUOTA, OUTCOME_BASED; tier unitPrice; multipliers). */
  unitPriceMaxDecimals: 12,
  /** PERCENTAGE rate: a percent from 0 to 100 with at most this many decimals ("2.9" = 2.9 %). */
  percentageMaxDecimals: 6,
  percentageMax: '100',
  /** Non-negative plain decimal text: no sign, no exponent, no leading zeros, no bare point. */
  decimalPattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$',
  maxTiers: 50,
  /** Execution statuses such as SUCCESS, PARTIAL, ERROR, TIMEOUT. */
  outcomeStatusPattern: '^[A-Z][A-Z0-9_]{0,49}$',
  maxOutcomeWeights: 50,
  outcomeWeightMin: 0,
  outcomeWeightMax: 1,
  /** Per map (toolMultipliers, endpointMultipliers). */
  maxMultipliers: 100,
  /** Counted in Unicode code points, as JSON Schema's minLength/maxLength count. */
  multiplierKeyMinLength: 1,
  multiplierKeyMaxLength: 200,
  blockSizeMin: 1,
  modelsWithRate: RATE_MODELS,
  tieredModels: TIERED_MODELS,
  modelsWithIncludedFree: INCLUDED_FREE_MODELS,
  modelsWithBlockSize: ['INCLUDED_QUOTA'],
  modelsWithOutcomeWeights: ['OUTCOME_BASED'],
  /** minFee: every model except FLAT_RATE, whose rate already is the fee per period. */
  modelsWithoutMinFee: ['FLAT_RATE'],
} as const;

const OUTCOME_STATUS = new RegExp(PRICE_RULES.outcomeStatusPattern);

function isTiered(model: PricingModel): model is TieredModel {
  return (TIERED_MODELS as readonly string[]).includes(model);
}
function hasRate(model: PricingModel): boolean {
  return (RATE_MODELS as readonly string[]).includes(model);
}
function usesIncludedFree(model: PricingModel): boolean {
  return (INCLUDED_FREE_MODELS as readonly string[]).includes(model);
}

/** A value as it appears in a message: strings quoted, so "" and "0" are visible as such. */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number') return String(value);
  // Only a symbol or a function reaches String(): JSON has no text for them.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  return JSON.stringify(value) ?? String(value);
}

/** Absent in the JSON sense: a field left out or sent as null means the same thing here. */
function absent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

/**
 * Parses non-negative plain decimal text. isDecimalString admits a sign ("-0.5", even "-0");
 * catalog prices are never negative, so any sign is refused rather than normalised away.
 */
function parseNonNegative(value: unknown): Decimal | null {
  if (typeof value !== 'string' || !isDecimalString(value) || value.startsWith('-')) return null;
  return new Decimal(value);
}

function notDecimal(field: string, value: unknown, example: string, role: string): FieldError {
  return {
    field,
    message: `${field} must be a non-negative decimal as text, such as "${example}" (${role}); no sign, no exponent; got ${show(value)}.`,
  };
}

function tooManyDigits(field: string, d: Decimal): FieldError | null {
  const digits = d.sd(true);
  if (digits <= PRICE_RULES.maxSignificantDigits) return null;
  return {
    field,
    message: `${field} has ${digits} significant digits; prices allow at most ${PRICE_RULES.maxSignificantDigits} so the published JSON number is exact: round it.`,
  };
}

/** A per-unit price: at most 12 decimals, at most 15 significant digits. */
function unitPriceError(value: unknown, field: string, role: string, example = '0.002'): FieldError | null {
  const d = parseNonNegative(value);
  if (!d) return notDecimal(field, value, example, role);
  const places = d.decimalPlaces();
  if (places > PRICE_RULES.unitPriceMaxDecimals) {
    return {
      field,
      message: `${field} has ${places} decimal places; ${role} allows at most ${PRICE_RULES.unitPriceMaxDecimals}: round it to ${PRICE_RULES.unitPriceMaxDecimals}.`,
    };
  }
  return tooManyDigits(field, d);
}

/**
 * A per-period amount: it is charged as is, so it must already be a whole number of the
 * currency's minor unit. `currency` null: the currency is unknown (reported elsewhere), so only
 * the text and its digits are checked.
 */
function periodAmountError(value: unknown, field: string, currency: string | null, role: string): FieldError | null {
  const d = parseNonNegative(value);
  if (!d) return notDecimal(field, value, '49.00', role);
  if (currency !== null && !fitsMinorUnit(value as string, currency)) {
    const digits = minorUnitDigits(currency);
    const rule =
      digits === 0
        ? `${currency} has no minor unit, so it must be a whole amount`
        : `it must fit the ${currency} minor unit: at most ${digits} decimal place${digits === 1 ? '' : 's'}`;
    return { field, message: `${field} (${role}) is charged as is, so ${rule}; got ${show(value)}: round it.` };
  }
  return tooManyDigits(field, d);
}

/**
 * Checks a per-period amount (entryPrice, minFee, a tier's flatFee, a FLAT_RATE rate): a
 * non-negative plain decimal that fits the currency's minor unit, with at most 15 significant
 * digits. Returns null when it is valid.
 */
export function checkPeriodAmount(value: string, currency: string, field: string): FieldError | null {
  if (!isCurrencyCode(currency)) {
    return {
      field,
      message: `${field} cannot be checked: the currency ${show(currency)} is not a known ISO 4217 code (such as "USD"); fix the currency first.`,
    };
  }
  return periodAmountError(value, field, currency, 'an amount per period');
}

/**
 * Checks a per-unit price (a rate per unit, a tier's unitPrice, a multiplier): a non-negative
 * plain decimal with at most 12 decimals and 15 significant digits. Returns null when valid.
 */
export function checkUnitRate(value: string, field: string): FieldError | null {
  return unitPriceError(value, field, 'a per-unit price');
}

/** What `rate` means per model, for "required" messages, with an example value. */
const RATE_MEANING: Record<(typeof RATE_MODELS)[number], { meaning: string; example: string }> = {
  PER_UNIT: { meaning: 'the price per unit', example: '0.002' },
  FLAT_RATE: { meaning: 'the fee per billing period', example: '49.00' },
  PERCENTAGE: { meaning: 'the percent of the transaction value, from 0 to 100', example: '2.9' },
  INCLUDED_QUOTA: { meaning: 'the overage price per unit beyond includedFree (per block when blockSize is set)', example: '0.01' },
  OUTCOME_BASED: { meaning: 'the price per unit before outcome weights', example: '0.05' },
};

/**
 * The rate rules of a model that carries a price in `rate` (shared by units and overrides).
 * Returns the canonical text ("0.0020" -> "0.002") or the broken rule.
 */
function checkModelRate(
  model: (typeof RATE_MODELS)[number],
  value: unknown,
  currency: string | null,
): { ok: true; value: string } | { ok: false; error: FieldError } {
  const { meaning, example } = RATE_MEANING[model];
  if (absent(value) || value === '') {
    return { ok: false, error: { field: 'rate', message: `rate is required for ${model}: it is ${meaning}; send it as decimal text such as "${example}".` } };
  }
  let error: FieldError | null;
  if (model === 'FLAT_RATE') {
    error = periodAmountError(value, 'rate', currency, `${model}: ${meaning}`);
  } else if (model === 'PERCENTAGE') {
    error = percentageError(value);
  } else {
    error = unitPriceError(value, 'rate', `${model}: ${meaning}`, example);
  }
  if (error) return { ok: false, error };
  return { ok: true, value: toDecimalText(new Decimal(value as string)) };
}

function percentageError(value: unknown): FieldError | null {
  const d = parseNonNegative(value);
  if (!d) return notDecimal('rate', value, '2.9', 'PERCENTAGE: a percent of the transaction value');
  if (d.gt(PRICE_RULES.percentageMax)) {
    return { field: 'rate', message: `rate of PERCENTAGE is a percent, from 0 to ${PRICE_RULES.percentageMax} ("2.9" means 2.9 %); got ${show(value)}.` };
  }
  const places = d.decimalPlaces();
  if (places > PRICE_RULES.percentageMaxDecimals) {
    return {
      field: 'rate',
      message: `rate of PERCENTAGE has ${places} decimal places; a percent allows at most ${PRICE_RULES.percentageMaxDecimals}: round it to ${PRICE_RULES.percentageMaxDecimals}.`,
    };
  }
  return null;
}

/** Why a model has no free units, for includedFree messages. */
const NO_INCLUDED_FREE_WHY: Record<string, string> = {
  FLAT_RATE: 'it charges a fixed fee per period whatever the usage',
  PERCENTAGE: 'it charges a percent of every transaction value',
  STAIRCASE: 'for a free allowance give its first tier a flatFee of "0"',
};

function includedFreeError(value: unknown, field: string): FieldError | null {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return null;
  return { field, message: `${field} must be a finite number >= 0 (the free units per period); got ${show(value)}.` };
}

/** -0 passes `>= 0`; keep it out of the output so it compares and serialises as plain 0. */
function plainZero(n: number): number {
  return n === 0 ? 0 : n;
}

/**
 * Checks the tiers of a tiered model and returns fresh, normalised copies. Rules:
 * - between 1 and PRICE_RULES.maxTiers tiers, sorted by tierStart;
 * - tierStart and tierEnd finite numbers >= 0, tierEnd > tierStart;
 * - the bands are contiguous from 0: the first starts at 0 and each starts where the previous
 *   ends (a band covers quantities above tierStart up to and including tierEnd);
 * - the last band is open-ended (tierEnd null) and only the last. Requiring the open end, rather
 *   than pricing quantities past the last tierEnd by some implicit rule, means every quantity
 *   lands in exactly one band and the published tiers alone explain every charge;
 * - GRADUATED, VOLUME_TIERED: unitPrice required (per-unit price), flatFee optional (per-period
 *   amount, null when absent); STAIRCASE: flatFee required, unitPrice null.
 * Error fields are "tiers" or "tiers.<index>.<field>".
 */
export function checkTiers(tiers: readonly TierInput[] | null | undefined, model: TieredModel, currency: string): Checked<Tier[]> {
  const known = isCurrencyCode(currency) ? currency : null;
  const errors: FieldError[] = [];
  if (known === null) {
    errors.push({
      field: 'currency',
      message: `the currency ${show(currency)} is not a known ISO 4217 code (such as "USD"), so tier fees cannot be checked against its minor unit; fix the currency.`,
    });
  }
  const result = tierRules(tiers, model, known);
  errors.push(...result.errors);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: result.tiers };
}

function tierRules(raw: unknown, model: TieredModel, currency: string | null): { tiers: Tier[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const example = model === 'STAIRCASE' ? '[{"tierStart":0,"tierEnd":null,"flatFee":"49.00"}]' : '[{"tierStart":0,"tierEnd":null,"unitPrice":"0.01"}]';
  if (!Array.isArray(raw) || raw.length === 0) {
    errors.push({ field: 'tiers', message: `${model} needs at least one tier: its prices are on the tiers, e.g. ${example}.` });
    return { tiers: [], errors };
  }
  if (raw.length > PRICE_RULES.maxTiers) {
    errors.push({ field: 'tiers', message: `tiers has ${raw.length} bands; at most ${PRICE_RULES.maxTiers} are allowed: merge some bands.` });
  }

  const tiers: Tier[] = [];
  // Bounds that passed their own checks, so the band rules below compare only real numbers.
  const starts: (number | null)[] = [];
  const ends: (number | null | undefined)[] = []; // undefined: invalid
  const last = raw.length - 1;

  raw.forEach((item: unknown, i) => {
    const at = `tiers.${i}`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      errors.push({ field: at, message: `${at} must be an object {tierStart, tierEnd, ...}; got ${show(item)}.` });
      starts.push(null);
      ends.push(undefined);
      return;
    }
    const t = item as TierInput;

    let start: number | null = null;
    if (typeof t.tierStart === 'number' && Number.isFinite(t.tierStart) && t.tierStart >= 0) {
      start = plainZero(t.tierStart);
    } else {
      errors.push({
        field: `${at}.tierStart`,
        message: `${at}.tierStart must be a finite number >= 0 (the band covers quantities above it); got ${show(t.tierStart)}.`,
      });
    }
    starts.push(start);

    let end: number | null | undefined;
    if (absent(t.tierEnd)) {
      end = null;
    } else if (typeof t.tierEnd === 'number' && Number.isFinite(t.tierEnd) && t.tierEnd >= 0) {
      end = plainZero(t.tierEnd);
    } else {
      errors.push({
        field: `${at}.tierEnd`,
        message: `${at}.tierEnd must be a finite number >= 0, or null for the open-ended last band; got ${show(t.tierEnd)}.`,
      });
    }
    ends.push(end);

    if (typeof end === 'number' && start !== null && end <= start) {
      errors.push({
        field: `${at}.tierEnd`,
        message: `${at}.tierEnd (${end}) must be greater than its tierStart (${start}): a band covers quantities above tierStart up to and including tierEnd.`,
      });
    }
    if (end === null && i < last) {
      errors.push({
        field: `${at}.tierEnd`,
        message: `only the last tier may be open-ended: ${at}.tierEnd is null but tiers.${i + 1} follows; set it to where tiers.${i + 1} starts.`,
      });
    }
    if (typeof end === 'number' && i === last) {
      errors.push({
        field: `${at}.tierEnd`,
        message: `the last tier must be open-ended so every quantity lands in a band: set ${at}.tierEnd to null (it is ${end}).`,
      });
    }

    let unitPrice: string | null = null;
    let flatFee: string | null = null;
    if (model === 'STAIRCASE') {
      if (!absent(t.unitPrice)) {
        errors.push({
          field: `${at}.unitPrice`,
          message: `unitPrice is not used by STAIRCASE: each band charges its flatFee whatever the quantity in it; omit ${at}.unitPrice or send null.`,
        });
      }
      if (absent(t.flatFee) || t.flatFee === '') {
        errors.push({
          field: `${at}.flatFee`,
          message: `STAIRCASE tiers need a flatFee: ${at}.flatFee is the charge when the quantity lands in this band, e.g. "49.00"; send "0" for a free band.`,
        });
      } else {
        const e = periodAmountError(t.flatFee, `${at}.flatFee`, currency, 'STAIRCASE: the charge for the band');
        if (e) errors.push(e);
        else flatFee = toDecimalText(new Decimal(t.flatFee));
      }
    } else {
      if (absent(t.unitPrice) || t.unitPrice === '') {
        errors.push({
          field: `${at}.unitPrice`,
          message: `${model} tiers need a unitPrice: ${at}.unitPrice is the price per unit in this band, e.g. "0.01"; send "0" for a free band.`,
        });
      } else {
        const e = unitPriceError(t.unitPrice, `${at}.unitPrice`, `${model}: a per-unit price`, '0.01');
        if (e) errors.push(e);
        else unitPrice = toDecimalText(new Decimal(t.unitPrice));
      }
      if (!absent(t.flatFee)) {
        const e = periodAmountError(t.flatFee, `${at}.flatFee`, currency, `${model}: charged once when the band is entered`);
        if (e) errors.push(e);
        else flatFee = toDecimalText(new Decimal(t.flatFee));
      }
    }
    tiers.push({ tierStart: start ?? 0, tierEnd: end ?? null, unitPrice, flatFee });
  });

  // Band layout. Out of order, the gap/overlap arithmetic would describe pairs the operator
  // did not mean as neighbours, so say only that the order is wrong.
  for (let i = 1; i < starts.length; i++) {
    const prev = starts[i - 1];
    const cur = starts[i];
    if (prev != null && cur != null && cur < prev) {
      errors.push({
        field: 'tiers',
        message: `tiers must be sorted by tierStart: tiers.${i} starts at ${cur}, before tiers.${i - 1} (${prev}); send the bands in ascending order.`,
      });
      return { tiers, errors };
    }
  }
  const first = starts[0];
  if (first != null && first !== 0) {
    errors.push({
      field: 'tiers.0.tierStart',
      message: `the first tier must start at 0 so every quantity lands in a band; tiers.0.tierStart is ${first}: set it to 0.`,
    });
  }
  for (let i = 1; i < starts.length; i++) {
    const prevEnd = ends[i - 1];
    const start = starts[i];
    // A null previous end is already reported as "only the last tier may be open-ended".
    if (typeof prevEnd !== 'number' || start == null) continue;
    if (start > prevEnd) {
      errors.push({
        field: `tiers.${i}.tierStart`,
        message: `gap between tiers: tiers.${i - 1} ends at ${prevEnd} but tiers.${i} starts at ${start}, so quantities above ${prevEnd} up to ${start} land in no band; set tiers.${i}.tierStart to ${prevEnd}.`,
      });
    } else if (start < prevEnd) {
      errors.push({
        field: `tiers.${i}.tierStart`,
        message: `overlap between tiers: tiers.${i} starts at ${start} but tiers.${i - 1} ends at ${prevEnd}, so quantities above ${start} up to ${prevEnd} fall in both; set tiers.${i}.tierStart to ${prevEnd}.`,
      });
    }
  }
  return { tiers, errors };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Multiplier maps. Object.fromEntries defines own properties, so a key such as "__proto__" stays
 * a key of the copy instead of changing its prototype.
 */
function multiplierRules(name: 'toolMultipliers' | 'endpointMultipliers', raw: unknown, errors: FieldError[]): Record<string, string> {
  if (absent(raw)) return {};
  const what = name === 'toolMultipliers' ? 'tool' : 'endpoint';
  if (!isPlainObject(raw)) {
    errors.push({ field: name, message: `${name} must be an object mapping a ${what} name to a factor such as "1.5"; got ${show(raw)}.` });
    return {};
  }
  const entries = Object.entries(raw);
  if (entries.length > PRICE_RULES.maxMultipliers) {
    errors.push({ field: name, message: `${name} has ${entries.length} entries; at most ${PRICE_RULES.maxMultipliers} are allowed.` });
  }
  const out: [string, string][] = [];
  for (const [key, value] of entries) {
    const field = `${name}.${key}`;
    const length = [...key].length;
    if (length < PRICE_RULES.multiplierKeyMinLength || length > PRICE_RULES.multiplierKeyMaxLength) {
      errors.push({
        field,
        message: `${name} keys are ${what} names of ${PRICE_RULES.multiplierKeyMinLength} to ${PRICE_RULES.multiplierKeyMaxLength} characters; got one of ${length}.`,
      });
      continue;
    }
    const e = unitPriceError(value, field, `the factor usage with this ${what} counts at; "0" makes it free`, '1.5');
    if (e) errors.push(e);
    else out.push([key, toDecimalText(new Decimal(value as string))]);
  }
  return Object.fromEntries(out);
}

function outcomeWeightRules(raw: unknown, errors: FieldError[]): Record<string, number> {
  if (absent(raw)) return {};
  if (!isPlainObject(raw)) {
    errors.push({
      field: 'outcomeWeights',
      message: `outcomeWeights must be an object mapping an execution status to a weight, e.g. {"ERROR": 0}; got ${show(raw)}.`,
    });
    return {};
  }
  const entries = Object.entries(raw);
  if (entries.length > PRICE_RULES.maxOutcomeWeights) {
    errors.push({ field: 'outcomeWeights', message: `outcomeWeights has ${entries.length} statuses; at most ${PRICE_RULES.maxOutcomeWeights} are allowed.` });
  }
  const out: [string, number][] = [];
  for (const [key, value] of entries) {
    const field = `outcomeWeights.${key}`;
    if (!OUTCOME_STATUS.test(key)) {
      errors.push({
        field,
        message: `outcomeWeights key ${show(key)} is not an execution status: use upper-case letters, digits and _, starting with a letter, at most 50 characters (e.g. SUCCESS, PARTIAL, ERROR, TIMEOUT).`,
      });
      continue;
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < PRICE_RULES.outcomeWeightMin || value > PRICE_RULES.outcomeWeightMax) {
      errors.push({
        field,
        message: `${field} must be a number from 0 to 1: the share of a unit billed for that status (unlisted statuses bill at 1); got ${show(value)}.`,
      });
      continue;
    }
    out.push([key, plainZero(value)]);
  }
  return Object.fromEntries(out);
}

function currencyRules(unitCurrency: unknown, planCurrency: string, errors: FieldError[]): string | null {
  const planKnown = isCurrencyCode(planCurrency);
  if (!planKnown) {
    errors.push({
      field: 'currency',
      message: `the plan's currency ${show(planCurrency)} is not a known ISO 4217 code (such as "USD"), so amounts cannot be checked against its minor unit; fix the plan's currency.`,
    });
  }
  if (!absent(unitCurrency)) {
    const fix = planKnown ? `omit currency or send "${planCurrency}"` : 'omit currency';
    if (typeof unitCurrency !== 'string' || !isCurrencyCode(unitCurrency)) {
      errors.push({ field: 'currency', message: `currency ${show(unitCurrency)} is not a known ISO 4217 code; a plan's units share its currency: ${fix}.` });
    } else if (unitCurrency !== planCurrency) {
      errors.push({
        field: 'currency',
        message: `currency ${show(unitCurrency)} differs from the plan's ${show(planCurrency)}: a plan's units share its currency; ${fix}.`,
      });
    }
  }
  return planKnown ? planCurrency : null;
}

/**
 * Applies the catalog's cross-field rules to one unit of a rate plan and returns either the
 * normalised unit (defaults filled in, decimal texts canonical, fresh copies of every array and
 * object) or every broken rule, with fields relative to the unit.
 */
export function normaliseUnitPricing(input: UnitPricingInput, planCurrency: string): Checked<CatalogUnitPricing> {
  const errors: FieldError[] = [];
  const currency = currencyRules(input.currency, planCurrency, errors);
  const model = input.pricingModel;
  if (!(pricingModels as readonly string[]).includes(model)) {
    // Every other rule depends on the model; checking them against a guess would mislead.
    errors.push({ field: 'pricingModel', message: `pricingModel ${show(model)} is not a pricing model; use one of ${pricingModels.join(', ')}.` });
    return { ok: false, errors };
  }

  // rate
  let rate = '0';
  if (isTiered(model)) {
    const zero = parseNonNegative(input.rate);
    if (!absent(input.rate) && !(zero && zero.isZero())) {
      errors.push({ field: 'rate', message: `rate is not used by ${model}: prices are on its tiers; omit rate or send "0".` });
    }
  } else {
    const r = checkModelRate(model, input.rate, currency);
    if (r.ok) rate = r.value;
    else errors.push(r.error);
  }

  // includedFree
  let includedFree = 0;
  if (!absent(input.includedFree)) {
    const e = includedFreeError(input.includedFree, 'includedFree');
    if (e) {
      errors.push(e);
    } else if (!usesIncludedFree(model) && input.includedFree !== 0) {
      errors.push({
        field: 'includedFree',
        message: `includedFree is not used by ${model}: ${NO_INCLUDED_FREE_WHY[model]}; omit includedFree or send 0.`,
      });
    } else {
      includedFree = plainZero(input.includedFree);
    }
  }

  // blockSize
  let blockSize: number | null = null;
  if (!absent(input.blockSize)) {
    if (model !== 'INCLUDED_QUOTA') {
      errors.push({
        field: 'blockSize',
        message: `blockSize is used only by INCLUDED_QUOTA (overage billed in whole blocks); ${model} does not bill in blocks: omit blockSize or send null.`,
      });
    } else if (!Number.isSafeInteger(input.blockSize) || input.blockSize < PRICE_RULES.blockSizeMin) {
      errors.push({
        field: 'blockSize',
        message: `blockSize must be a whole number >= 1 (the units per overage block, rate being per block), or null to bill overage per unit; got ${show(input.blockSize)}.`,
      });
    } else {
      blockSize = input.blockSize;
    }
  }

  // minFee
  let minFee: string | null = null;
  if (!absent(input.minFee)) {
    if (model === 'FLAT_RATE') {
      errors.push({ field: 'minFee', message: 'minFee is not used by FLAT_RATE: its rate already is the fee per period; omit minFee or send null.' });
    } else {
      const e = periodAmountError(input.minFee, 'minFee', currency, 'the minimum charge per period');
      if (e) errors.push(e);
      else minFee = toDecimalText(new Decimal(input.minFee));
    }
  }

  // tiers
  let tiers: Tier[] = [];
  if (isTiered(model)) {
    const t = tierRules(input.tiers, model, currency);
    tiers = t.tiers;
    errors.push(...t.errors);
  } else if (!absent(input.tiers) && !(Array.isArray(input.tiers) && input.tiers.length === 0)) {
    errors.push({
      field: 'tiers',
      message: `tiers are used only by ${TIERED_MODELS.join(', ')}; ${model} prices with rate: omit tiers or send [].`,
    });
  }

  // outcomeWeights
  let outcomeWeights: Record<string, number> | null = null;
  if (model === 'OUTCOME_BASED') {
    outcomeWeights = outcomeWeightRules(input.outcomeWeights, errors);
  } else if (!absent(input.outcomeWeights)) {
    errors.push({
      field: 'outcomeWeights',
      message: `outcomeWeights is used only by OUTCOME_BASED; ${model} bills every unit alike whatever its status: omit outcomeWeights or send null.`,
    });
  }

  const tools = multiplierRules('toolMultipliers', input.toolMultipliers, errors);
  const endpoints = multiplierRules('endpointMultipliers', input.endpointMultipliers, errors);

  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      metricId: input.metricId,
      metricName: input.metricName,
      pricingModel: model,
      rate,
      includedFree,
      blockSize,
      minFee,
      tiers,
      outcomeWeights,
      multipliers: { tools, endpoints },
    },
  };
}

/**
 * Checks an offering's override of one (already normalised) unit. Only what the unit's model
 * uses can be overridden, and a rate follows the unit's rate rules. An override with neither
 * field is reported on field "" (the override as a whole).
 */
export function normaliseOverride(input: { includedFree?: number; rate?: string }, unit: CatalogUnitPricing, currency: string): Checked<UnitOverride> {
  const errors: FieldError[] = [];
  const model = unit.pricingModel;
  const out: UnitOverride = {};
  // null is treated like an omitted field, as everywhere in the catalog's JSON.
  const includedFree: unknown = input.includedFree;
  const rate: unknown = input.rate;

  if (!hasRate(model) && !usesIncludedFree(model)) {
    return {
      ok: false,
      errors: [
        {
          field: '',
          message: `${model} has nothing an override can change: it has no rate and no includedFree, its prices are on its tiers; use another rate plan instead.`,
        },
      ],
    };
  }
  if (absent(includedFree) && absent(rate)) {
    errors.push({ field: '', message: 'an override must change includedFree, rate or both, and this one has neither: set one or remove the override.' });
  }

  if (!absent(includedFree)) {
    if (!usesIncludedFree(model)) {
      errors.push({
        field: 'includedFree',
        message: `includedFree cannot be overridden on ${model}: ${NO_INCLUDED_FREE_WHY[model]}; override rate instead.`,
      });
    } else {
      const e = includedFreeError(includedFree, 'includedFree');
      if (e) errors.push(e);
      else out.includedFree = plainZero(includedFree as number);
    }
  }

  if (!absent(rate)) {
    if (!hasRate(model)) {
      errors.push({
        field: 'rate',
        message: `rate cannot be overridden on ${model}: its prices are on its tiers; override includedFree, or use another rate plan.`,
      });
    } else {
      const known = isCurrencyCode(currency) ? currency : null;
      if (model === 'FLAT_RATE' && known === null) {
        // Only a FLAT_RATE rate depends on the currency (its minor unit). The override has no
        // currency field of its own, so the problem is reported on the rate it blocks.
        errors.push({
          field: 'rate',
          message: `rate of FLAT_RATE cannot be checked: the currency ${show(currency)} is not a known ISO 4217 code (such as "USD"), so its minor unit is unknown; fix the plan's currency.`,
        });
      } else {
        const checked = checkModelRate(model as (typeof RATE_MODELS)[number], rate, known);
        if (checked.ok) out.rate = checked.value;
        else errors.push(checked.error);
      }
    }
  }

  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: out };
}

/**
 * Places errors under the path of the object that was checked: prefix "body.metrics.2" turns
 * "tiers.0.tierEnd" into "body.metrics.2.tiers.0.tierEnd" and "" into "body.metrics.2".
 */
export function prefixFieldErrors(prefix: string, errors: readonly FieldError[]): FieldError[] {
  return errors.map((e) => ({ field: e.field === '' ? prefix : prefix === '' ? e.field : `${prefix}.${e.field}`, message: e.message }));
}
