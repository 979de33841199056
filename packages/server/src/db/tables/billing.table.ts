export interface InvoiceTable {
  id: string;
  workspaceId: string;
  environment: string;
  customerId: string;
  subscriptionId: string | null;
  /** One invoice per subscription and key (create, cycle:<boundary>, cancel:<boundary>): issuing is idempotent. */
  cycleKey: string | null;
  billingReason: string;
  /** draft, finalized, paid, void or uncollectible. */
  status: string;
  /** Assigned at finalization, gapless per tenant. */
  number: string | null;
  currency: string;
  /** The usage period the invoice closes (for a first invoice: the period it opens). */
  periodStart: number;
  periodEnd: number;
  /** Where the billing period whose free allowance its usage shares starts; null: periodStart (0014). */
  allowanceFrom: number | null;
  priceVersionId: string | null;
  /** JSON array of invoice lines. */
  lines: string;
  subtotal: string;
  total: string;
  /** Sum of the credit notes issued against it. */
  creditedTotal: string;
  amountPaid: string;
  /** charge_automatically | send_invoice, fixed when the invoice is issued. */
  collectionMethod: string;
  /** send_invoice: finalization plus the days until due; else null. */
  dueDate: number | null;
  /** Provider attempts made so far (0031). */
  attemptCount: number;
  /** When the collection job next charges it (the invoice's time); null: nothing scheduled. */
  nextPaymentAttemptAt: number | null;
  /** When its first automatic attempt failed: the retry schedule counts from it. */
  paymentFailedAt: number | null;
  /** The latest attempt's status; null: none. */
  latestAttemptStatus: string | null;
  /** JSON {code, message} of the latest failed attempt; null: none. */
  lastPaymentError: string | null;
  /** Where the buyer completes a payment that needs them (3-D Secure); null: none. */
  paymentActionUrl: string | null;
  testClockId: string | null;
  /** A draft is finalized at this instant (its creation plus the workspace's grace period). */
  finalizeAt: number;
  finalizedAt: number | null;
  paidAt: number | null;
  voidedAt: number | null;
  markedUncollectibleAt: number | null;
  metadata: string;
  createdAt: number;
  updatedAt: number;
}

export interface CreditNoteTable {
  id: string;
  workspaceId: string;
  environment: string;
  invoiceId: string;
  customerId: string;
  subscriptionId: string | null;
  number: string;
  /** issued or void. */
  status: string;
  reason: string;
  memo: string | null;
  currency: string;
  /** JSON array of credit-note lines. */
  lines: string;
  total: string;
  metadata: string;
  voidedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface DocumentSequenceTable {
  workspaceId: string;
  environment: string;
  /** invoice or credit_note. */
  kind: string;
  nextValue: number;
}

export interface BillingSettingsTable {
  workspaceId: string;
  environment: string;
  invoiceGraceMs: number;
  invoicePrefix: string;
  creditNotePrefix: string;
  /** Where a support hand-off retention offer sends the customer (https or mailto); null: no hand-off. */
  supportUrl: string | null;
  /** charge_automatically | send_invoice: how this environment's invoices are collected. */
  collectionMethod: string;
  /** send_invoice: days from finalization to the due date. */
  daysUntilDue: number;
  /** JSON array of days after the first failed payment when it is retried (0031). */
  paymentRetryDays: string;
  pastDueGraceDays: number;
  /** cancel_subscription | mark_uncollectible: what happens after the last retry fails. */
  pastDueFinalAction: string;
  updatedAt: number;
}

export interface PriceVersionTable {
  id: string;
  workspaceId: string;
  environment: string;
  offeringId: string;
  /** SHA-256 of content: an unchanged offering reuses its version. */
  contentHash: string;
  /** JSON: the offering and its rate plans as they were priced. */
  content: string;
  createdAt: number;
}
