export interface WebhookLogTable {
  id: string;
  workspaceId: string;
  environment: string;
  sourceId: string;
  /** The source's displayName when the request arrived (migration 0025). */
  sourceDisplayName: string;
  receivedAt: number;
  /** accepted | duplicate | discarded | rejected (webhook-outcome.ts). */
  status: string;
  /** passed | failed | skipped (development bypass). */
  verification: string;
  httpStatus: number;
  reasonCode: string | null;
  reasonMessage: string | null;
  eventType: string | null;
  /** JSON array: what became of each event of the request (one, or one per element of a JSON array). */
  outcomes: string;
  /** JSON object of the request's headers, signature headers redacted. */
  headers: string;
  /** The raw body: UTF-8 text, or base64 when it is not valid UTF-8 or holds NUL bytes. */
  body: string;
  bodyEncoding: string;
  url: string;
  replayOf: string | null;
  correlationId: string;
}
