export interface RefundTable {
  id: string;
  workspaceId: string;
  environment: string;
  /** The credit note that gives the money back. */
  creditNoteId: string;
  invoiceId: string;
  customerId: string;
  /** The payment it is taken from; null when credited to the customer's balance (or beyond the recorded payments of an invoice marked paid). */
  paymentId: string | null;
  /** provider (through the payment's provider), out_of_band (returned outside Tollgate, recorded), customer_balance. */
  method: string;
  /** pending (the provider has not answered yet), succeeded or failed. */
  status: string;
  /** Decimal text in the invoice's currency, in its minor digits. */
  amount: string;
  currency: string;
  /** What the provider received as Idempotency-Key: derived from the credit note and the payment. */
  idempotencyKey: string | null;
  /** The provider's refund (Stripe: re_…); null until it answered. */
  providerReference: string | null;
  failureCode: string | null;
  failureMessage: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface CustomerBalanceTable {
  workspaceId: string;
  environment: string;
  customerId: string;
  currency: string;
  /** Decimal text: what the customer may spend on their next invoices in this currency, never below zero. */
  balance: string;
  updatedAt: number;
}
