import { Type, type Static } from '@sinclair/typebox';
import { toIso } from '../../lib/clock.js';

/** A workspace's billing settings, per environment. */
export interface BillingSettings {
  /** How long a draft waits for late usage before it is finalized. */
  invoiceGraceMs: number;
  invoicePrefix: string;
  creditNotePrefix: string;
  /** Where a support hand-off retention offer sends the customer (https:// or mailto:); null: none. */
  supportUrl: string | null;
  collectionMethod: CollectionMethod;
  /** send_invoice: days from finalization to the due date. */
  daysUntilDue: number;
  /** Days after the first failed automatic payment when it is tried again, ascending (dunning). */
  paymentRetryDays: number[];
  /** Days a past-due subscription keeps serving before the entitlement check refuses (PAYMENT_PAST_DUE). */
  pastDueGraceDays: number;
  /** After the last retry fails: cancel the subscription, or mark the invoice uncollectible and keep serving. */
  pastDueFinalAction: PastDueFinalAction;
  updatedAt: number;
}

export const pastDueFinalActions = ['cancel_subscription', 'mark_uncollectible'] as const;
export type PastDueFinalAction = (typeof pastDueFinalActions)[number];
const PastDueFinalActionSchema = Type.Union(
  pastDueFinalActions.map((a) => Type.Literal(a)),
  {
    description:
      'What happens when the last retry of an automatic payment fails: cancel_subscription (default; its keys are revoked as on any cancellation, the invoice stays open) or mark_uncollectible (the invoice is marked uncollectible, the subscription is no longer past due and keeps serving).',
  },
);

// The collection method is the subscriptions module's (a subscription may have its own); re-exported here.
export { collectionMethods, CollectionMethodSchema, type CollectionMethod } from '../subscriptions/collection-method.js';
import { CollectionMethodSchema, type CollectionMethod } from '../subscriptions/collection-method.js';

export const DEFAULT_BILLING_SETTINGS: BillingSettings = {
  invoiceGraceMs: 3_600_000,
  invoicePrefix: 'INV',
  creditNotePrefix: 'CN',
  supportUrl: null,
  collectionMethod: 'charge_automatically',
  daysUntilDue: 30,
  paymentRetryDays: [3, 5, 7],
  pastDueGraceDays: 3,
  pastDueFinalAction: 'cancel_subscription',
  updatedAt: 0,
};

/** INV-2026-000123: the prefix, the UTC year of finalization (real time, also for a test clock's documents), the sequence number. */
export function documentNumber(prefix: string, at: number, n: number): string {
  return `${prefix}-${new Date(at).getUTCFullYear()}-${String(n).padStart(6, '0')}`;
}

const Prefix = Type.String({ pattern: '^[A-Z0-9]{1,12}$', description: 'Capital letters and digits, up to 12.' });
const SupportUrl = Type.String({
  maxLength: 500,
  pattern: '^(https?://[^\\s/?#]+[^\\s]*|mailto:[^\\s@]+@[^\\s@]+)$',
  description: 'An https:// or http:// address, or mailto:someone@example.com; up to 500 characters.',
});

export const BillingSettingsSchema = Type.Object(
  {
    object: Type.Literal('billing_settings'),
    invoiceGraceSeconds: Type.Integer({ description: 'How long a draft invoice waits for late usage before it is finalized (default 3600).' }),
    invoicePrefix: Type.String({ description: 'Invoice numbers read PREFIX-YEAR-NNNNNN (default INV).' }),
    creditNotePrefix: Type.String({ description: 'Credit-note numbers likewise (default CN).' }),
    supportUrl: Type.Union([Type.String({ maxLength: 500 }), Type.Null()], {
      description: 'Where the SUPPORT_HANDOFF retention offer sends a customer who is cancelling; null: that offer becomes NONE.',
    }),
    collectionMethod: CollectionMethodSchema,
    daysUntilDue: Type.Integer({ description: 'send_invoice: days from finalization to the due date (default 30).' }),
    paymentRetryDays: Type.Array(Type.Integer(), {
      maxItems: 8,
      description: 'Days after the first failed automatic payment when it is tried again (default [3, 5, 7]); [] : never retried.',
    }),
    pastDueGraceDays: Type.Integer({
      description: 'Days a past-due subscription keeps serving before the entitlement check answers allowed false with reason PAYMENT_PAST_DUE (default 3).',
    }),
    pastDueFinalAction: PastDueFinalActionSchema,
    updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'BillingSettings' },
);

export const UpdateBillingSettingsBody = Type.Object(
  {
    invoiceGraceSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 * 86_400, description: '0 to 30 days.' })),
    invoicePrefix: Type.Optional(Prefix),
    creditNotePrefix: Type.Optional(Prefix),
    supportUrl: Type.Optional(Type.Union([SupportUrl, Type.Null()], { description: 'null removes it.' })),
    collectionMethod: Type.Optional(CollectionMethodSchema),
    daysUntilDue: Type.Optional(Type.Integer({ minimum: 0, maximum: 365, description: '0 to 365 days.' })),
    paymentRetryDays: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 60 }), {
        maxItems: 8,
        description: 'Up to 8 days from 1 to 60, strictly ascending, counted from the first failure, e.g. [3, 5, 7]; [] never retries.',
      }),
    ),
    pastDueGraceDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 60, description: '0 (refuse at once) to 60 days.' })),
    pastDueFinalAction: Type.Optional(PastDueFinalActionSchema),
  },
  { additionalProperties: false, minProperties: 1 },
);

export function presentBillingSettings(s: BillingSettings): Static<typeof BillingSettingsSchema> {
  return {
    object: 'billing_settings',
    invoiceGraceSeconds: Math.round(s.invoiceGraceMs / 1000),
    invoicePrefix: s.invoicePrefix,
    creditNotePrefix: s.creditNotePrefix,
    supportUrl: s.supportUrl,
    collectionMethod: s.collectionMethod,
    daysUntilDue: s.daysUntilDue,
    paymentRetryDays: s.paymentRetryDays,
    pastDueGraceDays: s.pastDueGraceDays,
    pastDueFinalAction: s.pastDueFinalAction,
    updatedAt: s.updatedAt === 0 ? null : toIso(s.updatedAt),
  };
}

/** Pure: why a retry schedule is refused (not strictly ascending), or null. */
export function retryScheduleProblem(days: readonly number[]): string | null {
  for (let k = 1; k < days.length; k++) {
    if (days[k]! <= days[k - 1]!) return `paymentRetryDays must be strictly ascending: ${days[k]} follows ${days[k - 1]}.`;
  }
  return null;
}
