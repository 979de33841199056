export interface OfferingTable {
  id: string;
  workspaceId: string;
  environment: string;
  productId: string;
  name: string;
  billingMode: string;
  /** PREPAID: BILL | BLOCK; null for POSTPAID (migration 0035). */
  overage: string | null;
  /** PREPAID: JSON of the credits granted every period; null: none (migration 0035). */
  recurringCredits: string | null;
  currency: string;
  /** Decimal text per billing period; null: usage-only. */
  entryPrice: string | null;
  billingPeriod: string;
  trialDays: number;
  /** JSON array of rate plan ids, in display order. */
  ratePlanIds: string;
  /** JSON array of OfferingOverride. */
  overrides: string;
  metadata: string;
  version: number;
  createdAt: number;
  updatedAt: number;
}
