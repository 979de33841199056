export interface ApiKeyTable {
  id: string;
  workspaceId: string;
  environment: string;
  kind: string;
  name: string;
  keyHash: string;
  hint: string;
  /** Space-separated scopes; empty for product keys. */
  scopes: string;
  subscriptionId: string | null;
  customerId: string | null;
  productId: string | null;
  status: string;
  /** Set when a rotated key's grace period ends. */
  expiresAt: number | null;
  replacedById: string | null;
  /** Rotated while its subscription lives on this test clock: the grace runs in the clock's time. */
  graceTestClockId: string | null;
  /** That grace's end, in the clock's time. */
  graceEndsAtClock: number | null;
  /** When this rotated key was first used during its grace (api_key.grace_used); null: not yet. */
  graceUsedAt: number | null;
  createdAt: number;
  updatedAt: number;
  revokedAt: number | null;
}
