export interface SubscriptionTable {
  id: string;
  workspaceId: string;
  environment: string;
  customerId: string;
  productId: string;
  /** The offering subscribed to; null for a subscription priced by unitPrices. */
  offeringId: string | null;
  /** End (exclusive) of the trial; null without one. */
  trialEndsAt: number | null;
  status: string;
  billingPeriod: string;
  currentPeriodStart: number;
  currentPeriodEnd: number;
  /** Bumped on every change; later changes (upgrade, cancel) compare it to detect races. */
  version: number;
  startedAt: number;
  cancelledAt: number | null;
  metadata: string;
  currency: string;
  /** JSON array of {metricName, limit, enforcement}. */
  usageLimits: string;
  /** JSON {amount, enforcement} or null: no budget. */
  spendBudget: string | null;
  /** JSON object metricName -> decimal price per unit. */
  unitPrices: string;
  createdAt: number;
  updatedAt: number;
}
