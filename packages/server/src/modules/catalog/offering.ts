import { Type, type Static } from '@sinclair/typebox';
import { checkPeriodAmount, Decimal, roundToMinorUnit, type BillingPeriod } from '@tollgate/pricing';
import { AppError } from '../../lib/errors.js';
import { toIso } from '../../lib/clock.js';
import { Environment, Metadata, Timestamp } from '../../http/schemas.js';
import type { Environment as Env } from '../../lib/crypto.js';
import { BillingPeriodSchema, CurrencyCode, DecimalText, NullableDecimal, Quantity } from './catalog-schemas.js';

/**
 * POSTPAID: usage is billed in arrears. PREPAID: usage is paid from the customer's credit grants
 * first (modules/credits); what they do not cover is billed in arrears (overage BILL) or refused by
 * the entitlement check (BLOCK).
 */
export const billingModes = ['POSTPAID', 'PREPAID'] as const;
export type BillingMode = (typeof billingModes)[number];

/**
 * A PREPAID offering's rule for usage its credits do not cover. BILL: billed in arrears, as
 * POSTPAID. BLOCK: the entitlement check refuses it (CREDITS_EXHAUSTED); what got through anyway
 * (requests in flight, a check made before the balance reached zero) is billed, never lost.
 */
export const overageRules = ['BILL', 'BLOCK'] as const;
export type OverageRule = (typeof overageRules)[number];

/**
 * A PREPAID offering's credits granted to each subscription at the start of every period
 * (source recurring), expiring at its end. At a period's close, what the subscription's recurring
 * and rollover grants have left is carried into the next period as one rollover grant, up to
 * `rolloverCap`; null: nothing is carried.
 */
export interface RecurringCredits {
  /** Per period, in the offering's currency's minor unit. */
  amount: string;
  /** The grants' priority (a lower number is drawn first). */
  priority: number;
  rolloverCap: string | null;
}

/** This offering's own quota or overage rate for one unit of one of its plans; never published. */
export interface OfferingOverride {
  ratePlanId: string;
  metricName: string;
  includedFree?: number;
  rate?: string;
}

/** What a buyer subscribes to: an entry price plus the usage pricing of its rate plans. */
export interface Offering {
  id: string;
  environment: Env;
  /** What subscribers get access to: entitlement checks and product keys are per product. */
  productId: string;
  name: string;
  billingMode: BillingMode;
  /** PREPAID: what happens to usage credits do not cover; null for POSTPAID. */
  overage: OverageRule | null;
  /** PREPAID: the credits granted every period; null: none. */
  recurringCredits: RecurringCredits | null;
  currency: string;
  entryPrice: string | null;
  billingPeriod: BillingPeriod;
  trialDays: number;
  ratePlanIds: string[];
  overrides: OfferingOverride[];
  metadata: Record<string, string>;
  version: number;
  createdAt: number;
  updatedAt: number;
}

const OverrideSchema = Type.Object(
  {
    ratePlanId: Type.String({ minLength: 1, maxLength: 100 }),
    metricName: Type.String({ minLength: 1, maxLength: 100, description: 'A unit of that plan.' }),
    includedFree: Type.Optional(Quantity('Replaces the free units (the quota) for this offering.')),
    rate: Type.Optional(DecimalText('Replaces the rate (the overage rate) for this offering.')),
  },
  { additionalProperties: false },
);
const Overrides = Type.Array(OverrideSchema, {
  maxItems: 100,
  description: 'Applied by rating and entitlement checks; not published in the headless configuration.',
});
const RatePlanIds = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 20,
  description: "plan_… ids, in display order; each plan must be in the offering's currency and billing period.",
});
const Name = Type.String({ minLength: 1, maxLength: 200 });
const EntryPrice = NullableDecimal("Fixed price per billing period, in the currency's minor unit at most; null: usage-only.");
const TrialDays = Type.Integer({ minimum: 0, maximum: 730, description: 'Trial length in days; 0: no trial.' });
const Mode = Type.Union(
  billingModes.map((m) => Type.Literal(m)),
  {
    description:
      "POSTPAID: usage is billed after the period. PREPAID: usage is paid from the customer's credit grants first; what they do not cover follows `overage`. Fixed at creation.",
  },
);
const Overage = Type.Union(
  overageRules.map((r) => Type.Literal(r)),
  {
    description:
      'PREPAID only (default BILL): BILL bills usage the credits do not cover in arrears; BLOCK makes the entitlement check refuse it with reason CREDITS_EXHAUSTED (usage that got through anyway is billed).',
  },
);

