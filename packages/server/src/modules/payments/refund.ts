import { Type, type Static } from '@sinclair/typebox';
import { toIso } from '../../lib/clock.js';

/**
 * How a credit note on a paid invoice gives the money back (Stripe's credit notes split the same
 * way: refund_amount, out_of_band_amount, credit_amount):
 * - provider: refunded through the provider that took it (Stripe), against the invoice's provider
 *   payments, newest first;
 * - out_of_band: returned outside Tollgate (a bank transfer back) and recorded, the only way to
 *   refund a manual payment;
 * - customer_balance: kept as credit the customer's next invoices spend first.
 */
export const refundMethods = ['provider', 'out_of_band', 'customer_balance'] as const;
export type RefundMethod = (typeof refundMethods)[number];

/** pending: asked of the provider, no answer yet (the reconciliation asks again under the same key); then succeeded or failed. */
export const refundStatuses = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof refundStatuses)[number];

export interface Refund {
  id: string;
  creditNoteId: string;
  invoiceId: string;
  customerId: string;
  /** The payment it is taken from; null for customer_balance (and for an invoice marked paid beyond its recorded payments). */
  paymentId: string | null;
  method: RefundMethod;
  status: RefundStatus;
  /** Decimal text in the invoice's currency, in its minor digits. */
  amount: string;
  currency: string;
  idempotencyKey: string | null;
  providerReference: string | null;
  failureCode: string | null;
  failureMessage: string | null;
  createdAt: number;
  updatedAt: number;
}

/** A refund's status only moves forward: pending to succeeded or failed, never back, never from one to the other. */
export const refundSettles = (from: RefundStatus, to: RefundStatus): boolean => from === 'pending' && to !== 'pending';

/** Refunds that still count against what may be refunded: all but the failed. */
export const refundCounts = (r: Pick<Refund, 'status'>): boolean => r.status !== 'failed';

/** The key the provider receives for the refund of one payment by one credit note: a retry never refunds twice. */
export const refundKey = (creditNoteId: string, paymentId: string) => `tollgate-${creditNoteId}-refund-${paymentId}`;

export const RefundSchema = Type.Object(
  {
    id: Type.String({ maxLength: 100, description: 're_…' }),
    object: Type.Literal('refund'),
    creditNoteId: Type.String({ maxLength: 100, description: 'cn_…: the credit note that gives the money back.' }),
    invoiceId: Type.String({ maxLength: 100, description: 'inv_…' }),
    customerId: Type.String({ maxLength: 100, description: 'cus_…' }),
    paymentId: Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
      description: 'pay_…: the payment it is taken from; null when credited to the customer’s balance.',
    }),
    method: Type.Union(
      refundMethods.map((m) => Type.Literal(m)),
      {
        description:
          'provider: refunded through Stripe against the payment; out_of_band: returned outside Tollgate and recorded (a manual payment is refunded this way); customer_balance: credited to the customer’s balance, which their next invoices spend first.',
      },
    ),
    status: Type.Union(
      refundStatuses.map((s) => Type.Literal(s)),
      {
        description:
          'pending: asked of Stripe, no answer yet (the reconciliation asks again under the same idempotency key, so it is never refunded twice); succeeded; failed (failureCode says why). out_of_band and customer_balance are succeeded at once.',
      },
    ),
    amount: Type.String({ maxLength: 40, description: 'Decimal, in the invoice’s currency and its minor digits.' }),
    currency: Type.String({ maxLength: 3, description: 'The invoice’s currency, ISO 4217.' }),
    providerReference: Type.Union([Type.String({ maxLength: 255 }), Type.Null()], {
      description: 'The provider’s refund (Stripe: re_…); null until it answered and for the other methods.',
    }),
    failureCode: Type.Union([Type.String({ maxLength: 100 }), Type.Null()], { description: 'failed: the provider’s code.' }),
    failureMessage: Type.Union([Type.String({ maxLength: 500 }), Type.Null()], { description: 'failed: the provider’s words, for the operator.' }),
    createdAt: Type.String({ format: 'date-time', maxLength: 40, description: 'When the credit note asked for it.' }),
    updatedAt: Type.String({ format: 'date-time', maxLength: 40, description: 'When its status last changed (or the reconciliation last asked).' }),
  },
  { title: 'Refund' },
);

export function presentRefund(r: Refund): Static<typeof RefundSchema> {
  const { idempotencyKey: _key, ...shown } = r;
  return { ...shown, object: 'refund', createdAt: toIso(r.createdAt), updatedAt: toIso(r.updatedAt) };
}
