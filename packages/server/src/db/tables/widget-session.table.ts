export interface WidgetSessionTable {
  id: string;
  workspaceId: string;
  environment: string;
  subscriptionId: string;
  /** The subscription's customer when the session was minted (a subscription never changes customer). */
  customerId: string;
  /** SHA-256 hex of the wst_ token; the token itself is never stored. */
  tokenHash: string;
  /** JSON array of origins (`https://shop.example.com`); empty: any origin. */
  allowedOrigins: string;
  /** Real time (epoch ms), not the subscription's test clock. */
  expiresAt: number;
  revokedAt: number | null;
  createdAt: number;
}
