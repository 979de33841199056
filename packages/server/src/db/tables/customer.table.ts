export interface CustomerTable {
  id: string;
  workspaceId: string;
  environment: string;
  externalId: string | null;
  name: string | null;
  email: string | null;
  /** JSON object text. */
  metadata: string;
  /** The test clock this customer (and its subscriptions) lives on; test environment only. */
  testClockId: string | null;
  createdAt: number;
  updatedAt: number;
}
