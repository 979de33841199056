import { Type, type Static } from '@sinclair/typebox';
import { toIso, toIsoOrNull } from '../../lib/clock.js';
import { Metadata, Timestamp } from '../../http/schemas.js';

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
  },
  { additionalProperties: false },
);
export type CreateCreditNoteInput = Static<typeof CreateCreditNoteBody>;

export function presentCreditNote(c: CreditNote): Static<typeof CreditNoteSchema> {
  return { ...c, object: 'credit_note', voidedAt: toIsoOrNull(c.voidedAt), createdAt: toIso(c.createdAt), updatedAt: toIso(c.updatedAt) };
}
