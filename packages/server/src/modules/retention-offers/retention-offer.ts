import { Type, type Static } from '@sinclair/typebox';
import { billingPeriods, formatPeriodPrice, USAGE_BASED_TEXT, type BillingPeriod } from '@tollgate/pricing';
import { toIso } from '../../lib/clock.js';
import { ErrorEnvelope } from '../../http/schemas.js';
import { cancelReasons, type CancelReason } from '../subscriptions/cancellation-details.js';

// The six reasons are the ones a subscription keeps with its cancellation (modules/subscriptions owns the list).
export { cancelReasons, type CancelReason };

/**
 * Pure: what a customer who is cancelling is offered instead, fixed per cancel reason (issue 17
 * design). Six canonical reasons; five offer types, of which PAUSE_3_MONTHS is in the enumeration
 * and never offered (accepting it is refused). Offer objects are shaped like Stripe's: a `type`,
 * the terms of that type, and a `description` a widget can show as it is.
 */
export const offerTypes = ['DISCOUNT_20_PERCENT', 'DOWNGRADE_PROMPT', 'SUPPORT_HANDOFF', 'NONE', 'PAUSE_3_MONTHS'] as const;
export type OfferType = (typeof offerTypes)[number];

/** The offer fixed for each reason, before what the workspace has (a cheaper offering, a support address) is known. */
const OFFER_BY_REASON: Readonly<Record<CancelReason, Exclude<OfferType, 'PAUSE_3_MONTHS'>>> = {
  TOO_EXPENSIVE: 'DISCOUNT_20_PERCENT',
  SWITCHED_SERVICE: 'DISCOUNT_20_PERCENT',
  UNUSED: 'DOWNGRADE_PROMPT',
  MISSING_FEATURES: 'SUPPORT_HANDOFF',
  TECHNICAL_ISSUES: 'SUPPORT_HANDOFF',
  OTHER: 'NONE',
};

export function offerTypeFor(reason: CancelReason): OfferType {
  return OFFER_BY_REASON[reason];
}

/** The retention discount's terms: 20 % off the subscription's next 3 renewal invoices. */
export const RETENTION_DISCOUNT = { percentOff: '20', periods: 3 } as const;

/** The cheapest DOWNGRADE candidate of the subscription's offering (cheapest-downgrade.ts). */
export interface DowngradeCandidate {
  offeringId: string;
  name: string;
  /** Decimal text per billing period; null: usage only. */
  entryPrice: string | null;
  currency: string;
  billingPeriod: BillingPeriod;
}

export interface OfferContext {
  downgradeCandidate: DowngradeCandidate | null;
  /** The workspace's billing setting supportUrl (https://… or mailto:…). */
  supportUrl: string | null;
}

export type RetentionOffer =
  | { type: 'DISCOUNT_20_PERCENT'; percentOff: string; periods: number; description: string }
  | {
      type: 'DOWNGRADE_PROMPT';
      offeringId: string;
      offeringName: string;
      entryPrice: string | null;
      currency: string;
      billingPeriod: BillingPeriod;
      description: string;
    }
  | { type: 'SUPPORT_HANDOFF'; url: string; description: string }
  | { type: 'NONE' };

const SUPPORT_WORDING: Partial<Record<CancelReason, string>> = {
  MISSING_FEATURES: 'Tell our team what you are missing: it may be there already, or on its way',
  TECHNICAL_ISSUES: 'Let our support team fix the problem with you',
};

/**
 * The offer for a reason: its fixed type made concrete. A downgrade prompt without a cheaper
 * offering, or a support hand-off without a support address, is no offer (NONE).
 */
export function retentionOfferFor(reason: CancelReason, ctx: OfferContext): RetentionOffer {
  switch (OFFER_BY_REASON[reason]) {
    case 'DISCOUNT_20_PERCENT':
      return {
        type: 'DISCOUNT_20_PERCENT',
        ...RETENTION_DISCOUNT,
        description: `${RETENTION_DISCOUNT.percentOff}% off your next ${RETENTION_DISCOUNT.periods} invoices`,
      };
    case 'DOWNGRADE_PROMPT': {
      const c = ctx.downgradeCandidate;
      if (c === null) return { type: 'NONE' };
      return {
        type: 'DOWNGRADE_PROMPT',
        offeringId: c.offeringId,
        offeringName: c.name,
        entryPrice: c.entryPrice,
        currency: c.currency,
        billingPeriod: c.billingPeriod,
        description: `Switch to ${c.name} (${c.entryPrice === null ? USAGE_BASED_TEXT : formatPeriodPrice(c.entryPrice, c.currency, c.billingPeriod)})`,
      };
    }
    case 'SUPPORT_HANDOFF':
      if (ctx.supportUrl === null) return { type: 'NONE' };
      return { type: 'SUPPORT_HANDOFF', url: ctx.supportUrl, description: SUPPORT_WORDING[reason] ?? 'Talk to our support team' };
    case 'NONE':
      return { type: 'NONE' };
  }
}

