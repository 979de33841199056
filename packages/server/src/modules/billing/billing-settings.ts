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
  updatedAt: number;
}

/**
 * Stripe's two ways: charge_automatically (the customer's payment method is charged when the
 * invoice is finalized) or send_invoice (the buyer pays by the due date, through the invoice's
 * hosted link or outside Tollgate).
 */
export const collectionMethods = ['charge_automatically', 'send_invoice'] as const;
export type CollectionMethod = (typeof collectionMethods)[number];
export const CollectionMethodSchema = Type.Union(
  collectionMethods.map((m) => Type.Literal(m)),
  {
    description:
      'charge_automatically: the payment method on file is charged when the invoice is finalized (nothing is charged while no payment provider is connected); send_invoice: the buyer pays by the due date.',
  },
);

export const DEFAULT_BILLING_SETTINGS: BillingSettings = {
  invoiceGraceMs: 3_600_000,
  invoicePrefix: 'INV',
  creditNotePrefix: 'CN',
  supportUrl: null,
  collectionMethod: 'charge_automatically',
  daysUntilDue: 30,
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
    updatedAt: s.updatedAt === 0 ? null : toIso(s.updatedAt),
  };
}
