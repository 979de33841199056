import { Type, type Static } from '@sinclair/typebox';
import { toIso, toIsoOrNull } from '../../lib/clock.js';

export const paymentProviderNames = ['manual', 'stripe'] as const;
export type PaymentProviderName = (typeof paymentProviderNames)[number];

/** A payment against an invoice, or (with a provider) an attempt at one. */
export interface Payment {
  id: string;
  invoiceId: string;
  customerId: string;
  provider: PaymentProviderName;
  status: 'succeeded';
  /** Decimal text in the invoice's currency, in its minor digits. */
  amount: string;
  currency: string;
  reference: string | null;
  paidAt: number | null;
  createdAt: number;
}

export const PaymentSchema = Type.Object(
  {
    id: Type.String({ description: 'pay_…' }),
    object: Type.Literal('payment'),
    invoiceId: Type.String(),
    customerId: Type.String(),
    provider: Type.Union(
      paymentProviderNames.map((p) => Type.Literal(p)),
      { description: 'manual: recorded by an operator (a bank transfer, a cheque); stripe: collected through the connected Stripe account.' },
    ),
    status: Type.Literal('succeeded'),
    amount: Type.String({ description: 'Decimal, in the invoice’s currency and its minor digits.' }),
    currency: Type.String(),
    reference: Type.Union([Type.String({ maxLength: 255 }), Type.Null()], { description: 'The payer’s or the bank’s reference, as recorded.' }),
    paidAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the money arrived.' }),
    createdAt: Type.String({ format: 'date-time' }),
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
  return { ...p, object: 'payment', paidAt: toIsoOrNull(p.paidAt), createdAt: toIso(p.createdAt) };
}