const RecurringCreditsBody = Type.Union(
  [
    Type.Object(
      {
        amount: DecimalText('Credits granted at the start of every period, in the currency’s minor unit at most; greater than 0.'),
        priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'The grants’ priority: a lower number is drawn first. Default 50.' })),
        rolloverCap: Type.Optional(
          Type.Union([DecimalText('At most this much of what is left at a period’s close is carried into the next.'), Type.Null()], {
            description: 'null or absent: nothing is carried; what is left expires with the period.',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  {
    description:
      'PREPAID only: credits each subscription is granted at the start of every period (source recurring, expiring at its end), and how much of what is left rolls over into the next period (source rollover). null: none.',
  },
);
const RecurringCreditsOut = Type.Union([
  Type.Object({ amount: Type.String(), priority: Type.Integer(), rolloverCap: Type.Union([Type.String(), Type.Null()]) }),
  Type.Null(),
]);

export const OfferingSchema = Type.Object(
  {
    id: Type.String({ description: 'off_…' }),
    object: Type.Literal('offering'),
    environment: Environment,
    productId: Type.String(),
    name: Type.String(),
    billingMode: Mode,
    overage: Type.Union([Overage, Type.Null()], { description: 'PREPAID: BILL or BLOCK; null for POSTPAID.' }),
    recurringCredits: RecurringCreditsOut,
    currency: CurrencyCode,
    entryPrice: Type.Union([Type.String(), Type.Null()]),
    billingPeriod: BillingPeriodSchema,
    trialDays: Type.Integer(),
    ratePlanIds: Type.Array(Type.String()),
    overrides: Type.Array(
      Type.Object({
        ratePlanId: Type.String(),
        metricName: Type.String(),
        includedFree: Type.Optional(Type.Number()),
        rate: Type.Optional(Type.String()),
      }),
    ),
    metadata: Metadata,
    version: Type.Integer(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Offering' },
);

export const CreateOfferingBody = Type.Object(
  {
    productId: Type.String({ minLength: 1, maxLength: 100, description: 'prod_…: what subscribers get access to.' }),
    name: Name,
    billingMode: Type.Optional(Mode),
    overage: Type.Optional(Overage),
    recurringCredits: Type.Optional(RecurringCreditsBody),
    currency: CurrencyCode,
    entryPrice: Type.Optional(EntryPrice),
    billingPeriod: BillingPeriodSchema,
    trialDays: Type.Optional(TrialDays),
    ratePlanIds: Type.Optional(RatePlanIds),
    overrides: Type.Optional(Overrides),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type CreateOfferingInput = Static<typeof CreateOfferingBody>;

/** Product, currency, billing period and billing mode are fixed at creation: subscriptions rely on them. */
export const UpdateOfferingBody = Type.Object(
  {
    name: Type.Optional(Name),
    entryPrice: Type.Optional(EntryPrice),
    overage: Type.Optional(Overage),
    recurringCredits: Type.Optional(RecurringCreditsBody),
    trialDays: Type.Optional(TrialDays),
    ratePlanIds: Type.Optional(RatePlanIds),
    overrides: Type.Optional(Overrides),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateOfferingInput = Static<typeof UpdateOfferingBody>;

/**
 * A PREPAID offering's recurring credits as asked for, checked against its currency and with its
 * amounts in the currency's minor digits; refusals name the field.
 */
export function checkRecurringCredits(
  input: { amount: string; priority?: number; rolloverCap?: string | null } | null,
  billingMode: BillingMode,
  currency: string,
): RecurringCredits | null {
  if (input === null) return null;
  if (billingMode !== 'PREPAID')
    throw new AppError('VALIDATION_FAILED', 'recurringCredits applies to PREPAID offerings only: a POSTPAID offering has no credits to grant.', {
      field: 'body.recurringCredits',
    });
  const amount = (value: string, field: string, positive: boolean): string => {
    const e = checkPeriodAmount(value, currency, field);
    if (e) throw new AppError('VALIDATION_FAILED', e.message, { field: e.field });
    if (positive && new Decimal(value).lte(0)) throw new AppError('VALIDATION_FAILED', `${field} must be greater than 0, got ${value}.`, { field });
    return roundToMinorUnit(value, currency);
  };
  const cap = input.rolloverCap ?? null;
  return {
    amount: amount(input.amount, 'body.recurringCredits.amount', true),
    priority: input.priority ?? 50,
    rolloverCap: cap === null ? null : amount(cap, 'body.recurringCredits.rolloverCap', false),
  };
}

export function presentOffering(o: Offering): Static<typeof OfferingSchema> {
  // Stored canonical ("49.9", which price versions hash); shown in the currency's minor digits ("49.90"), like every amount.
  return {
    ...o,
    object: 'offering',
    entryPrice: o.entryPrice === null ? null : roundToMinorUnit(o.entryPrice, o.currency),
    createdAt: toIso(o.createdAt),
    updatedAt: toIso(o.updatedAt),
  };
}
