import type { RejectedEvent, UsageEvent } from './types.js';

/** The server's answer to one batch, once retries are over. */
export type BatchOutcome =
  | { ok: true; accepted: number; duplicates: number }
  /** 400: the batch was refused whole; these events (by index) are why. */
  | { ok: false; rejected: Array<RejectedEvent & { index: number }> };

/**
 * How the forwarder sends a batch; it throws ForwarderError SEND_FAILED when the batch cannot be
 * delivered. `http-batch-sender.ts` implements it with the spec's retry guidance, the same policy
 * as @tollgate/sdk's (retry-policy.ts there: 429/503 by Retry-After, 5 s when absent, 3 retries,
 * network errors retried only with an idempotency key).
 * TODO(sdk): switch to @tollgate/sdk once it can send one given batch. Today its only way to
 * ingest is the track() queue, which does not fit: batches go one after another (4 in flight
 * here), and a batch sealed by reaching 1,000 events is flushed by track() itself, so the
 * caller's flush() never sees its accepted and duplicate counts. What would fit: a public
 * `ingestBatch(events, { idempotencyKey })` that answers { accepted, duplicates } and throws its
 * TollgateError (errors[] with the refused events' indexes) after the same retries; then this
 * interface is ten lines over it and http-batch-sender.ts and retry-policy.ts go.
 */
export interface BatchSender {
  sendBatch(events: readonly UsageEvent[], idempotencyKey: string): Promise<BatchOutcome>;
}
