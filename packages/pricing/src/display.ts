/**
 * Display wording for prices: the spec's "Client display rules" (interface spec, Unit pricing),
 * so the hosted pricing page, the embeddable widget and the server all show the same text.
 *
 * Why this file is careful:
 * - It runs in Node and in browsers, so it is pure: no I/O, no `node:` imports, no clock, no
 *   randomness. The only host facility used is Intl, and only to learn a currency's symbol.
 * - Browsers ship different ICU versions, so the digits are never left to Intl: they are produced
 *   here from the exact decimal text with Decimal (rounding half up), and grouped by hand.
 * - Amounts never pass through a JS number: a float would show 0.1 + 0.2 style artefacts and
 *   would round ties the binary way instead of half up.
 */
import type { BillingPeriod, Offering, PricingModel, RatePlan, Tier, UnitPricing } from './types.js';
import { outcomeStatuses } from './types.js';
import { Decimal } from './decimal.js';
import { comparePerMonth, monthsPerPeriod } from './periods.js';

/** Text meant for a person. A named alias so every formatter's return type says what it is. */
export type DisplayText = string;

/** The period suffixes of the spec. ONE_TIME carries its own leading space ("$49.00 one-time"). */
export type PeriodSuffix = '/mo' | '/qtr' | '/yr' | ' one-time';

/** How many decimals a money amount shows: at least the minimum, at most the maximum. */
export interface MoneyFormatOptions {
  minimumFractionDigits: number;
  maximumFractionDigits: number;
}

/** One band of a tier table, ready to render. */
export interface TierRow {
  /**
   * The band in words. A band covers quantities above tierStart up to and including tierEnd.
   * GRADUATED (each unit priced by the band it falls in, so the reader thinks in slices):
   *   "First 1,000", "Next 9,000", "Over 10,000"; a single open band from 0: "All units".
   * VOLUME_TIERED and STAIRCASE (the total lands in one band, so the reader thinks in totals):
   *   "Up to 1,000", "Over 1,000 up to 10,000", "Over 10,000"; a single open band: "Any quantity".
   * "Over" and "up to" say which end is inside the band, which "1,000 – 10,000" would not.
   */
  range: DisplayText;
  tierStart: number;
  tierEnd: number | null;
  /** Per-unit rate (four to six decimals), or null where the band has none (STAIRCASE). */
  unitPrice: DisplayText | null;
  /** The band's flat fee as a per-period amount (two decimals, no suffix: the headline has it), or null. */
  flatFee: DisplayText | null;
}

/** One OUTCOME_BASED weight, ready to render. */
export interface WeightRow {
  status: string;
  /** The status for people: "SUCCESS" -> "Success", "RATE_LIMITED" -> "Rate limited". */
  statusText: DisplayText;
  weight: number;
  /** "free" (0), "half price" (0.5), "full price" (1), otherwise "25% of price". */
  label: DisplayText;
}

/** Everything a surface shows for one billable unit of a rate plan. */
export interface UnitDisplay {
  metricId: string;
  /** Not a display label (spec): surfaces show `label`; kept so they can map it themselves. */
  metricName: string;
  /** The metric's display name ("API calls"), else metricName made readable ("Api calls"). */
  label: DisplayText;
  /** What one unit is called, singular and plural ("call", "calls"); "unit" without a metric unit. */
  unitName: UnitName;
  pricingModel: PricingModel;
  /** The one-line price in the spec's wording, e.g. "$0.0020 / call after 1,000 free". */
  headline: DisplayText;
  /** GRADUATED, VOLUME_TIERED, STAIRCASE: the tier table; null for other models. */
  tiers: TierRow[] | null;
  /** The tier table's column headings, with the unit's name; null when there is no table. */
  tierHeadings: TierHeadings | null;
  /** OUTCOME_BASED: the configured weights; null for other models. */
  weights: WeightRow[] | null;
  /**
   * A sentence under the unit: for OUTCOME_BASED, what happens to statuses without a weight; for
   * the tier tables, how the table bills (GRADUATED and VOLUME_TIERED tables differ only in their
   * rows' wording otherwise, TIER_NOTES); null for other models.
   */
  note: DisplayText | null;
  /** "Minimum $5.00/mo" when the unit has a non-zero minFee; otherwise null. */
  minimum: DisplayText | null;
}

