import { Type, type Static } from '@sinclair/typebox';
import { roundToMinorUnit } from '@tollgate/pricing';
import { toIso, toIsoOrNull } from '../../lib/clock.js';

export const paymentProviderNames = ['manual', 'stripe', 'customer_balance'] as const;
export type PaymentProviderName = (typeof paymentProviderNames)[number];

/**
 * A provider attempt's status: pending (written before the provider is called; no answer yet),
 * processing, requires_action (the buyer must act), then succeeded or failed. A manual payment is
 * succeeded from the start.
 */
export const paymentAttemptStatuses = ['pending', 'processing', 'requires_action', 'succeeded', 'failed'] as const;
export type PaymentAttemptStatus = (typeof paymentAttemptStatuses)[number];

/** Why an attempt was made. */
export const paymentTriggers = ['automatic', 'retry', 'card_updated', 'manual_retry', 'customer', 'plan_change', 'payment_page'] as const;
export type PaymentTrigger = (typeof paymentTriggers)[number];

/**
 * The order outcomes can follow: an outcome is applied only when it ranks above the attempt's
 * current one, so webhooks and reconciliation may arrive in any order and a late "processing"
 * never undoes a success. A failed attempt may still succeed (the buyer completes 3-D Secure on
 * the provider's page); nothing follows succeeded.
 */
const RANK: Record<PaymentAttemptStatus, number> = { pending: 0, processing: 1, requires_action: 2, failed: 3, succeeded: 4 };
export const outcomeAdvances = (from: PaymentAttemptStatus, to: PaymentAttemptStatus): boolean => RANK[to] > RANK[from];

/** An attempt whose outcome may still change (the reconciliation asks the provider about these). */
export const isUnsettled = (s: PaymentAttemptStatus) => s === 'pending' || s === 'processing' || s === 'requires_action';

/** A payment against an invoice, or (with a provider) an attempt at one. */
export interface Payment {
  id: string;
  invoiceId: string;
  customerId: string;
  provider: PaymentProviderName;
  status: PaymentAttemptStatus;
  /** Decimal text in the invoice's currency, in its minor digits. */
  amount: string;
  currency: string;
  reference: string | null;
  /** When the money arrived; null until an attempt succeeds. */
  paidAt: number | null;
  /** A provider attempt's number on its invoice (1, 2…); null for a manual payment. */
  attempt: number | null;
  /** What the provider received as its Idempotency-Key. */
  idempotencyKey: string | null;
  providerReference: string | null;
  paymentMethodId: string | null;
  failureCode: string | null;
  failureMessage: string | null;
  actionUrl: string | null;
  trigger: PaymentTrigger | null;
  /** Decimal text: refunded so far. */
  amountRefunded: string;
  createdAt: number;
  updatedAt: number;
}

export const PaymentSchema = Type.Object(
  {
    id: Type.String({ description: 'pay_…' }),
    object: Type.Literal('payment'),
    invoiceId: Type.String(),
    customerId: Type.String(),
    provider: Type.Union(
      paymentProviderNames.map((p) => Type.Literal(p)),
      {
        description:
          'manual: recorded by an operator (a bank transfer, a cheque); stripe: collected through the connected Stripe account; customer_balance: spent from the customer’s balance (credit notes credited to it) when the invoice was finalized.',
      },
    ),
    status: Type.Union(
      paymentAttemptStatuses.map((p) => Type.Literal(p)),
      {
        description:
          'A manual payment is succeeded. A provider attempt: pending (asked, no answer yet: the reconciliation asks again), processing, requires_action (the buyer must act at actionUrl), succeeded or failed (failureCode says why).',
      },
    ),
    amount: Type.String({ description: 'Decimal, in the invoice’s currency and its minor digits.' }),
    amountRefunded: Type.String({
      description:
        'Refunded so far, decimal: credit notes’ refunds through Stripe or out of band, and refunds Stripe reports (charge.refunded, its dashboard’s too). Only ever grows.',
    }),
    currency: Type.String(),
    reference: Type.Union([Type.String({ maxLength: 255 }), Type.Null()], { description: 'The payer’s or the bank’s reference, as recorded.' }),
    paidAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the money arrived; null until it has.' }),
    attempt: Type.Union([Type.Integer(), Type.Null()], { description: 'A provider attempt’s number on the invoice (1, 2…); null for a manual payment.' }),
    trigger: Type.Union([...paymentTriggers.map((t) => Type.Literal(t)), Type.Null()], {
      description:
        'Why the attempt was made: automatic (at finalization), retry (the retry schedule), card_updated (a new payment method), manual_retry (an operator’s POST /api/v1/invoices/{id}/attempt_payment), customer (the buyer paid from the developer hub), plan_change (an upgrade charged at once), payment_page (the buyer opened the invoice’s payment page, hostedInvoiceUrl: a Stripe Checkout page); null for a manual payment.',
    }),
    providerReference: Type.Union([Type.String({ maxLength: 255 }), Type.Null()], {
      description:
        'The provider’s object: Stripe’s PaymentIntent (pi_…), or for a payment page its Checkout Session (cs_…) until the buyer paid; null for a manual payment and until the provider answered.',
    }),
    failureCode: Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
      description:
        'failed: the provider’s decline or error code (card_declined, insufficient_funds, expired_card, authentication_required, no_payment_method…).',
    }),
    failureMessage: Type.Union([Type.String({ maxLength: 500 }), Type.Null()]),
    actionUrl: Type.Union([Type.String({ maxLength: 2000 }), Type.Null()], { description: 'requires_action: where the buyer completes the payment.' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Payment' },
);

export const RecordPaymentBody = Type.Object(
  {
    amount: Type.String({
      minLength: 1,
      maxLength: 40,
      description: 'Decimal string, more than 0, at most the invoice’s amountRemaining, in at most the currency’s minor digits ("120.50").',
    }),
    paidAt: Type.Optional(
      Type.String({
        format: 'date-time',
        maxLength: 40,
        description: 'When the money arrived; default now (the invoice’s test clock’s time, if it has one). Not in the future.',
      }),
    ),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'The payer’s or the bank’s reference, kept as given.' })),
  },
  { additionalProperties: false },
);
export type RecordPaymentInput = Static<typeof RecordPaymentBody>;

export function presentPayment(p: Payment): Static<typeof PaymentSchema> {
  const { idempotencyKey: _key, paymentMethodId: _pm, ...shown } = p;
  return { ...shown, object: 'payment', paidAt: toIsoOrNull(p.paidAt), createdAt: toIso(p.createdAt), updatedAt: toIso(p.updatedAt) };
}

/** A payment from the customer's balance, made when an invoice is finalized: succeeded from the start. */
export function balancePayment(fields: Pick<Payment, 'id' | 'invoiceId' | 'customerId' | 'amount' | 'currency' | 'paidAt' | 'createdAt'>): Payment {
  return { ...manualPayment({ ...fields, reference: null }), provider: 'customer_balance' };
}

/** A manual payment: money that arrived outside any provider, succeeded from the start. */
export function manualPayment(
  fields: Pick<Payment, 'id' | 'invoiceId' | 'customerId' | 'amount' | 'currency' | 'reference' | 'paidAt' | 'createdAt'>,
): Payment {
  return {
    ...fields,
    provider: 'manual',
    status: 'succeeded',
    attempt: null,
    idempotencyKey: null,
    providerReference: null,
    paymentMethodId: null,
    failureCode: null,
    failureMessage: null,
    actionUrl: null,
    trigger: null,
    amountRefunded: roundToMinorUnit('0', fields.currency),
    updatedAt: fields.createdAt,
  };
}
