import { Type, type Static } from '@sinclair/typebox';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import { Environment, Metadata, NullableTimestamp, Timestamp } from '../../http/schemas.js';
import type { Environment as Env } from '../../lib/crypto.js';
import { nthPeriod, periodAlignments, periodContaining, type BillingSchedule, type PeriodAlignment } from '@tollgate/pricing';
import { billingPeriods, type BillingPeriod } from '../../lib/periods.js';
import { CancellationDetailsSchema, presentCancellationDetails, type CancellationDetails } from './cancellation-details.js';
import { EnforcementSchema, type Enforcement } from '../catalog/usage-limit.js';
import { UsageLimitOverrides, type UsageLimitOverride } from './usage-limits.js';
import { CollectionMethodSchema, type CollectionMethod } from './collection-method.js';

/**
 * ACTIVE; ACTIVE_PENDING_CHANGE while a change waits for the period end (the renewal job applies
 * it and the subscription is ACTIVE again); PAST_DUE while an automatic payment has failed and is
 * being retried (it keeps serving for the workspace's grace period, keeps renewing, and any change
 * it had waiting stays in scheduledChange; paid, it is ACTIVE or ACTIVE_PENDING_CHANGE again);
 * CANCELLED, for good.
 */
export const subscriptionStatuses = ['ACTIVE', 'ACTIVE_PENDING_CHANGE', 'PAST_DUE', 'CANCELLED'] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

// The limit shape is the catalog's too (rate plans' defaults): modules/catalog/usage-limit.ts.
export { enforcements, type Enforcement, type UsageLimit } from '../catalog/usage-limit.js';
export type { EffectiveUsageLimit, UsageLimitOverride } from './usage-limits.js';

/** The customer's spend budget for each period of this subscription; decimal text. */
export interface SpendBudget {
  amount: string;
  enforcement: Enforcement;
}

/**
 * A change that takes effect at the end of the current period, applied by the renewal job
 * (plan changes at PERIOD_END schedule one; see modules/billing/renew-subscription.ts).
 */
export interface ScheduledChange {
  /** The offering the next period is on. */
  offeringId: string;
  /** When it was asked for (the subscription's time). */
  requestedAt: number;
  /** Which way it goes (a plan change names it; absent on rows from before plan changes). */
  kind?: 'UPGRADE' | 'DOWNGRADE' | 'LATERAL';
  /** Who asked: the operator API, or the embedded widget. */
  channel?: 'API' | 'EMBED';
  /** The subscription's own limits from the change on (replacing usageLimits); absent on changes scheduled before they were carried: kept. */
  usageLimits?: UsageLimitOverride[];
}

/**
 * A percentage off the subscription's next renewal invoices, from an accepted retention offer
 * (modules/retention-offers). The renewal job puts it on each cycle invoice as a negative
 * `discount` line and counts `periodsLeft` down; null after the last.
 */
export interface SubscriptionDiscount {
  /** Decimal text, e.g. "20". */
  percentOff: string;
  /** How many invoices it was granted for. */
  periods: number;
  /** How many renewal invoices it still applies to (1..periods). */
  periodsLeft: number;
  source: 'retention_offer';
  /** roa_…: the acceptance that granted it. */
  acceptanceId: string;
}

