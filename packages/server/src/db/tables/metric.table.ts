export interface MetricTable {
  id: string;
  workspaceId: string;
  environment: string;
  /** Exactly as usage events send it; unique per workspace and environment. */
  name: string;
  displayName: string | null;
  description: string | null;
  unit: string | null;
  /** JSON text of the metric's DimensionPaths; null when they are the defaults (every metric before 0024). */
  dimensionPaths: string | null;
  createdAt: number;
  updatedAt: number;
}
