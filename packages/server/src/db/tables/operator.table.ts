/** An operator: a person who signs in to the console of one workspace (both environments). */
export interface OperatorUserTable {
  id: string;
  workspaceId: string;
  /** Lower-cased. */
  email: string;
  name: string;
  /** 'admin' or 'viewer'. */
  role: string;
  /** scrypt$<log2 N>$<r>$<p>$<salt b64>$<hash b64>; never the password. */
  passwordHash: string;
  createdAt: number;
  /** Set when an admin removed the account: it cannot sign in, its sessions end. */
  removedAt: number | null;
}

/** A signed-in console: the cookie's secret, kept as its SHA-256. */
export interface OperatorSessionTable {
  id: string;
  workspaceId: string;
  operatorId: string;
  tokenHash: string;
  /** The address it signed in from, for the operator's own review. */
  ip: string;
  expiresAt: number;
  revokedAt: number | null;
  createdAt: number;
}

/** An invitation to become an operator: the link's token, kept as its SHA-256, works once. */
export interface OperatorInvitationTable {
  id: string;
  workspaceId: string;
  email: string;
  role: string;
  tokenHash: string;
  /** The operator (op_…) or actor id that invited. */
  invitedBy: string;
  expiresAt: number;
  acceptedAt: number | null;
  revokedAt: number | null;
  createdAt: number;
}
