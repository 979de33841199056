import type { RejectedEvent, UsageEvent } from './types.js';

/** The server's answer to one batch, once retries are over. */
export type BatchOutcome =
  | { ok: true; accepted: number; duplicates: number }
  /** 400: the batch was refused whole; these events (by index) are why. */
  | { ok: false; rejected: Array<RejectedEvent & { index: number }> };

/**
 * How the forwarder sends a batch. `http-batch-sender.ts` implements it with the spec's retry
 * guidance; @tollgate/sdk's client will replace it (TODO once the SDK is merged). It throws
 * ForwarderError SEND_FAILED when the batch cannot be delivered.
 */
export interface BatchSender {
  sendBatch(events: readonly UsageEvent[], idempotencyKey: string): Promise<BatchOutcome>;
}
