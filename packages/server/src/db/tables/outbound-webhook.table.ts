import type { ColumnType, Generated } from 'kysely';

/** Tables of modules/outbound-webhooks (migrations 0016, 0017). Instants are epoch ms. */

export interface WebhookEndpointTable {
  id: string;
  workspaceId: string;
  environment: string;
  url: string;
  description: string;
  /** JSON object: the operator's metadata. */
  metadata: string;
  /** JSON array: exact catalog types, `category.*`, or ["*"]. */
  eventTypes: string;
  /** enabled | disabled */
  status: string;
  /** manual | failing | gone; null while enabled. */
  disabledReason: string | null;
  disabledAt: number | null;
  /** The first failure with no success since; null: healthy. */
  failingSince: number | null;
  maxConcurrency: number;
  /** base64(nonce | ciphertext | tag), AES-256-GCM, bound to `webhook_endpoint:<id>`. */
  secretCiphertext: string;
  secretKeyId: string;
  secretHint: string;
  /** The secret before the last rotation, still signed with until previousSecretExpiresAt. */
  previousSecretCiphertext: string | null;
  previousSecretKeyId: string | null;
  previousSecretExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
}

export interface WebhookMessageTable {
  /** Insert order (commit order within one ordering key); see migration 0016. */
  seq: Generated<number>;
  id: string;
  workspaceId: string;
  environment: string;
  eventType: string;
  /** sub_… (or the resource's id) for per-subscription order; null: unordered. */
  orderingKey: string | null;
  /** The exact bytes sent and signed. */
  body: string;
  /** event | test */
  source: string;
  correlationId: string;
  createdAt: number;
}

export interface WebhookDeliveryTable {
  messageId: string;
  endpointId: string;
  workspaceId: string;
  environment: string;
  eventType: string;
  messageSeq: number;
  orderingKey: string | null;
  /** pending | succeeded | failed */
  status: string;
  /** Every attempt ever made: the fence of the sender's result writes. */
  attempts: number;
  /** Attempts in this pass of the retry schedule (a replay resets it). */
  scheduleStep: number;
  /** Null unless pending. */
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  createdAt: number;
  updatedAt: number;
  /**
   * What triggers the next attempt (migration 0017): null for the retry schedule, `replay` or
   * `test`; the attempt records it as its trigger (null: `scheduled`). Inserts may leave it out.
   */
  nextAttemptTrigger: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface WebhookAttemptTable {
  id: string;
  workspaceId: string;
  environment: string;
  messageId: string;
  endpointId: string;
  eventType: string;
  attemptNumber: number;
  /** scheduled | replay | test */
  trigger: string;
  url: string;
  nodeId: string;
  /** succeeded | failed */
  status: string;
  responseStatus: number | null;
  /** The first 1 KiB of the response body (UTF-8, lossy). */
  responseBody: string | null;
  responseTruncated: number;
  errorCode: string | null;
  errorMessage: string | null;
  latencyMs: number;
  attemptedAt: number;
  nextAttemptAt: number | null;
}

export interface WebhookLaneTable {
  endpointId: string;
  workspaceId: string;
  environment: string;
  /** The node sending for this endpoint; null when released. */
  owner: string | null;
  leaseUntil: number;
  generation: number;
}