/** Where an acceptance came from: an operator's key (API) or a widget session (EMBED). */
export const acceptanceChannels = ['API', 'EMBED'] as const;
export type AcceptanceChannel = (typeof acceptanceChannels)[number];

/** An accepted offer, recorded once per subscription and reason. */
export interface RetentionOfferAcceptance {
  id: string;
  subscriptionId: string;
  reason: CancelReason;
  /** The offer as it was shown and accepted (never NONE or PAUSE_3_MONTHS). */
  offer: RetentionOffer;
  channel: AcceptanceChannel;
  /** The subscription's time (its test clock's, else real time). */
  acceptedAt: number;
  createdAt: number;
}

const literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

export const CancelReasonSchema = literals(
  cancelReasons,
  'Why the customer is cancelling; it fixes the retention offer: TOO_EXPENSIVE and SWITCHED_SERVICE → DISCOUNT_20_PERCENT, UNUSED → DOWNGRADE_PROMPT, MISSING_FEATURES and TECHNICAL_ISSUES → SUPPORT_HANDOFF, OTHER → NONE.',
);
export const OfferTypeSchema = literals(
  offerTypes,
  'PAUSE_3_MONTHS is part of the enumeration but never offered: accepting it answers 422 OFFER_NOT_AVAILABLE.',
);

const Text = (maxLength: number, description?: string) => Type.String({ maxLength, ...(description ? { description } : {}) });

export const RetentionOfferSchema = Type.Union(
  [
    Type.Object({
      type: Type.Literal('DISCOUNT_20_PERCENT'),
      percentOff: Text(20, 'Decimal text: "20".'),
      periods: Type.Integer({ description: 'How many of the next renewal invoices it applies to.' }),
      description: Text(200),
    }),
    Type.Object({
      type: Type.Literal('DOWNGRADE_PROMPT'),
      offeringId: Text(100, 'off_…: the cheapest DOWNGRADE candidate of the same product.'),
      offeringName: Text(200),
      entryPrice: Type.Union([Text(40, 'Decimal text per billing period.'), Type.Null()]),
      currency: Text(3),
      billingPeriod: literals(billingPeriods, 'The billing period of entryPrice.'),
      description: Text(300),
    }),
    Type.Object({
      type: Type.Literal('SUPPORT_HANDOFF'),
      url: Text(500, "The workspace's billing setting supportUrl (https:// or mailto:)."),
      description: Text(200),
    }),
    Type.Object({ type: Type.Literal('NONE') }),
  ],
  {
    description:
      'DISCOUNT_20_PERCENT: 20% off the next 3 renewal invoices; DOWNGRADE_PROMPT: the cheapest cheaper offering (NONE when there is none); SUPPORT_HANDOFF: the support address (NONE when unset); NONE: no offer.',
  },
);

export const RetentionOfferAcceptanceSchema = Type.Object(
  {
    object: Type.Literal('retention_offer_acceptance'),
    id: Text(100, 'roa_…'),
    subscriptionId: Text(100),
    reason: CancelReasonSchema,
    offer: RetentionOfferSchema,
    channel: literals(acceptanceChannels, 'API: accepted through an operator key; EMBED: through the widget.'),
    acceptedAt: Type.String({ format: 'date-time', maxLength: 30 }),
  },
  { title: 'RetentionOfferAcceptance' },
);

export const AcceptRetentionOfferBody = Type.Object(
  {
    reason: CancelReasonSchema,
    offerType: Type.Optional(OfferTypeSchema),
  },
  { additionalProperties: false },
);
export type AcceptRetentionOfferInput = Static<typeof AcceptRetentionOfferBody>;

export const RetentionOfferViewSchema = Type.Object(
  {
    object: Type.Literal('retention_offer'),
    subscriptionId: Text(100),
    reason: CancelReasonSchema,
    offer: RetentionOfferSchema,
    acceptanceId: Type.Union([Text(100, 'roa_…: this reason’s offer was accepted already.'), Type.Null()]),
  },
  { title: 'RetentionOfferView' },
);

export function presentAcceptance(a: RetentionOfferAcceptance): Static<typeof RetentionOfferAcceptanceSchema> {
  return {
    object: 'retention_offer_acceptance',
    id: a.id,
    subscriptionId: a.subscriptionId,
    reason: a.reason,
    offer: a.offer,
    channel: a.channel,
    acceptedAt: toIso(a.acceptedAt),
  };
}

export const OfferNotAvailableSchema = Type.Object(ErrorEnvelope.properties, {
  description: 'OFFER_NOT_AVAILABLE: PAUSE_3_MONTHS, another offer type than the reason’s, a reason without an offer, or a discount already running.',
});
