export interface ClientCredentialTable {
  id: string;
  workspaceId: string;
  environment: string;
  name: string;
  secretHash: string;
  hint: string;
  subscriptionId: string;
  customerId: string;
  productId: string;
  status: string;
  createdAt: number;
  updatedAt: number;
  revokedAt: number | null;
}

export interface AccessTokenTable {
  tokenHash: string;
  workspaceId: string;
  environment: string;
  clientCredentialId: string;
  expiresAt: number;
  createdAt: number;
}
