import type { RejectedEvent, UsageEvent } from './types.js';

/** The server's answer to one batch, once retries are over. */
export type BatchOutcome =
  | { ok: true; accepted: number; duplicates: number }
  /** 400: the batch was refused whole; these events (by index) are why. */
  | { ok: false; rejected: Array<RejectedEvent & { index: number }> };

/**
 * How the forwarder sends a batch; it throws ForwarderError SEND_FAILED when the batch cannot be
 * delivered. `sdk-batch-sender.ts` implements it over @tollgate/sdk's ingestBatch (the spec's
 * retries); a caller may give its own (a queue, another transport).
 */
export interface BatchSender {
  sendBatch(events: readonly UsageEvent[], idempotencyKey: string): Promise<BatchOutcome>;
}
