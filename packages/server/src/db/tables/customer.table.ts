export interface CustomerTable {
  id: string;
  workspaceId: string;
  environment: string;
  externalId: string | null;
  name: string | null;
  email: string | null;
  /** JSON object text. */
  metadata: string;
  createdAt: number;
  updatedAt: number;
}
