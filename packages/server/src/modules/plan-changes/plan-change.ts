import { Type, type Static } from '@sinclair/typebox';
import { changeKinds, type ChangeKind } from '@tollgate/pricing';
import { NullableTimestamp } from '../../http/schemas.js';
import { billingPeriods } from '../../lib/periods.js';
import { SubscriptionSchema } from '../subscriptions/subscription.js';
import { UsageLimitOverrides } from '../subscriptions/usage-limits.js';
import { CancelCommentSchema } from '../subscriptions/cancellation-details.js';
import { CancelReasonSchema, RetentionOfferSchema } from '../retention-offers/retention-offer.js';

/**
 * Plan changes and cancellations as the widget and the operator API ask for them: the requests,
 * the preview and the result. Amounts are decimal text in the subscription's currency.
 */

export const applyAts = ['IMMEDIATE', 'PERIOD_END'] as const;
export type ApplyAt = (typeof applyAts)[number];

/** Who asked: the operator API, or the embedded widget (spec: cancel_channel = EMBED). */
export const changeChannels = ['API', 'EMBED'] as const;
export type ChangeChannel = (typeof changeChannels)[number];

export type ChangeAction = ChangeKind | 'CANCEL';

const literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

export const ApplyAtSchema = literals(
  applyAts,
  'IMMEDIATE (default): now, prorated by the second (an invoice for a net charge, a credit note for a net credit). PERIOD_END: at the end of the current period, nothing billed now; status ACTIVE_PENDING_CHANGE until the renewal applies it.',
);
const ActionSchema = literals([...changeKinds, 'CANCEL'], 'UPGRADE, DOWNGRADE or LATERAL (entry prices compared per month), or CANCEL.');
const ExpectedVersion = Type.Integer({
  minimum: 0,
  maximum: 2_147_483_647,
  description: "The subscription's version from the preview (subscriptionVersion): if it changed since, 409 SUBSCRIPTION_CHANGED instead of a change.",
});
const OfferingId = Type.String({ minLength: 1, maxLength: 100, description: 'off_…: a change candidate (GET …/change-candidates).' });

export const PreviewChangeBody = Type.Object(
  {
    offeringId: Type.Optional(OfferingId),
    cancel: Type.Optional(Type.Boolean({ description: 'true: preview a cancellation (instead of offeringId).' })),
    reason: Type.Optional(CancelReasonSchema),
    applyAt: Type.Optional(ApplyAtSchema),
  },
  { additionalProperties: false },
);
export type PreviewChangeInput = Static<typeof PreviewChangeBody>;

