export interface WebhookSourceTable {
  id: string;
  workspaceId: string;
  environment: string;
  provider: string;
  displayName: string;
  metricId: string;
  /** JSON: the signature options (provider-templates.ts SignatureOptions). */
  signature: string;
  /** JSON: where the event type is read (a JSONPath string or {"header": …}). */
  eventTypeFrom: string | null;
  /** JSON array of event types; [] processes every type. */
  eventFilter: string;
  /** JSON: the spec's field_mappings object. */
  fieldMappings: string;
  dedupWindowHours: number;
  /** base64(nonce | ciphertext | tag), AES-256-GCM; null when no secret is set. */
  secretCiphertext: string | null;
  /** Id of the encryption key that sealed it (TOLLGATE_ENCRYPTION_KEYS). */
  secretKeyId: string | null;
  secretHint: string | null;
  createdAt: number;
  updatedAt: number;
  /** Set when deleted: the URL then answers 404; the log keeps its entries. */
  deletedAt: number | null;
}

export interface WebhookEventIdTable {
  workspaceId: string;
  environment: string;
  sourceId: string;
  providerEventId: string;
  expiresAt: number;
}
