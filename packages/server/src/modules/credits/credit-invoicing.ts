import type { Deps } from '../../deps.js';
import type { OperationContext } from '../../lib/operation-context.js';

/** A purchase of credits to invoice: the buyer pays `cost` for `amount` of credits. */
export interface CreditPurchase {
  /** The grant bought (pending until the invoice is paid): its line names it. */
  grantId: string;
  customerId: string;
  /** The subscription the credits are limited to, if any: the invoice names it too. */
  subscriptionId: string | null;
  testClockId: string | null;
  currency: string;
  amount: string;
  cost: string;
  /** The customer's time. */
  at: number;
}

/**
 * What billing does for a purchase of credits: an invoice for its cost, issued and finalized at
 * once in the caller's transaction, then collected as any invoice is. modules/billing sits above
 * this module and implements it (`creditInvoicing`); app.ts hands it down. When the invoice is
 * paid, billing activates the purchase's grant (activatePurchasedGrants).
 */
export interface CreditInvoicing {
  /** The invoice's id, and whether it is paid already (from the customer's balance, or nothing to pay). */
  invoicePurchase(txDeps: Deps, ctx: OperationContext, purchase: CreditPurchase): Promise<{ invoiceId: string; paid: boolean }>;
}
