export interface RatePlanTable {
  id: string;
  workspaceId: string;
  environment: string;
  name: string;
  currency: string;
  billingPeriod: string;
  /** JSON array of CatalogUnitPricing (@tollgate/pricing). */
  metrics: string;
  metadata: string;
  version: number;
  createdAt: number;
  updatedAt: number;
}
