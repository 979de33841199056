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
 * TODO(sdk): @tollgate/sdk sends batches only through its track() queue (its own keys, one batch
 * at a time, a refused batch reported whole). Once it exposes one batch with the caller's
 * idempotency key, answering accepted/duplicates and the refused events by index, implement
 * this interface with it and drop http-batch-sender.ts.
 */
export interface BatchSender {
  sendBatch(events: readonly UsageEvent[], idempotencyKey: string): Promise<BatchOutcome>;
}
