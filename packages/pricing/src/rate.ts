/**
 * Rating: the charge for one unit's usage in one period, one invoice line.
 *
 * This is the reference for the order of the steps; every other place that explains a charge
 * (invoices, display wording, docs) must follow it.
 *
 * 1. Offering override: `override.includedFree` replaces `pricing.includedFree`, and
 *    `override.rate` replaces `pricing.rate`.
 * 2. Multipliers: each usage group's quantity is multiplied by `multipliers.tools[group.tool]`
 *    and by `multipliers.endpoints[group.endpoint]` (a missing key, or a null tool/endpoint,
 *    is a factor of 1). `quantity` is the sum of these weighted quantities.
 * 3. Free allowance: freeUnits = min(quantity, includedFree); billable B = quantity - freeUnits.
 *    Applied to every model, even those whose valid catalogs always have includedFree 0.
 * 4. The model, on B:
 *    - PER_UNIT: B x rate.
 *    - FLAT_RATE: rate (the fee per period), whatever the usage, zero usage included.
 *    - PERCENTAGE: B x rate / 100 (the quantity carries the transaction value).
 *    - INCLUDED_QUOTA: overage = B. Without blockSize: overage x rate. With blockSize:
 *      blocks = ceil(overage / blockSize), amount = blocks x rate (rate is per block).
 *    - GRADUATED: a band covers quantities above tierStart up to and including tierEnd (null:
 *      no end). Units in a band = clamp(B - tierStart, 0, tierEnd - tierStart); each band with
 *      units > 0 charges units x unitPrice plus its flatFee.
 *    - VOLUME_TIERED: B = 0 charges 0 and enters no band. Otherwise B lands in the first band
 *      whose tierEnd is null or >= B; all B units bill at that band's unitPrice, plus its flatFee.
 *    - STAIRCASE: B lands in a band by the same rule (B = 0 lands in the first band); the charge
 *      is that band's flatFee.
 *    - OUTCOME_BASED: each group's multiplier-weighted quantity is further weighted by
 *      `outcomeWeights[executionStatus]` (unlisted or null status: 1). Step 3 applies to the
 *      outcome-weighted units W: freeUnits = min(W, includedFree), B = W - freeUnits; the
 *      amount is B x rate. `quantity` still reports the units before outcome weights.
 * 5. Rounding: `exactAmount` is the unrounded charge; `amount` rounds it half up to the
 *    currency's minor unit. This is the line's only rounding.
 * 6. Minimum fee: minimumFeeTopUp = max(0, minFee - amount), in minor units ("0.00" when none);
 *    total = amount + minimumFeeTopUp. The minimum applies even with zero usage.
 *
 * Everything is Decimal: a quantity or price never becomes a JS number.
 */
import { Decimal, toDecimalText } from './decimal.js';
import { minorUnitDigits, roundToMinorUnit } from './currency.js';
import type { BandCharge, Multipliers, RateUnitInput, Tier, UnitCharge, UnitPricing, UsageGroup } from './types.js';

const ZERO = new Decimal(0);

/**
 * Own keys only: a tool named "constructor" or "toString" must not pick up an Object.prototype
 * member and turn it into a factor.
 */
function lookup<V>(table: Record<string, V> | null | undefined, key: string | null): V | undefined {
  if (table == null || key === null || !Object.hasOwn(table, key)) return undefined;
  return table[key];
}

/** A group's quantity times its tool and endpoint multipliers (step 2). */
export function weightedQuantity(group: UsageGroup, multipliers?: Multipliers | null): Decimal {
  const tool = lookup(multipliers?.tools, group.tool);
  const endpoint = lookup(multipliers?.endpoints, group.endpoint);
  let quantity = new Decimal(group.quantity);
  if (tool !== undefined) quantity = quantity.times(tool);
  if (endpoint !== undefined) quantity = quantity.times(endpoint);
  return quantity;
}

/** The OUTCOME_BASED weight of an execution status: 1 unless the status is listed. */
export function outcomeWeight(weights: Record<string, number> | null | undefined, status: string | null): Decimal {
  const weight = lookup(weights, status);
  return weight === undefined ? new Decimal(1) : new Decimal(weight);
}

/**
 * Whether a unit's charge depends on how its usage splits by execution status, tool and endpoint:
 * only through a multiplier (step 2) or an OUTCOME_BASED weight. Otherwise every group counts at
 * a factor of 1, and one group holding the total rates exactly the same, so a caller may read
 * the total instead of a row per distinct combination.
 */
export function usesRatingDimensions(pricing: Pick<UnitPricing, 'pricingModel' | 'outcomeWeights'>, multipliers?: Multipliers | null): boolean {
  const any = (table: Record<string, unknown> | null | undefined) => table != null && Object.keys(table).length > 0;
  return any(multipliers?.tools) || any(multipliers?.endpoints) || (pricing.pricingModel === 'OUTCOME_BASED' && any(pricing.outcomeWeights));
}

/**
 * The band a quantity lands in for VOLUME_TIERED and STAIRCASE: the first whose tierEnd is null
 * or >= quantity, so a quantity exactly at a band's end stays in that band. Past the end of a
 * closed last band (an invalid catalog) it is the last band, so usage is never rated at 0; null
 * only when there are no tiers.
 */
export function bandFor(tiers: readonly Tier[], quantity: Decimal | string): Tier | null {
  const q = new Decimal(quantity);
  for (const tier of tiers) {
    if (tier.tierEnd === null || q.lte(tier.tierEnd)) return tier;
  }
  return tiers.at(-1) ?? null;
}

