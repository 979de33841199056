export interface PaymentTable {
  id: string;
  workspaceId: string;
  environment: string;
  invoiceId: string;
  customerId: string;
  /** 'manual' (recorded by an operator) or a connected provider ('stripe'). */
  provider: string;
  /** pending (asked, no answer yet), processing, requires_action, succeeded or failed; a manual payment is succeeded. */
  status: string;
  /** Decimal text in the invoice's currency, in its minor digits. */
  amount: string;
  currency: string;
  /** The payer's or the bank's reference, as the operator typed it. */
  reference: string | null;
  /** When the money arrived (the invoice's time: its test clock's, if any). */
  paidAt: number | null;
  /** A provider's attempt: its number on the invoice (1, 2…, unique per invoice); null for a manual payment. */
  attempt: number | null;
  /** What the provider received as Idempotency-Key: the same attempt never charges twice. */
  idempotencyKey: string | null;
  /** The provider's object (Stripe: the PaymentIntent's pi_…); null until it answered. */
  providerReference: string | null;
  /** The payment method the attempt charges, sent again on a retry of the same attempt. */
  paymentMethodId: string | null;
  failureCode: string | null;
  failureMessage: string | null;
  /** requires_action: where the buyer completes the payment. */
  actionUrl: string | null;
  /** Why the attempt was made: automatic, retry, card_updated, manual_retry, plan_change. */
  trigger: string | null;
  /** Decimal text: refunded so far. */
  amountRefunded: string;
  createdAt: number;
  updatedAt: number;
}