/** A tier table's columns: "Calls", "Per call", and "Flat fee" (STAIRCASE: "Price", its only charge). */
export interface TierHeadings {
  range: DisplayText;
  unitPrice: DisplayText;
  flatFee: DisplayText;
}

/** A unit's name in both numbers: "call" / "calls". */
export interface UnitName {
  one: DisplayText;
  other: DisplayText;
}

/**
 * How each tier table bills, in one sentence, so a buyer can tell graduated from volume pricing
 * (their tables differ only in the rows' wording otherwise): "Each call is billed at the rate of
 * the tier it falls in." against "All calls are billed at the rate of the tier the period's
 * total reaches."
 */
export function tierNote(model: 'GRADUATED' | 'VOLUME_TIERED' | 'STAIRCASE', unit: UnitName): DisplayText {
  switch (model) {
    case 'GRADUATED':
      return `Each ${unit.one} is billed at the rate of the tier it falls in.`;
    case 'VOLUME_TIERED':
      return `All ${unit.other} are billed at the rate of the tier the period's total reaches.`;
    case 'STAIRCASE':
      return "One flat fee: that of the tier the period's total reaches.";
  }
}

/** A rate plan, ready to render. */
export interface RatePlanDisplay {
  id: string;
  name: string;
  /** "Contact sales" when the plan has no metrics (spec); null when the units say it all. */
  headline: DisplayText | null;
  units: UnitDisplay[];
}

/** An offering, ready to render. */
export interface OfferingDisplay {
  id: string;
  name: string;
  currency: string;
  billingPeriod: BillingPeriod;
  /**
   * entryPrice as a per-period amount plus suffix ("$49.00/mo"), "Free" when it is zero; when
   * there is no entryPrice: "Contact sales" if no found rate plan has a metric, else "Usage-based".
   */
  price: DisplayText;
  /** entryPrice per month ("$10.00/mo" for 120 a year), "Free" when zero; null for ONE_TIME and usage-only. */
  perMonth: DisplayText | null;
  /** "14-day free trial" when trialDays > 0; otherwise null. */
  trial: DisplayText | null;
  /** PREPAID_TEXT for a PREPAID offering; null for POSTPAID. */
  billing: DisplayText | null;
  /** The found rate plans, in ratePlanIds order; ids with no match are skipped (the spec allows them). */
  plans: RatePlanDisplay[];
}

export const CONTACT_SALES_TEXT: DisplayText = 'Contact sales';
export const USAGE_BASED_TEXT: DisplayText = 'Usage-based';
export const FREE_TEXT: DisplayText = 'Free';
/** How every surface words a PREPAID offering (the pricing page, the widget). */
export const PREPAID_TEXT: DisplayText = 'Prepaid: usage draws from your credit balance';

/* ----------------------------------------------------------------------------------------------
 * Numbers
 * -------------------------------------------------------------------------------------------- */

const NUMERIC_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * Reads decimal text. Numbers are tolerated too (at runtime only): the published configuration
 * carries tier prices as JSON numbers (at most 15 significant digits, so String() is exact), and
 * a browser may hand them over untouched. Anything else is a bug upstream, so it throws.
 */
function toDecimal(value: string | number, what: string): Decimal {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !NUMERIC_TEXT.test(text.trim())) {
    throw new RangeError(`${what} is not a decimal number: ${JSON.stringify(value)}`);
  }
  return new Decimal(text.trim());
}

