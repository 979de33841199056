export interface PaymentTable {
  id: string;
  workspaceId: string;
  environment: string;
  invoiceId: string;
  customerId: string;
  /** 'manual' (recorded by an operator) or a connected provider ('stripe'). */
  provider: string;
  /** 'succeeded' for a manual payment. */
  status: string;
  /** Decimal text in the invoice's currency, in its minor digits. */
  amount: string;
  currency: string;
  /** The payer's or the bank's reference, as the operator typed it. */
  reference: string | null;
  /** When the money arrived (the invoice's time: its test clock's, if any). */
  paidAt: number | null;
  createdAt: number;
}
