export interface HubSessionTable {
  id: string;
  workspaceId: string;
  environment: string;
  customerId: string;
  /** SHA-256 hex of the single-use hbl_ link token; the token itself is never stored. */
  linkTokenHash: string;
  /** When the link was exchanged for the cookie; null while it is unused. */
  linkUsedAt: number | null;
  /** SHA-256 hex of the hst_ cookie secret; null until the link is exchanged. */
  tokenHash: string | null;
  /** SHA-256 hex of the CSRF token (derived from the cookie secret); null until the link is exchanged. */
  csrfHash: string | null;
  returnUrl: string | null;
  /** JSON object: accentColor, logoUrl, title (each optional). */
  theme: string;
  /** Real time (epoch ms). */
  expiresAt: number;
  revokedAt: number | null;
  createdAt: number;
}
