export interface ProductTable {
  id: string;
  workspaceId: string;
  environment: string;
  name: string;
  kind: string;
  description: string | null;
  metadata: string;
  createdAt: number;
  updatedAt: number;
}
