export interface IdempotencyKeyTable {
  workspaceId: string;
  environment: string;
  key: string;
  /** Hash of method, route and body: the same key with another request is refused. */
  fingerprint: string;
  responseStatus: number;
  responseBody: string;
  createdAt: number;
}
