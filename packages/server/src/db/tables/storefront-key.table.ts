export interface StorefrontKeyTable {
  id: string;
  workspaceId: string;
  environment: string;
  name: string;
  /** The storefront whose configuration the key reads; null only for keys made before storefronts existed. */
  storefrontId: string | null;
  keyHash: string;
  hint: string;
  status: string;
  createdAt: number;
  updatedAt: number;
  revokedAt: number | null;
}
