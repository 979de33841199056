export interface WorkspaceTable {
  id: string;
  name: string;
  /** Null means the configured default (RATE_LIMIT_PER_MINUTE). */
  rateLimitPerMinute: number | null;
  createdAt: number;
  updatedAt: number;
}