export interface Subscription {
  id: string;
  environment: Env;
  customerId: string;
  productId: string;
  /** The offering subscribed to: its rate plans price usage. null: priced by unitPrices. */
  offeringId: string | null;
  trialEndsAt: number | null;
  status: SubscriptionStatus;
  billingPeriod: BillingPeriod;
  currentPeriodStart: number;
  currentPeriodEnd: number;
  version: number;
  startedAt: number;
  cancelledAt: number | null;
  metadata: Record<string, string>;
  currency: string;
  /** Its own limits, overriding its rate plans' defaults per metric (usage-limits.ts). */
  usageLimits: UsageLimitOverride[];
  spendBudget: SpendBudget | null;
  /** Without an offering: price per unit of each metric (rated as PER_UNIT). */
  unitPrices: Record<string, string>;
  /** Where period boundaries are counted from: the start, or the trial's end with a trial. */
  billingAnchor: number;
  periodAlignment: PeriodAlignment;
  /** The subscription ends at currentPeriodEnd: the renewal job cancels it then. */
  cancelAtPeriodEnd: boolean;
  scheduledChange: ScheduledChange | null;
  /** The test clock whose time the subscription lives in (its customer's); test environment only. */
  testClockId: string | null;
  /** The price version (pv_) the current period is rated with; null without an offering. */
  priceVersionId: string | null;
  /** Renewals keep priceVersionId instead of moving to the offering's prices of the day. */
  priceVersionPinned: boolean;
  /** An accepted retention offer's discount on the next renewal invoices; null: none. */
  discount: SubscriptionDiscount | null;
  /** How the cancellation (done, or waiting for the period end) was asked for; null: none asked for. */
  cancellationDetails: CancellationDetails | null;
  /** PAST_DUE since (its time); null when it is not past due. */
  pastDueSince: number | null;
  /** Past due: the entitlement check refuses (PAYMENT_PAST_DUE) from this instant, its time. */
  pastDueAccessUntil: number | null;
  /** Its own collection method; null: the workspace's billing settings decide, invoice by invoice. */
  collectionMethod: CollectionMethod | null;
  /** An IMMEDIATE change waiting for its invoice to be paid; null: none. */
  pendingUpdate: PendingUpdate | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * An IMMEDIATE plan change that pays first (Stripe's pending_if_incomplete): decided and invoiced
 * at the request, applied only once its invoice is paid (the subscription stays where it is
 * meanwhile), dropped and its invoice voided at `expiresAt`.
 */
export interface PendingUpdate {
  invoiceId: string;
  offeringId: string;
  priceVersionId: string | null;
  billingPeriod: BillingPeriod;
  billingAnchor: number;
  currentPeriodStart: number;
  currentPeriodEnd: number;
  usageLimits: UsageLimitOverride[];
  kind: 'UPGRADE' | 'DOWNGRADE' | 'LATERAL';
  channel: 'API' | 'EMBED';
  /** When it was asked for (the subscription's time). */
  requestedAt: number;
  /** The subscription's time after which it is dropped: 23 hours after it was asked for, as Stripe's. */
  expiresAt: number;
  /** The change's audit and webhook details, written when it applies. */
  details: Record<string, unknown>;
}

/** How long a change waits for its payment (Stripe's pending updates expire after 23 hours). */
export const PENDING_UPDATE_TTL_MS = 23 * 3_600_000;

/** Pure: the subscription once its pending change applies (the change's offering, period and limits). */
export function withPendingUpdateApplied(sub: Subscription, updatedAt: number): Subscription {
  const u = sub.pendingUpdate!;
  return {
    ...sub,
    offeringId: u.offeringId,
    priceVersionId: u.priceVersionId,
    billingPeriod: u.billingPeriod,
    billingAnchor: u.billingAnchor,
    currentPeriodStart: u.currentPeriodStart,
    currentPeriodEnd: u.currentPeriodEnd,
    usageLimits: u.usageLimits,
    pendingUpdate: null,
    version: sub.version + 1,
    updatedAt,
  };
}

/** The status a subscription that is not (or no longer) past due has: ACTIVE, or ACTIVE_PENDING_CHANGE while a change waits. */
export function settledStatus(s: Pick<Subscription, 'cancelAtPeriodEnd' | 'scheduledChange'>): SubscriptionStatus {
  return s.cancelAtPeriodEnd || s.scheduledChange !== null ? 'ACTIVE_PENDING_CHANGE' : 'ACTIVE';
}

/** Past due for longer than its grace period at `now` (its time): the product stops serving it. */
export function pastDueBlocks(s: Pick<Subscription, 'status' | 'pastDueAccessUntil'>, now: number): boolean {
  return s.status === 'PAST_DUE' && s.pastDueAccessUntil !== null && now >= s.pastDueAccessUntil;
}

const Status = Type.Union(subscriptionStatuses.map((s) => Type.Literal(s)));
const DecimalAmount = Type.String({ pattern: '^(0|[1-9][0-9]{0,14})(\\.[0-9]{1,12})?$', description: 'A non-negative decimal string, e.g. "49.90".' });
const SpendBudgetSchema = Type.Object({ amount: DecimalAmount, enforcement: EnforcementSchema }, { additionalProperties: false });
const UnitPrices = Type.Record(Type.String({ maxLength: 100 }), DecimalAmount, {
  maxProperties: 50,
  // TypeBox drops the key schema's maxLength (see MapOf in http/schemas.ts).
  propertyNames: { maxLength: 100 },
  description:
    'For a subscription without an offering: price per unit of each metric, in the subscription currency (rated as PER_UNIT). Not allowed with an offering, whose rate plans price usage.',
});
const Currency = Type.String({
  pattern: '^[A-Z]{3}$',
  description: 'ISO 4217 code with a minor unit (USD, JPY, KWD); codes without one (XAU, XDR, XXX) are refused.',
});
const EntitlementFields = {
  currency: Type.Optional(Currency),
  usageLimits: Type.Optional(UsageLimitOverrides),
  spendBudget: Type.Optional(Type.Union([SpendBudgetSchema, Type.Null()], { description: 'null: no budget (unlimited).' })),
  unitPrices: Type.Optional(UnitPrices),
};
const Period = Type.Union(billingPeriods.map((p) => Type.Literal(p)));
const Alignment = Type.Union(
  periodAlignments.map((a) => Type.Literal(a)),
  {
    description:
      'anniversary (default): each period starts on the day and time the subscription started (or its trial ended); a January 31 anchor renews on the last day of shorter months and returns to the 31st. calendar: periods start on the 1st of the month (quarters in January, April, July, October; years on January 1), and a first partial period is prorated.',
  },
);
const ScheduledChangeSchema = Type.Object({
  offeringId: Type.String({ description: 'The offering the next period is on.' }),
  requestedAt: Timestamp,
  kind: Type.Optional(Type.Union([Type.Literal('UPGRADE'), Type.Literal('DOWNGRADE'), Type.Literal('LATERAL')])),
  channel: Type.Optional(Type.Union([Type.Literal('API'), Type.Literal('EMBED')], { description: 'API, or EMBED when the widget scheduled it.' })),
  usageLimits: Type.Optional(
    Type.Array(UsageLimitOverrides.items, {
      maxItems: UsageLimitOverrides.maxItems,
      description: "The subscription's own limits from the change on: they replace usageLimits then ([]: the new offering's defaults only).",
    }),
  ),
});

const DiscountSchema = Type.Object({
  percentOff: Type.String({ maxLength: 20, description: 'Decimal text, e.g. "20".' }),
  periods: Type.Integer({ description: 'How many renewal invoices it was granted for.' }),
  periodsLeft: Type.Integer({ description: 'How many renewal invoices it still applies to.' }),
  source: Type.Literal('retention_offer'),
  acceptanceId: Type.String({ maxLength: 100, description: 'roa_…: the accepted retention offer.' }),
});

export const SubscriptionSchema = Type.Object(
  {
    id: Type.String({ description: 'sub_…' }),
    object: Type.Literal('subscription'),
    environment: Environment,
    customerId: Type.String(),
    productId: Type.String(),
    offeringId: Type.Union([Type.String(), Type.Null()], {
      description: 'off_…: its rate plans price usage, its includedFree is the quota of entitlement checks. null: priced by unitPrices.',
    }),
    trialEndsAt: NullableTimestamp,
    status: Status,
    billingPeriod: Period,
    currentPeriodStart: Timestamp,
    currentPeriodEnd: Type.String({ format: 'date-time', description: 'Exclusive end of the current period.' }),
    version: Type.Integer({ description: 'Increases with every change to the subscription.' }),
    startedAt: Timestamp,
    cancelledAt: NullableTimestamp,
    metadata: Metadata,
    currency: Currency,
    usageLimits: UsageLimitOverrides,
    spendBudget: Type.Union([SpendBudgetSchema, Type.Null()]),
    unitPrices: UnitPrices,
    billingCycleAnchor: Type.String({ format: 'date-time', description: 'Where period boundaries are counted from: the start, or the end of the trial.' }),
    periodAlignment: Alignment,
    cancelAtPeriodEnd: Type.Boolean({ description: 'true: the subscription is cancelled at currentPeriodEnd, and its keys revoked then.' }),
    scheduledChange: Type.Union([ScheduledChangeSchema, Type.Null()], { description: 'A change the renewal job applies at currentPeriodEnd.' }),
    testClockId: Type.Union([Type.String(), Type.Null()], { description: "clock_…: the test clock whose time this subscription lives in (its customer's)." }),
    priceVersionId: Type.Union([Type.String(), Type.Null()], {
      description: 'pv_…: the prices of the current period. An edit of the offering or its rate plans applies from the next period.',
    }),
    priceVersionPinned: Type.Boolean({ description: 'true: renewals keep this price version instead of taking the offering’s current prices.' }),
    discount: Type.Union([DiscountSchema, Type.Null()], {
      description:
        'A retention discount: each renewal invoice carries a negative discount line of percentOff of its other lines, until periodsLeft reaches 0 (then null).',
    }),
    cancellationDetails: Type.Union([CancellationDetailsSchema, Type.Null()], {
      description:
        'How the cancellation was asked for: the reason, cancel_channel (EMBED from the widget, API otherwise), the comment and when (requestedAt, in the subscription’s time). Set by a cancellation now or at the period end and kept once cancelled; null when none was asked for, or after a scheduled one is withdrawn.',
    }),
    pastDueSince: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'PAST_DUE: when an automatic payment first failed (its time); null when it is not past due.',
    }),
    pastDueAccessUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description:
        'PAST_DUE: the end of the grace period; from then until it is paid the entitlement check answers allowed false with reason PAYMENT_PAST_DUE. null when it is not past due.',
    }),
    collectionMethod: Type.Union([CollectionMethodSchema, Type.Null()], {
      description: 'How its invoices are collected; null: as the workspace’s billing settings say at each invoice.',
    }),
    pendingUpdate: Type.Union(
      [
        Type.Object({
          offeringId: Type.String({ maxLength: 100, description: 'The offering it moves to once paid.' }),
          invoiceId: Type.String({ maxLength: 100, description: 'inv_…: the change’s invoice, to be paid first.' }),
          requestedAt: Type.String({ format: 'date-time' }),
          expiresAt: Type.String({ format: 'date-time', description: 'Unpaid by then, the change is dropped and its invoice voided (23 hours).' }),
        }),
        Type.Null(),
      ],
      {
        description:
          'An IMMEDIATE plan change waiting for its invoice to be paid (Stripe connected, charge_automatically): the subscription stays on its offering until the payment succeeds, then changes (subscription.upgraded…); null when none waits.',
      },
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Subscription' },
);

