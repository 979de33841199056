export interface RatePlanTable {
  id: string;
  workspaceId: string;
  environment: string;
  name: string;
  currency: string;
  billingPeriod: string;
  /** JSON array of CatalogUnitPricing (@tollgate/pricing). */
  metrics: string;
  /** JSON array of UsageLimit (modules/catalog/usage-limit.ts): the plan's default limits, each on one of its units. */
  usageLimits: string;
  metadata: string;
  version: number;
  createdAt: number;
  updatedAt: number;
}