/** "1234567" -> "1,234,567". By hand, because Intl's grouping is what we avoid depending on. */
function groupDigits(integerDigits: string): string {
  return integerDigits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Groups the integer part of plain decimal text and leaves the fraction exactly as written. */
function groupDecimalText(text: string): string {
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  const dot = body.indexOf('.');
  const integer = dot === -1 ? body : body.slice(0, dot);
  const fraction = dot === -1 ? '' : body.slice(dot);
  return (negative ? '-' : '') + groupDigits(integer) + fraction;
}

/**
 * Rounds half up to at most `max` decimals, then drops trailing zeros down to `min`. Returns the
 * sign separately so "-0.001" at two decimals reads "0.00", not "-0.00".
 */
function fixedDigits(value: Decimal, min: number, max: number): { negative: boolean; digits: string } {
  const rounded = value.abs().toDecimalPlaces(max, Decimal.ROUND_HALF_UP);
  let digits = rounded.toFixed(max);
  if (max > min) {
    const dot = digits.indexOf('.');
    let end = digits.length;
    while (end > dot + 1 + min && digits[end - 1] === '0') end -= 1;
    digits = digits.slice(0, end);
    if (digits.endsWith('.')) digits = digits.slice(0, -1);
  }
  const dot = digits.indexOf('.');
  const grouped = dot === -1 ? groupDigits(digits) : groupDigits(digits.slice(0, dot)) + digits.slice(dot);
  return { negative: value.isNegative() && !rounded.isZero(), digits: grouped };
}

/**
 * Quantities as people read them: integers grouped ("1,000"), decimals kept as given ("2.5",
 * "1,000.50"): a quantity's written precision is part of what was configured, so it is not
 * padded or rounded. Numbers such as 1e21 are written out in full.
 */
export function formatQuantity(quantity: number | string): DisplayText {
  const raw = typeof quantity === 'number' ? String(quantity) : quantity.trim();
  const plain = /^-?\d+(\.\d+)?$/.test(raw) ? raw : toDecimal(raw, 'quantity').toFixed();
  return groupDecimalText(plain);
}

/**
 * A PERCENTAGE rate ("2.9" means 2.9 percent) as "2.9%". Never money: no symbol, no forced
 * decimals, trailing zeros dropped ("3.0" -> "3%"), because a percent is not an amount.
 */
export function formatPercent(percent: string): DisplayText {
  return `${groupDecimalText(toDecimal(percent, 'percent').toFixed())}%`;
}

/* ----------------------------------------------------------------------------------------------
 * Money
 * -------------------------------------------------------------------------------------------- */

interface CurrencyAffixes {
  prefix: string;
  suffix: string;
}

/** Symbols are looked up once per code: formatToParts is comparatively slow and the answer never changes. */
const affixCache = new Map<string, CurrencyAffixes>();

/**
 * The currency's en-US symbol and where it sits ("$" before, "CHF" plus a space before), taken
 * from Intl and nothing else. Whitespace between symbol and digits is normalised to one no-break
 * space (U+00A0), which is what current ICU emits, so engines with other ICU data still agree and
 * the symbol never wraps away from its digits.
 */
function currencyAffixes(currency: string): CurrencyAffixes {
  if (!/^[A-Za-z]{3}$/.test(currency)) {
    throw new RangeError(`currency is not an ISO 4217 code: ${JSON.stringify(currency)}`);
  }
  const code = currency.toUpperCase();
  const cached = affixCache.get(code);
  if (cached) return cached;
  const parts = new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: code,
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).formatToParts(1);
  const numberTypes = new Set(['integer', 'group', 'decimal', 'fraction']);
  const first = parts.findIndex((part) => numberTypes.has(part.type));
  let last = -1;
  parts.forEach((part, index) => {
    if (numberTypes.has(part.type)) last = index;
  });
  const text = (slice: Intl.NumberFormatPart[]): string =>
    slice
      .filter((part) => part.type === 'currency' || part.type === 'literal')
      .map((part) => (part.type === 'literal' ? part.value.replace(/\s+/gu, '\u00a0') : part.value))
      .join('');
  const affixes: CurrencyAffixes = {
    prefix: text(parts.slice(0, Math.max(first, 0))),
    suffix: last === -1 ? '' : text(parts.slice(last + 1)),
  };
  affixCache.set(code, affixes);
  return affixes;
}

/**
 * An exact decimal amount as en-US money: "€1,234.50". The digits come from the decimal text,
 * rounded half up; a minus sign goes before the symbol ("-$5.00"), as en-US writes it.
 */
export function formatMoney(amount: string, currency: string, options: MoneyFormatOptions): DisplayText {
  const { minimumFractionDigits: min, maximumFractionDigits: max } = options;
  if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min) {
    throw new RangeError(`invalid fraction digits: ${min}..${max}`);
  }
  const { prefix, suffix } = currencyAffixes(currency);
  const { negative, digits } = fixedDigits(toDecimal(amount, 'amount'), min, max);
  return `${negative ? '-' : ''}${prefix}${digits}${suffix}`;
}

/**
 * A per-period amount (FLAT_RATE rate, STAIRCASE flatFee, entryPrice, minFee, tier flatFee):
 * exactly two decimals in every currency, JPY and KWD included, as the spec fixes, so a price
 * page lines up whatever the currency's minor unit.
 */