export const CreateSubscriptionBody = Type.Object(
  {
    customerId: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The customer: its cus_ id or the externalId you gave it, as in usage events (an id match wins). The subscription names it by its cus_ id.',
    }),
    offeringId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'off_…: subscribe to an offering; productId, billingPeriod and currency then come from it (send them only if they agree).',
      }),
    ),
    productId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Required without offeringId.' })),
    billingPeriod: Type.Optional(
      Type.Union(
        billingPeriods.map((p) => Type.Literal(p)),
        { description: "Default MONTHLY, or the offering's." },
      ),
    ),
    periodAlignment: Type.Optional(Alignment),
    priceVersionPinned: Type.Optional(Type.Boolean({ description: 'Keep the prices of the day of subscribing for every period (default false).' })),
    collectionMethod: Type.Optional(
      Type.Union([CollectionMethodSchema, Type.Null()], {
        description: 'Its own collection method; left out or null: the workspace’s billing settings decide.',
      }),
    ),
    metadata: Type.Optional(Metadata),
    ...EntitlementFields,
  },
  { additionalProperties: false },
);
export type CreateSubscriptionInput = Static<typeof CreateSubscriptionBody>;

/** Limits, budget, prices and metadata can change; the version increases with every change. */
export const UpdateSubscriptionBody = Type.Object(
  {
    metadata: Type.Optional(Metadata),
    cancelAtPeriodEnd: Type.Optional(
      Type.Boolean({ description: 'true: cancel at the end of the current period (the renewal job does it, and revokes the keys then); false: undo that.' }),
    ),
    priceVersionPinned: Type.Optional(Type.Boolean()),
    collectionMethod: Type.Optional(
      Type.Union([CollectionMethodSchema, Type.Null()], { description: 'From the next invoice on; null: the workspace’s billing settings decide.' }),
    ),
    ...EntitlementFields,
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateSubscriptionInput = Static<typeof UpdateSubscriptionBody>;

type ScheduleFields = Pick<Subscription, 'billingAnchor' | 'billingPeriod' | 'periodAlignment'>;

/** The subscription's period boundaries, for @tollgate/pricing's period functions. */
export function scheduleOf(s: ScheduleFields): BillingSchedule {
  return { start: s.billingAnchor, interval: s.billingPeriod, alignment: s.periodAlignment };
}

/**
 * The first period of a subscription starting at `start`: the trial, when there is one (it ends
 * where the schedule starts), else the schedule's first period (partial when calendar-aligned).
 */
export function firstPeriod(s: ScheduleFields, start: number): { start: number; end: number } {
  if (start < s.billingAnchor) return { start, end: s.billingAnchor };
  const p = nthPeriod(scheduleOf(s), 0);
  return { start: p.start, end: p.end as number };
}

/**
 * The period a subscription is in at `now`. Until the renewal job moves currentPeriodStart and
 * currentPeriodEnd forward, a period that has ended is followed by the schedule's period
 * containing `now`: exactly where the renewal will put it.
 */
export function periodAt(s: Pick<Subscription, 'currentPeriodStart' | 'currentPeriodEnd'> & ScheduleFields, now: number): { start: number; end: number } {
  if (now < s.currentPeriodEnd) return { start: s.currentPeriodStart, end: s.currentPeriodEnd };
  const p = periodContaining(scheduleOf(s), now);
  return p === null ? { start: s.currentPeriodStart, end: s.currentPeriodEnd } : { start: p.start, end: p.end as number };
}

export function presentSubscription(s: Subscription): Static<typeof SubscriptionSchema> {
  const { billingAnchor, ...rest } = s;
  return {
    ...rest,
    billingCycleAnchor: toIso(billingAnchor),
    scheduledChange: s.scheduledChange
      ? {
          offeringId: s.scheduledChange.offeringId,
          requestedAt: toIso(s.scheduledChange.requestedAt),
          ...(s.scheduledChange.usageLimits ? { usageLimits: s.scheduledChange.usageLimits } : {}),
        }
      : null,
    object: 'subscription',
    currentPeriodStart: toIso(s.currentPeriodStart),
    currentPeriodEnd: toIso(s.currentPeriodEnd),
    startedAt: toIso(s.startedAt),
    trialEndsAt: toIsoOrNull(s.trialEndsAt),
    cancelledAt: toIsoOrNull(s.cancelledAt),
    cancellationDetails: presentCancellationDetails(s.cancellationDetails),
    pendingUpdate: s.pendingUpdate
      ? {
          offeringId: s.pendingUpdate.offeringId,
          invoiceId: s.pendingUpdate.invoiceId,
          requestedAt: toIso(s.pendingUpdate.requestedAt),
          expiresAt: toIso(s.pendingUpdate.expiresAt),
        }
      : null,
    pastDueSince: toIsoOrNull(s.pastDueSince),
    pastDueAccessUntil: toIsoOrNull(s.pastDueAccessUntil),
    createdAt: toIso(s.createdAt),
    updatedAt: toIso(s.updatedAt),
  };
}

/**
 * Cleared on this node by every committed subscription change, so its entitlement answers follow at
 * once (other nodes within ENTITLEMENT_CACHE_TTL_MS): the caches listening on it are declared by
 * the modules that cache what a subscription decides (entitlements/entitlement-answer-cache.ts).
 */
export const SUBSCRIPTIONS_CHANGED = 'subscriptions.changed';