export const ChangeBody = Type.Object(
  {
    offeringId: OfferingId,
    applyAt: Type.Optional(ApplyAtSchema),
    expectedVersion: Type.Optional(ExpectedVersion),
    returnUrl: Type.Optional(
      Type.String({
        maxLength: 2_000,
        pattern: '^https?://[^\\s]+$',
        description:
          'Where Stripe sends the buyer back after 3-D Secure, when an IMMEDIATE change is paid first and their card needs it (payment.actionUrl is then Stripe’s page); the widget sends its page.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ChangeInput = Static<typeof ChangeBody>;

/**
 * The operator API's change: the widget's, plus the subscription's own usage limits on the new
 * offering. A buyer never sets limits, so the widget's body has no such field.
 */
export const OperatorChangeBody = Type.Object(
  {
    ...ChangeBody.properties,
    usageLimits: Type.Optional(
      Type.Array(UsageLimitOverrides.items, {
        maxItems: UsageLimitOverrides.maxItems,
        description:
          "The subscription's own limits on the new offering (as PATCH …/subscriptions/{id} takes them), replacing its usageLimits when the change takes effect (IMMEDIATE: now; PERIOD_END: at the renewal). Left out: none, so the new offering's rate plan defaults apply as they are; the old overrides never carry over.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type OperatorChangeInput = Static<typeof OperatorChangeBody>;

export const CancelBody = Type.Object(
  {
    reason: Type.Optional(CancelReasonSchema),
    applyAt: Type.Optional(ApplyAtSchema),
    expectedVersion: Type.Optional(ExpectedVersion),
    comment: Type.Optional(CancelCommentSchema),
  },
  { additionalProperties: false },
);
export type CancelInput = Static<typeof CancelBody>;

const Money = (description: string) => Type.String({ maxLength: 40, description: `${description} Decimal text in the subscription's currency, e.g. "12.50".` });
const NullableMoney = (description: string) => Type.Union([Money(description), Type.Null()]);
const OfferingRef = Type.Object({ id: Type.String({ maxLength: 100 }), name: Type.String({ maxLength: 200 }) });

export const ChangeCandidateSchema = Type.Object(
  {
    object: Type.Literal('change_candidate'),
    offeringId: Type.String({ maxLength: 100 }),
    name: Type.String({ maxLength: 200 }),
    kind: literals(changeKinds, "Against the subscription's offering, entry prices compared per month."),
    currency: Type.String({ maxLength: 3 }),
    entryPrice: Type.Union([Type.String({ maxLength: 40 }), Type.Null()], { description: 'Per billing period; null: usage-only.' }),
    billingPeriod: literals(billingPeriods, 'The billing period.'),
    priceText: Type.String({ maxLength: 100, description: 'The entry price as the pricing page words it ("$199.00/mo", "Free").' }),
  },
  { title: 'ChangeCandidate' },
);

export const ChangePreviewSchema = Type.Object(
  {
    object: Type.Literal('change_preview'),
    subscriptionId: Type.String({ maxLength: 100 }),
    subscriptionVersion: Type.Integer({
      description: 'Send it back as expectedVersion: a submit against a subscription changed since gets 409 SUBSCRIPTION_CHANGED.',
    }),
    action: ActionSchema,
    applyAt: ApplyAtSchema,
    currency: Type.String({ maxLength: 3 }),
    fromOffering: Type.Union([OfferingRef, Type.Null()]),
    toOffering: Type.Union([OfferingRef, Type.Null()], { description: 'null for a cancellation.' }),
    effectiveAt: Type.String({ format: 'date-time', description: 'Now, or the end of the current period.' }),
    credit: NullableMoney('For the unused time of what was paid for this period (rounded down). null for a cancellation: no refund figure before it is done.'),
    debit: NullableMoney('For the rest of this period on the new offering (rounded down).'),
    netChargeToday: NullableMoney('debit − credit: positive is charged today, negative is credited. null for a cancellation.'),
    usageToDate: Money('Usage so far in this period, rated on the current offering: billed with an IMMEDIATE change or cancellation ("0.00" for PERIOD_END).'),
    invoiceTotal: NullableMoney("What the change's invoice (finalized at once) totals; null when it issues none."),
    nextRenewalAt: NullableTimestamp,
    nextRenewalAmount: NullableMoney(
      'The entry price billed at the next renewal on the offering that applies then; null after a cancellation or for usage-only.',
    ),
    summary: Type.String({ maxLength: 1000, description: 'One or two plain sentences for the buyer, worded like the pricing page.' }),
    retentionOffer: Type.Union([RetentionOfferSchema, Type.Null()], {
      description: 'A cancellation with a reason: the offer fixed for that reason (accept it with POST …/retention-offer). null otherwise.',
    }),
  },
  { title: 'ChangePreview' },
);

/**
 * What the widget (a buyer's browser) sees of a subscription: never the seller's metadata, limits,
 * budgets or prices of its own.
 */
export const WidgetSubscriptionSchema = Type.Object(
  {
    object: Type.Literal('widget_subscription'),
    id: Type.String({ maxLength: 100 }),
    status: Type.String({ maxLength: 40, description: 'ACTIVE, ACTIVE_PENDING_CHANGE or CANCELLED.' }),
    version: Type.Integer({ description: 'Send it back as expectedVersion.' }),
    currency: Type.String({ maxLength: 3 }),
    offering: Type.Union([
      Type.Object({ id: Type.String({ maxLength: 100 }), name: Type.String({ maxLength: 200 }), priceText: Type.String({ maxLength: 100 }) }),
      Type.Null(),
    ]),
    currentPeriodEnd: Type.String({ format: 'date-time' }),
    trialEndsAt: NullableTimestamp,
    cancelAtPeriodEnd: Type.Boolean(),
    scheduledChange: Type.Union([
      Type.Object({
        offeringId: Type.String({ maxLength: 100 }),
        offeringName: Type.String({ maxLength: 200 }),
        effectiveAt: Type.String({ format: 'date-time' }),
      }),
      Type.Null(),
    ]),
  },
  { title: 'WidgetSubscription' },
);

const ChangeResultFields = {
  object: Type.Literal('subscription_change'),
  subscriptionId: Type.String({ maxLength: 100 }),
  action: ActionSchema,
  applyAt: ApplyAtSchema,
  channel: literals(changeChannels, 'API, or EMBED for the widget (cancel_channel).'),
  status: Type.String({
    maxLength: 40,
    description:
      'ACTIVE, ACTIVE_PENDING_CHANGE (a PERIOD_END change waiting), PAST_DUE or CANCELLED. A change that pays first and is not paid yet leaves it as it was.',
  }),
  offeringId: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
  offeringName: Type.Union([Type.String({ maxLength: 200 }), Type.Null()], { description: 'The new offering (the current one for a cancellation).' }),
  invoiceId: Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
    description: 'inv_…: the IMMEDIATE change’s invoice (finalized), or the last usage invoice of an immediate cancellation.',
  }),
  invoiceNumber: Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
    description:
      'The invoice’s number, as printed on it (e.g. INV-2026-000123): what a buyer knows it by. null when there is no invoice, or while it is a draft (an immediate cancellation’s last usage invoice, numbered when finalized).',
  }),
  creditNoteId: Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
    description: 'cn_…: IMMEDIATE downgrade or cancellation, when anything paid is unused.',
  }),
  creditNoteNumber: Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
    description: 'The credit note’s number, as printed on it (e.g. CN-2026-000007); null when there is none.',
  }),
  creditNoteAmount: NullableMoney('Its total.'),
  scheduledAt: NullableTimestamp,
  effectiveAt: NullableTimestamp,
  payment: Type.Union(
    [
      Type.Object({
        status: Type.Union(
          ['pending', 'processing', 'requires_action', 'succeeded', 'failed'].map((x) => Type.Literal(x)),
          {
            description:
              'succeeded: paid, the change took effect; failed: refused (failureCode), the change waits; requires_action: the buyer authenticates at actionUrl, then it takes effect; pending/processing: no answer yet (the change takes effect when it comes).',
          },
        ),
        failureCode: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
        failureMessage: Type.Union([Type.String({ maxLength: 500 }), Type.Null()]),
        actionUrl: Type.Union([Type.String({ maxLength: 2000 }), Type.Null()]),
      }),
      Type.Null(),
    ],
    {
      description:
        'An IMMEDIATE change with a charge, in an environment with Stripe connected and charge_automatically: the invoice is charged at once and the change takes effect only once it is paid (Stripe’s pending_if_incomplete; subscription.pendingUpdate meanwhile, for 23 hours). null when nothing was charged. A retry with the same Idempotency-Key answers as the first answer did and never charges again.',
    },
  ),
};

export const ChangeResultSchema = Type.Object({ ...ChangeResultFields, subscription: SubscriptionSchema }, { title: 'ChangeResult' });
/** The widget's result: the same, with what a buyer may see of the subscription. */
export const WidgetChangeResultSchema = Type.Object({ ...ChangeResultFields, subscription: WidgetSubscriptionSchema }, { title: 'WidgetChangeResult' });