export function formatPeriodAmount(amount: string, currency: string): DisplayText {
  return formatMoney(amount, currency, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/**
 * A per-unit rate (PER_UNIT, INCLUDED_QUOTA, OUTCOME_BASED rate, tier unitPrice): at least four
 * decimals so small rates do not read as "$0.00", at most six (rounded half up) as the spec says.
 * A rate below $0.0000005 therefore reads "$0.0000"; the spec caps the precision, not us.
 */
export function formatUnitRate(rate: string, currency: string): DisplayText {
  return formatMoney(rate, currency, { minimumFractionDigits: 4, maximumFractionDigits: 6 });
}

/**
 * The price of a block of units (INCLUDED_QUOTA with blockSize above 1): money, with two decimals
 * like a price ("$1.50 per 1,000 units", not "$1.5000"), and more only when the amount needs them
 * (up to six, as for a rate), so a tiny block price never reads "$0.00".
 */
export function formatBlockPrice(amount: string, currency: string): DisplayText {
  return formatMoney(amount, currency, { minimumFractionDigits: 2, maximumFractionDigits: 6 });
}

/** The spec's suffixes. A switch, so a new period fails the typecheck instead of reading "undefined". */
export function periodSuffix(period: BillingPeriod): PeriodSuffix {
  switch (period) {
    case 'MONTHLY':
      return '/mo';
    case 'QUARTERLY':
      return '/qtr';
    case 'ANNUAL':
      return '/yr';
    case 'ONE_TIME':
      return ' one-time';
  }
}

/** A per-period price with its suffix ("$49.00/mo"); zero reads "Free", without a suffix (spec). */
export function formatPeriodPrice(amount: string, currency: string, period: BillingPeriod): DisplayText {
  if (toDecimal(amount, 'amount').isZero()) return FREE_TEXT;
  return formatPeriodAmount(amount, currency) + periodSuffix(period);
}

/* ----------------------------------------------------------------------------------------------
 * Names
 * -------------------------------------------------------------------------------------------- */

/**
 * A metric's label: its display name when the seller set one, else metricName made readable
 * ("api_calls" -> "Api calls"): the spec says metricName is not a display label, so it is never
 * shown raw.
 */
export function metricLabel(metricName: string, displayName?: string | null): DisplayText {
  const named = displayName?.trim();
  if (named) return named;
  const words = metricName.replace(/[_\-.:]+/g, ' ').trim();
  if (words === '') return metricName;
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * English plural of a unit's last word, for the few shapes units take: "call" -> "calls",
 * "query" -> "queries", "search" -> "searches", "API call" -> "API calls", "GB-month" ->
 * "GB-months". Abbreviations and
 * anything with a digit or symbol ("GB", "kWh", "1k tokens") are left as written, since adding
 * an "s" to them is more often wrong than right.
 */
export function pluralUnit(singular: string): DisplayText {
  const text = singular.trim();
  if (/[^A-Za-z -]/.test(text)) return text;
  const cut = Math.max(text.lastIndexOf(' '), text.lastIndexOf('-')) + 1;
  const head = text.slice(0, cut);
  const word = text.slice(cut);
  if (!/^[A-Za-z]+$/.test(word) || /[A-Z]/.test(word.slice(1))) return text;
  if (/[^aeiou]y$/i.test(word)) return `${head}${word.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/i.test(word)) return `${head}${word}es`;
  return `${head}${word}s`;
}

const GENERIC_UNIT: UnitName = { one: 'unit', other: 'units' };

/** The unit's name in both numbers; "unit" / "units" when the metric has none (the spec's word). */
export function unitNameOf(metricUnit?: string | null): UnitName {
  const one = metricUnit?.trim();
  return one ? { one, other: pluralUnit(one) } : GENERIC_UNIT;
}

/* ----------------------------------------------------------------------------------------------
 * Units
 * -------------------------------------------------------------------------------------------- */

/** " after 1,000 free", or nothing when there is no allowance (the spec never shows "after 0 free"). */
function afterFree(includedFree: number): string {
  return includedFree > 0 ? ` after ${formatQuantity(includedFree)} free` : '';
}

/** The band in words; see TierRow.range for the wording and why. */
function tierRange(tier: Tier, model: PricingModel, unit: UnitName): DisplayText {
  const start = formatQuantity(tier.tierStart);
  const startsAtZero = toDecimal(tier.tierStart, 'tierStart').isZero();
  if (tier.tierEnd === null) {
    if (startsAtZero) return model === 'GRADUATED' ? `All ${unit.other}` : 'Any quantity';
    return `Over ${start}`;
  }
  const end = formatQuantity(tier.tierEnd);
  if (model === 'GRADUATED') {
    if (startsAtZero) return `First ${end}`;
    const width = toDecimal(tier.tierEnd, 'tierEnd').minus(toDecimal(tier.tierStart, 'tierStart'));
    return `Next ${formatQuantity(width.toFixed())}`;
  }
  return startsAtZero ? `Up to ${end}` : `Over ${start} up to ${end}`;
}

function tierHeadings(model: PricingModel, name: UnitName): TierHeadings {
  return {
    range: name.other.charAt(0).toUpperCase() + name.other.slice(1),
    unitPrice: `Per ${name.one}`,
    flatFee: model === 'STAIRCASE' ? 'Price' : 'Flat fee',
  };
}

function tierRows(unit: UnitPricing, currency: string, name: UnitName): TierRow[] {
  return unit.tiers.map((tier) => ({
    range: tierRange(tier, unit.pricingModel, name),
    tierStart: tier.tierStart,
    tierEnd: tier.tierEnd,
    unitPrice: unit.pricingModel === 'STAIRCASE' || tier.unitPrice === null ? null : formatUnitRate(tier.unitPrice, currency),
    // A zero fee reads Free, as a zero flat amount does (spec).
    flatFee: tier.flatFee === null ? null : new Decimal(String(tier.flatFee)).isZero() ? FREE_TEXT : formatPeriodAmount(tier.flatFee, currency),
  }));
}

/** The smallest of the given prices (nulls skipped); null when there is none. */
function cheapest(values: ReadonlyArray<string | null>): Decimal | null {
  let best: Decimal | null = null;
  for (const value of values) {
    if (value === null) continue;
    const price = toDecimal(value, 'tier price');
    if (best === null || price.lessThan(best)) best = price;
  }
  return best;
}

/**
 * "Lowest tier unitPrice" read as the cheapest band's unitPrice (the smallest value, wherever it
 * sits), so "From" is always a true lower bound on the per-unit price.
 */
function lowestTierUnitPrice(unit: UnitPricing): Decimal | null {
  return cheapest(unit.tiers.map((tier) => tier.unitPrice));
}

/**
 * STAIRCASE headline. "From" plus the cheapest flatFee plus the suffix (spec), except that a free
 * band never produces "From Free":
 * - no free band: "From $10.00/mo";
 * - free bands at the start: "Free up to 10 units, then from $10.00/mo" (the common free tier);
 * - a free band later on (unusual): "Free for some quantities, otherwise from $10.00/mo";
 * - every band free: "Free".
 */
function staircaseHeadline(unit: UnitPricing, currency: string, period: BillingPeriod, name: UnitName): DisplayText {
  const fees = unit.tiers.map((tier) => (tier.flatFee === null ? null : toDecimal(tier.flatFee, 'flatFee')));
  const paid = cheapest(fees.map((fee) => (fee === null || fee.isZero() ? null : fee.toFixed())));
  const anyFree = fees.some((fee) => fee !== null && fee.isZero());
  if (paid === null) return anyFree ? FREE_TEXT : 'Tiered pricing';
  const from = formatPeriodAmount(paid.toFixed(), currency) + periodSuffix(period);
  if (!anyFree) return `From ${from}`;
  let leadingFree = 0;
  while (leadingFree < fees.length && fees[leadingFree]?.isZero()) leadingFree += 1;
  const lastFree = unit.tiers[leadingFree - 1];
  if (lastFree && lastFree.tierEnd !== null) {
    return `Free up to ${formatQuantity(lastFree.tierEnd)} ${lastFree.tierEnd === 1 ? name.one : name.other}, then from ${from}`;
  }
  return `Free for some quantities, otherwise from ${from}`;
}

/** "SUCCESS" -> "Success"; other configured statuses the same way. */
export function statusText(status: string): DisplayText {
  const words = status.replace(/[_-]+/g, ' ').trim().toLowerCase();
  return words === '' ? status : words.charAt(0).toUpperCase() + words.slice(1);
}

/** 0 -> "free", 0.5 -> "half price", 1 -> "full price", else the percent, to two decimals at most. */
function weightLabel(weight: number): DisplayText {
  const value = toDecimal(weight, 'outcome weight');
  if (value.isZero()) return 'free';
  if (value.equals('0.5')) return 'half price';
  if (value.equals(1)) return 'full price';
  const percent = value.times(100).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed();
  return `${percent}% of price`;
}

/**
 * Weight rows in a fixed order, the spec's statuses first (SUCCESS, PARTIAL, ERROR, TIMEOUT), then
 * any others by code point: object key order depends on how the JSON was built, and every surface
 * must list them the same way.
 */
function weightRows(weights: Record<string, number> | null): WeightRow[] {
  if (!weights) return [];
  const known: readonly string[] = outcomeStatuses;
  const statuses = Object.keys(weights).sort((a, b) => {
    const ia = known.indexOf(a);
    const ib = known.indexOf(b);
    if (ia !== -1 || ib !== -1) return (ia === -1 ? known.length : ia) - (ib === -1 ? known.length : ib);
    return a < b ? -1 : a > b ? 1 : 0;
  });
  return statuses.map((status) => {
    const weight = weights[status] as number;
    return { status, statusText: statusText(status), weight, label: weightLabel(weight) };
  });
}

/**
 * The spec's wording for one unit. `currency` is the rate plan's (it applies to every unit), and
 * `period` the plan's billingPeriod (per-period prices and allowances reset on it).
 *
 * Headlines ("unit" is the metric's unit when it has one: "$0.0020 / call"):
 * - PER_UNIT: "$0.0020 / unit", "$0.0020 / unit after 1,000 free".
 * - FLAT_RATE: "$49.00/mo"; zero: "Free".
 * - PERCENTAGE: "2.9% of transaction value".
 * - INCLUDED_QUOTA: "$0.0100 / unit after 10,000 free"; blockSize > 1:
 *   "$5.00 per 1,000 units after 10,000 free" (the rate is per block: money, formatBlockPrice).
 * - GRADUATED, VOLUME_TIERED: "From $0.0010 / unit" (cheapest band; " after N free" as for
 *   PER_UNIT), plus the tier table.
 * - STAIRCASE: "From $10.00/mo" (see staircaseHeadline for free bands), plus the tier table.
 * - OUTCOME_BASED: "$0.0500 / unit" (plus " after N free" as for PER_UNIT), the weights, and
 *   the note "Other statuses bill at full price".
 */
export function describeUnitPricing(unit: UnitPricing, currency: string, period: BillingPeriod): UnitDisplay {
  const name = unitNameOf(unit.metricUnit);
  const display: UnitDisplay = {
    metricId: unit.metricId,
    metricName: unit.metricName,
    label: metricLabel(unit.metricName, unit.metricDisplayName),
    unitName: name,
    pricingModel: unit.pricingModel,
    headline: '',
    tiers: null,
    tierHeadings: null,
    weights: null,
    note: null,
    minimum:
      unit.minFee === null || toDecimal(unit.minFee, 'minFee').isZero() ? null : `Minimum ${formatPeriodAmount(unit.minFee, currency)}${periodSuffix(period)}`,
  };
  switch (unit.pricingModel) {
    case 'PER_UNIT':
      display.headline = `${formatUnitRate(unit.rate, currency)} / ${name.one}${afterFree(unit.includedFree)}`;
      break;
    case 'FLAT_RATE':
      display.headline = formatPeriodPrice(unit.rate, currency, period);
      break;
    case 'PERCENTAGE':
      display.headline = `${formatPercent(unit.rate)} of transaction value`;
      break;
    case 'INCLUDED_QUOTA': {
      const perBlock = unit.blockSize !== null && unit.blockSize > 1;
      display.headline = perBlock
        ? `${formatBlockPrice(unit.rate, currency)} per ${formatQuantity(unit.blockSize as number)} ${name.other}${afterFree(unit.includedFree)}`
        : `${formatUnitRate(unit.rate, currency)} / ${name.one}${afterFree(unit.includedFree)}`;
      break;
    }
    case 'GRADUATED':
    case 'VOLUME_TIERED': {
      const lowest = lowestTierUnitPrice(unit);
      // No priced band only happens with a catalog that failed validation; say something true.
      // Free units come off before the bands (rate.ts, step 3), so they read as for PER_UNIT.
      display.headline =
        (lowest === null ? 'Tiered pricing' : `From ${formatUnitRate(lowest.toFixed(), currency)} / ${name.one}`) + afterFree(unit.includedFree);
      display.tiers = tierRows(unit, currency, name);
      display.tierHeadings = tierHeadings(unit.pricingModel, name);
      display.note = tierNote(unit.pricingModel, name);
      break;
    }
    case 'STAIRCASE':
      display.headline = staircaseHeadline(unit, currency, period, name);
      display.tiers = tierRows(unit, currency, name);
      display.tierHeadings = tierHeadings('STAIRCASE', name);
      display.note = tierNote('STAIRCASE', name);
      break;
    case 'OUTCOME_BASED':
      display.headline = `${formatUnitRate(unit.rate, currency)} / ${name.one}${afterFree(unit.includedFree)}`;
      display.weights = weightRows(unit.outcomeWeights);
      display.note = display.weights.length > 0 ? 'Other statuses bill at full price' : 'Every status bills at full price';
      break;
  }
  return display;
}

/** A rate plan's units; with no metrics at all the plan reads "Contact sales" (spec). */
export function describeRatePlan(plan: RatePlan): RatePlanDisplay {
  return {
    id: plan.id,
    name: plan.name,
    headline: plan.metrics.length === 0 ? CONTACT_SALES_TEXT : null,
    units: plan.metrics.map((unit) => describeUnitPricing(unit, plan.currency, plan.billingPeriod)),
  };
}

/** The offering's plans in ratePlanIds order; unknown ids are skipped, as the spec allows. */
function foundPlans(offering: Offering, ratePlans: readonly RatePlan[]): RatePlan[] {
  const byId = new Map<string, RatePlan>();
  for (const plan of ratePlans) if (!byId.has(plan.id)) byId.set(plan.id, plan);
  const plans: RatePlan[] = [];
  for (const id of offering.ratePlanIds) {
    const plan = byId.get(id);
    if (plan) plans.push(plan);
  }
  return plans;
}

/** An offering as the storefront shows it; see OfferingDisplay for each field's wording. */
export function describeOffering(offering: Offering, ratePlans: readonly RatePlan[]): OfferingDisplay {
  const plans = foundPlans(offering, ratePlans);
  let price: DisplayText;
  let perMonth: DisplayText | null = null;
  if (offering.entryPrice === null) {
    price = plans.some((plan) => plan.metrics.length > 0) ? USAGE_BASED_TEXT : CONTACT_SALES_TEXT;
  } else {
    price = formatPeriodPrice(offering.entryPrice, offering.currency, offering.billingPeriod);
    const monthly = monthlyEquivalent(offering.entryPrice, offering.billingPeriod);
    if (monthly !== null) perMonth = formatPeriodPrice(monthly.toFixed(), offering.currency, 'MONTHLY');
  }
  return {
    id: offering.id,
    name: offering.name,
    currency: offering.currency,
    billingPeriod: offering.billingPeriod,
    price,
    perMonth,
    trial: offering.trialDays > 0 ? `${offering.trialDays}-day free trial` : null,
    billing: offering.billingMode === 'PREPAID' ? PREPAID_TEXT : null,
    plans: plans.map(describeRatePlan),
  };
}

/* ----------------------------------------------------------------------------------------------
 * Comparison
 * -------------------------------------------------------------------------------------------- */

/**
 * A per-period amount per month, exact (not rounded), so per-period prices compare on one scale
 * (spec): MONTHLY x1, QUARTERLY /3, ANNUAL /12. ONE_TIME has no monthly equivalent: null.
 */
export function monthlyEquivalent(amount: string, period: BillingPeriod): Decimal | null {
  const value = toDecimal(amount, 'amount');
  const months = monthsPerPeriod(period);
  return months === null ? null : value.dividedBy(months);
}

/** What a usage-only offering is compared on: its first unit, and a price on one scale. */
interface UsageBasis {
  currency: string;
  pricingModel: PricingModel;
  metricName: string;
  /** Per unit for rate models (INCLUDED_QUOTA blocks divided out), per month for per-period models. */
  price: Decimal;
}

/**
 * The offering's first unit (first metric of the first found plan that has one) and its price:
 * the rate for per-unit models, per unit for INCLUDED_QUOTA blocks (so $5 per 1,000 compares with
 * $0.005 per unit), the cheapest band for tiered models, and per month for FLAT_RATE and STAIRCASE,
 * which are per-period prices. Null when there is no unit or no such price.
 */
function usageBasis(offering: Offering, ratePlans: readonly RatePlan[]): UsageBasis | null {
  const plan = foundPlans(offering, ratePlans).find((candidate) => candidate.metrics.length > 0);
  const unit = plan?.metrics[0];
  if (!plan || !unit) return null;
  let price: Decimal | null;
  switch (unit.pricingModel) {
    case 'PER_UNIT':
    case 'PERCENTAGE':
    case 'OUTCOME_BASED':
      price = toDecimal(unit.rate, 'rate');
      break;
    case 'INCLUDED_QUOTA':
      price = toDecimal(unit.rate, 'rate').dividedBy(unit.blockSize !== null && unit.blockSize > 1 ? unit.blockSize : 1);
      break;
    case 'GRADUATED':
    case 'VOLUME_TIERED':
      price = lowestTierUnitPrice(unit);
      break;
    case 'FLAT_RATE':
      price = monthlyEquivalent(unit.rate, plan.billingPeriod);
      break;
    case 'STAIRCASE': {
      const fee = cheapest(unit.tiers.map((tier) => tier.flatFee));
      price = fee === null ? null : monthlyEquivalent(fee.toFixed(), plan.billingPeriod);
      break;
    }
  }
  if (price === null) return null;
  return { currency: plan.currency.toUpperCase(), pricingModel: unit.pricingModel, metricName: unit.metricName, price };
}

/**
 * Orders two offerings by price: negative when `a` is cheaper, 0 when equal, positive when dearer,
 * null when the spec gives no fair comparison:
 * - both with an entryPrice: by price per month (ONE_TIME has none: null);
 * - both usage-only: only when their first units share the pricing model and metricName, by rate
 *   (tiered: cheapest band); otherwise null;
 * - one of each: null, a subscription and a metered price are not on one scale;
 * - different currencies: null, an exchange rate is not ours to pick.
 */
export function compareOfferings(a: Offering, b: Offering, ratePlans: readonly RatePlan[]): number | null {
  if (a.currency.toUpperCase() !== b.currency.toUpperCase()) return null;
  if (a.entryPrice !== null && b.entryPrice !== null) {
    return comparePerMonth(
      { amount: toDecimal(a.entryPrice, 'entryPrice'), interval: a.billingPeriod },
      { amount: toDecimal(b.entryPrice, 'entryPrice'), interval: b.billingPeriod },
    );
  }
  if (a.entryPrice !== null || b.entryPrice !== null) return null;
  const ua = usageBasis(a, ratePlans);
  const ub = usageBasis(b, ratePlans);
  if (!ua || !ub) return null;
  if (ua.currency !== ub.currency || ua.pricingModel !== ub.pricingModel || ua.metricName !== ub.metricName) return null;
  return ua.price.comparedTo(ub.price);
}

/**
 * The storefront order, as a new array (the input is not touched). Comparable offerings are those
 * with a per-month price (an entryPrice and a period other than ONE_TIME) in the currency of the
 * first such offering; they come first, cheapest per month first, ties in their given order.
 * Every other offering (usage-only, ONE_TIME, other currencies) follows in its given order: they
 * have no common per-month scale with the first group, and moving them would be arbitrary.
 */
export function sortOfferingsForDisplay(offerings: readonly Offering[], ratePlans: readonly RatePlan[]): Offering[] {
  // ratePlans is part of the signature so a later rule (usage-only ordering) needs no API change.
  void ratePlans;
  const priced: { offering: Offering; index: number; monthly: Decimal }[] = [];
  const rest: Offering[] = [];
  let currency: string | null = null;
  offerings.forEach((offering, index) => {
    const monthly = offering.entryPrice === null ? null : monthlyEquivalent(offering.entryPrice, offering.billingPeriod);
    const code = offering.currency.toUpperCase();
    if (monthly !== null && (currency === null || currency === code)) {
      currency = code;
      priced.push({ offering, index, monthly });
    } else {
      rest.push(offering);
    }
  });
  // Array.prototype.sort is stable since ES2019; the index tiebreak keeps that explicit anyway.
  priced.sort((x, y) => x.monthly.comparedTo(y.monthly) || x.index - y.index);
  return [...priced.map((entry) => entry.offering), ...rest];
}
