export interface StorefrontKeyTable {
  id: string;
  workspaceId: string;
  environment: string;
  name: string;
  keyHash: string;
  hint: string;
  status: string;
  createdAt: number;
  updatedAt: number;
  revokedAt: number | null;
}
