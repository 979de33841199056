export interface OfferingTable {
  id: string;
  workspaceId: string;
  environment: string;
  productId: string;
  name: string;
  billingMode: string;
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