/** Units of a quantity that fall in a GRADUATED band: clamp(quantity - tierStart, 0, width). */
export function unitsInBand(tier: Tier, quantity: Decimal | string): Decimal {
  const above = Decimal.max(ZERO, new Decimal(quantity).minus(tier.tierStart));
  return tier.tierEnd === null ? above : Decimal.min(above, new Decimal(tier.tierEnd).minus(tier.tierStart));
}

/** Every GRADUATED band the quantity enters, in order, with its exact charge. */
export function graduatedBands(tiers: readonly Tier[], quantity: Decimal | string): BandCharge[] {
  const bands: BandCharge[] = [];
  for (const tier of tiers) {
    const units = unitsInBand(tier, quantity);
    if (units.lte(0)) continue;
    const amount = units.times(tier.unitPrice ?? 0).plus(tier.flatFee ?? 0);
    bands.push(bandCharge(tier, units, amount));
  }
  return bands;
}

/**
 * Whole blocks needed to cover an overage: ceil(overage / blockSize), 0 for no overage. The
 * quotient is checked by multiplying back, so a 40-digit rounding of the division can never
 * drop the partial block of an overage just past a block boundary.
 */
export function blocksFor(overage: Decimal | string, blockSize: number): Decimal {
  const over = new Decimal(overage);
  if (over.lte(0)) return ZERO;
  const size = new Decimal(blockSize);
  let blocks = over.dividedBy(size).ceil();
  while (blocks.times(size).lt(over)) blocks = blocks.plus(1);
  while (blocks.gt(0) && blocks.minus(1).times(size).gte(over)) blocks = blocks.minus(1);
  return blocks;
}

function bandCharge(tier: Tier, units: Decimal, amount: Decimal): BandCharge {
  return {
    tierStart: tier.tierStart,
    tierEnd: tier.tierEnd,
    quantity: toDecimalText(units),
    amount: toDecimalText(amount),
  };
}

function sum(values: readonly Decimal[]): Decimal {
  return values.reduce((total, value) => total.plus(value), ZERO);
}

/** Rates one unit's usage for one period into one invoice line (see the steps above). */
export function rateUnit(input: RateUnitInput): UnitCharge {
  const { pricing, currency, usage } = input;
  const digits = minorUnitDigits(currency);

  // Step 1. `??`, not `||`: an override of includedFree 0 or rate "0" is a real override.
  const rate = input.override?.rate ?? pricing.rate;
  const includedFree = input.override?.includedFree ?? pricing.includedFree;

  // Step 2.
  const weighted = usage.map((group) => ({ group, quantity: weightedQuantity(group, input.multipliers) }));
  const quantity = sum(weighted.map((w) => w.quantity));

  // Step 3, on outcome-weighted units for OUTCOME_BASED and on quantity for the rest.
  const allowanceBase =
    pricing.pricingModel === 'OUTCOME_BASED'
      ? sum(weighted.map((w) => w.quantity.times(outcomeWeight(pricing.outcomeWeights, w.group.executionStatus))))
      : quantity;
  const freeUnits = Decimal.min(allowanceBase, includedFree);
  const billable = allowanceBase.minus(freeUnits);

  // Step 4.
  let exact = ZERO;
  let blocks: Decimal | null = null;
  let bands: BandCharge[] = [];
  switch (pricing.pricingModel) {
    case 'PER_UNIT':
    case 'OUTCOME_BASED':
      exact = billable.times(rate);
      break;
    case 'FLAT_RATE':
      exact = new Decimal(rate);
      break;
    case 'PERCENTAGE':
      exact = billable.times(rate).dividedBy(100);
      break;
    case 'INCLUDED_QUOTA':
      // A blockSize that is not positive cannot pass validation; rating per unit beats dividing by 0.
      if (pricing.blockSize !== null && pricing.blockSize > 0) {
        blocks = blocksFor(billable, pricing.blockSize);
        exact = blocks.times(rate);
      } else {
        exact = billable.times(rate);
      }
      break;
    case 'GRADUATED':
      bands = graduatedBands(pricing.tiers, billable);
      exact = sum(bands.map((band) => new Decimal(band.amount)));
      break;
    case 'VOLUME_TIERED': {
      const tier = billable.gt(0) ? bandFor(pricing.tiers, billable) : null;
      if (tier !== null) {
        exact = billable.times(tier.unitPrice ?? 0).plus(tier.flatFee ?? 0);
        bands = [bandCharge(tier, billable, exact)];
      }
      break;
    }
    case 'STAIRCASE': {
      const tier = bandFor(pricing.tiers, billable);
      if (tier !== null) {
        exact = new Decimal(tier.flatFee ?? 0);
        bands = [bandCharge(tier, billable, exact)];
      }
      break;
    }
  }

  // Step 5.
  const amount = roundToMinorUnit(exact, currency);

  // Step 6. A valid minFee fits the minor unit, so the top-up is exact; should one not, the
  // top-up rounds up, because a minimum that rounds down is no longer a minimum.
  const topUp = pricing.minFee === null ? ZERO : Decimal.max(ZERO, new Decimal(pricing.minFee).minus(amount));
  const minimumFeeTopUp = topUp.toDecimalPlaces(digits, Decimal.ROUND_UP).toFixed(digits);

  return {
    metricName: pricing.metricName,
    pricingModel: pricing.pricingModel,
    quantity: toDecimalText(quantity),
    freeUnits: toDecimalText(freeUnits),
    billableQuantity: toDecimalText(billable),
    blocks: blocks === null ? null : toDecimalText(blocks),
    rate,
    includedFree,
    bands,
    exactAmount: toDecimalText(exact),
    amount,
    minimumFeeTopUp,
    total: new Decimal(amount).plus(minimumFeeTopUp).toFixed(digits),
  };
}
