/** Prepaid credits (migration 0034). Amounts are decimal text in the currency's minor unit. */
export interface CreditGrantTable {
  id: string;
  workspaceId: string;
  environment: string;
  customerId: string;
  currency: string;
  /** What was granted. */
  amount: string;
  /** What is left: the amount plus the grant's ledger entries, changed only with them. */
  remaining: string;
  /** A lower number is drawn first. */
  priority: number;
  effectiveAt: number;
  /** null: never expires. */
  expiresAt: number | null;
  /** purchased | promotional | recurring | rollover | adjustment. */
  source: string;
  /** pending (a purchase not yet paid) | active | voided | expired. */
  status: string;
  /** Limited to this subscription's usage; null for any. */
  subscriptionId: string | null;
  /** JSON array of metric names it is limited to; null for every metric. */
  metricNames: string | null;
  /** What the buyer paid for it, in its currency; null when nothing was paid. */
  costAmount: string | null;
  /** The invoice a purchase is paid by. */
  invoiceId: string | null;
  /** JSON object text. */
  metadata: string;
  voidedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface CreditLedgerEntryTable {
  id: string;
  workspaceId: string;
  environment: string;
  customerId: string;
  currency: string;
  grantId: string;
  /** grant | top_up | draw | expiry | void | rollover. */
  type: string;
  /** Signed: positive adds to the balance, negative takes from it. */
  amount: string;
  /** The customer's balance in this currency after this entry. */
  balanceAfter: string;
  subscriptionId: string | null;
  invoiceId: string | null;
  /** The instant it takes effect (a draw: its period's close; an expiry: the grant's expiresAt). */
  occurredAt: number;
  createdAt: number;
}

export interface CreditBalanceTable {
  workspaceId: string;
  environment: string;
  customerId: string;
  currency: string;
  balance: string;
  updatedAt: number;
}

/** Per customer and currency: the low-balance alert and the automatic top-up, with their state (migration 0036). */
export interface CreditSettingsTable {
  workspaceId: string;
  environment: string;
  customerId: string;
  currency: string;
  lowBalanceThreshold: string | null;
  /** The automatic top-up: all four set, or all null. */
  topUpThreshold: string | null;
  topUpAmount: string | null;
  topUpCost: string | null;
  topUpMaxPerPeriod: number | null;
  /** 1: the next crossing fires (an alert, a top-up); 0: fired, until the balance is back above (or the top-up is paid). */
  lowArmed: number;
  exhaustedArmed: number;
  topUpArmed: number;
  /** Counts top-ups fired: the conditional update's guard. */
  topUpGeneration: number;
  /** The period (its start) the count is of. */
  topUpPeriodKey: string | null;
  topUpsInPeriod: number;
  createdAt: number;
  updatedAt: number;
}
