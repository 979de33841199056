import { Type, type Static } from '@sinclair/typebox';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import { Metadata, Timestamp } from '../../http/schemas.js';
import { RefundSchema, refundMethods } from '../payments/refund.js';

/**
 * A credit note (cn_): money given back against one finalized invoice, with lines and a reason,
 * numbered like invoices in a sequence of its own. Credit notes never exceed what is left of
 * their invoice (its total less earlier credit notes); the invoice's own lines never change.
 */
export const creditNoteReasons = ['duplicate', 'fraudulent', 'order_change', 'product_unsatisfactory', 'proration', 'other'] as const;
export type CreditNoteReason = (typeof creditNoteReasons)[number];

export interface CreditNoteLine {
  description: string;
  amount: string;
  /** The position in the invoice's lines of the line it credits, if any. */
  invoiceLineIndex: number | null;
}

export interface CreditNote {
  id: string;
  invoiceId: string;
  customerId: string;
  subscriptionId: string | null;
  number: string;
  status: 'issued' | 'void';
  reason: CreditNoteReason;
  memo: string | null;
  currency: string;
  lines: CreditNoteLine[];
  total: string;
  metadata: Record<string, string>;
  voidedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

const Amount = Type.String({
  pattern: '^(0|[1-9][0-9]{0,14})(\\.[0-9]{1,12})?$',
  maxLength: 40,
  description: 'A positive decimal string with at most the currency\'s minor digits, e.g. "12.50".',
});
const Reason = Type.Union(
  creditNoteReasons.map((r) => Type.Literal(r)),
  { description: "Why: Stripe's reasons, plus proration (plan changes) and other." },
);
const LineSchema = Type.Object({
  description: Type.String(),
  amount: Type.String(),
  invoiceLineIndex: Type.Union([Type.Integer(), Type.Null()]),
});

export const CreditNoteSchema = Type.Object(
  {
    id: Type.String({ description: 'cn_…' }),
    object: Type.Literal('credit_note'),
    invoiceId: Type.String(),
    customerId: Type.String(),
    subscriptionId: Type.Union([Type.String(), Type.Null()]),
    number: Type.String({ description: 'The credit-note prefix, the year and a gapless sequence per workspace and environment, e.g. CN-2026-000007.' }),
    status: Type.Union([Type.Literal('issued'), Type.Literal('void')]),
    reason: Reason,
    memo: Type.Union([Type.String(), Type.Null()]),
    currency: Type.String(),
    lines: Type.Array(LineSchema, { maxItems: 100 }),
    total: Type.String(),
    metadata: Metadata,
    voidedAt: Type.Union([Timestamp, Type.Null()]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'CreditNote' },
);

export const CreateCreditNoteBody = Type.Object(
  {
    invoiceId: Type.String({ minLength: 1, maxLength: 100, description: 'inv_…: a finalized, paid or uncollectible invoice.' }),
    reason: Reason,
    memo: Type.Optional(Type.String({ maxLength: 500 })),
    lines: Type.Array(
      Type.Object(
        {
          description: Type.String({ minLength: 1, maxLength: 500 }),
          amount: Amount,
          invoiceLineIndex: Type.Optional(
            Type.Integer({ minimum: 0, maximum: 999, description: 'The invoice line credited (its position); at most that line’s amount.' }),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100 },
    ),
    metadata: Type.Optional(Metadata),
    refund: Type.Optional(
      Type.Object(
        {
          method: Type.Union(
            refundMethods.map((m) => Type.Literal(m)),
            {
              description:
                'provider: refunded through Stripe against the invoice’s Stripe payments, newest first (Stripe must be connected); out_of_band: money you returned outside Tollgate, recorded against the invoice’s other payments (the way to refund a manual payment); customer_balance: credited to the customer’s balance, which their next invoices spend first, at finalization.',
            },
          ),
          amount: Type.Optional(
            Type.String({
              pattern: '^(0|[1-9][0-9]{0,14})(\\.[0-9]{1,12})?$',
              maxLength: 40,
              description:
                'What goes back, at most the credit note’s total (the default) and at most what was paid on the invoice and not yet given back (through the provider: what its Stripe payments have left); more is a 400 naming this field. The rest of the credit note is credited without money moving.',
            }),
          ),
        },
        {
          additionalProperties: false,
          description:
            'Only for a paid invoice: what happens to the money (Stripe’s refund_amount, out_of_band_amount and credit_amount). Without it nothing moves, as before: the invoice’s creditedTotal grows. On an invoice still open a credit note reduces what is owed instead, and refund is a 400.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type CreateCreditNoteInput = Static<typeof CreateCreditNoteBody>;

/** The answer to POST /api/v1/credit_notes: the credit note and the refunds it made, as they stand after the call. */
export const IssuedCreditNoteSchema = Type.Composite(
  [
    CreditNoteSchema,
    Type.Object({
      refunds: Type.Array(RefundSchema, {
        maxItems: 1000,
        description:
          'With refund: a refund per payment it is taken from (or one credited to the customer’s balance), as they stand when the call returns; a provider refund Stripe did not answer in time is pending and settled by the reconciliation (GET /api/v1/refunds?creditNoteId= shows it later). Empty without refund.',
      }),
    }),
  ],
  { title: 'IssuedCreditNote' },
);

export function presentCreditNote(c: CreditNote): Static<typeof CreditNoteSchema> {
  return { ...c, object: 'credit_note', voidedAt: toIsoOrNull(c.voidedAt), createdAt: toIso(c.createdAt), updatedAt: toIso(c.updatedAt) };
}
