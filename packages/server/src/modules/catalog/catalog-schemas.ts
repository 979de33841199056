import { Type } from '@sinclair/typebox';
import { MapOf } from '../../http/schemas.js';
import { billingPeriods, pricingModels } from '@tollgate/pricing';

/**
 * Schema pieces shared by rate plans and offerings. Prices are decimal strings in the operator
 * API (never JSON numbers, so no price is ever rounded by a parser); the cross-field rules
 * (which model uses which field, tiers, precision per currency) are in @tollgate/pricing's
 * normaliseUnitPricing, which names the offending field.
 */
export const DecimalText = (description: string) =>
  Type.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$', maxLength: 40, description: `${description} A non-negative decimal string, e.g. "0.002".` });

export const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, e.g. USD.' });
export const PricingModelSchema = Type.Union(pricingModels.map((m) => Type.Literal(m)));
export const BillingPeriodSchema = Type.Union(
  billingPeriods.map((p) => Type.Literal(p)),
  {
    description: 'MONTHLY, QUARTERLY, ANNUAL or ONE_TIME: when per-period prices apply and free allowances reset.',
  },
);
export const NullableDecimal = (description: string) => Type.Union([DecimalText(description), Type.Null()]);
export const Quantity = (description: string) => Type.Number({ minimum: 0, description });
const FactorMap = (what: string) =>
  MapOf(DecimalText('Factor.'), {
    maxKeys: 100,
    minKeyLength: 1,
    maxKeyLength: 200,
    description: `Rating only, never published: usage whose ${what} (metadata.${what}, or the metric's dimensionPaths.${what}) equals a key counts as quantity × factor.`,
  });

export const TierSchema = Type.Object(
  {
    tierStart: Quantity('The band covers quantities above tierStart ...'),
    tierEnd: Type.Union([Quantity('... up to and including tierEnd.'), Type.Null()], { description: 'null: open-ended (the last band only).' }),
    unitPrice: Type.Optional(NullableDecimal('Price per unit in this band (GRADUATED, VOLUME_TIERED).')),
    flatFee: Type.Optional(NullableDecimal('Fee for the band (STAIRCASE: the charge; GRADUATED, VOLUME_TIERED: added once).')),
  },
  { title: 'Tier', additionalProperties: false },
);

export const UnitPricingBody = Type.Object(
  {
    metricId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'mtr_…; or give metricName.' })),
    metricName: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'As usage events send it; or give metricId.' })),
    pricingModel: PricingModelSchema,
    currency: Type.Optional(Type.String({ maxLength: 3, description: "Optional; must equal the plan's currency." })),
    rate: Type.Optional(DecimalText('Price per unit; FLAT_RATE: fee per period; PERCENTAGE: percent (2.9 = 2.9%); tiered models: omit (prices are on tiers).')),
    includedFree: Type.Optional(Type.Union([Quantity('Free units each period; default 0.'), Type.Null()])),
    blockSize: Type.Optional(
      Type.Union([
        Type.Integer({ minimum: 1, description: 'INCLUDED_QUOTA: overage billed in whole blocks of this many units (rate per block).' }),
        Type.Null(),
      ]),
    ),
    minFee: Type.Optional(NullableDecimal('Minimum charge per period for this unit.')),
    tiers: Type.Optional(Type.Union([Type.Array(TierSchema, { maxItems: 50 }), Type.Null()])),
    outcomeWeights: Type.Optional(
      Type.Union([
        MapOf(Type.Number({ minimum: 0, maximum: 1 }), {
          maxKeys: 100,
          minKeyLength: 1,
          maxKeyLength: 200,
          description:
            "OUTCOME_BASED: execution status (metadata.executionStatus, or the metric's dimensionPaths.executionStatus) -> weight 0..1 (up to 100 statuses); unlisted statuses bill at 1.",
        }),
        Type.Null(),
      ]),
    ),
    toolMultipliers: Type.Optional(Type.Union([FactorMap('tool'), Type.Null()])),
    endpointMultipliers: Type.Optional(Type.Union([FactorMap('endpoint'), Type.Null()])),
  },
  { additionalProperties: false },
);

/** A tier as stored and shown to operators: prices as decimal text. */
export const StoredTierSchema = Type.Object(
  {
    tierStart: Type.Number(),
    tierEnd: Type.Union([Type.Number(), Type.Null()]),
    unitPrice: Type.Union([Type.String(), Type.Null()]),
    flatFee: Type.Union([Type.String(), Type.Null()]),
  },
  { title: 'StoredTier' },
);

export const CatalogUnitSchema = Type.Object(
  {
    metricId: Type.String(),
    metricName: Type.String(),
    pricingModel: PricingModelSchema,
    rate: Type.String(),
    includedFree: Type.Number(),
    blockSize: Type.Union([Type.Number(), Type.Null()]),
    minFee: Type.Union([Type.String(), Type.Null()]),
    tiers: Type.Array(StoredTierSchema),
    outcomeWeights: Type.Union([Type.Record(Type.String(), Type.Number()), Type.Null()]),
    toolMultipliers: Type.Record(Type.String(), Type.String()),
    endpointMultipliers: Type.Record(Type.String(), Type.String()),
  },
  { title: 'CatalogUnit' },
);
