import { Tollgate, TollgateError, type FetchLike } from '@tollgate/sdk';
import type { BatchOutcome, BatchSender } from './batch-sender.js';
import { ForwarderError } from './types.js';

export interface SdkBatchSenderOptions {
  /** Tollgate's base URL (the ingest host), e.g. https://tollgate.example.com. */
  url: string;
  /** A workspace key with the ingest scope; sent as Authorization: Bearer. */
  apiKey: string;
  /** Per attempt; a timeout is retried like a network error. Default 30 s. */
  timeoutMs?: number;
  /** Injected in tests so a retry waits no real time. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  fetch?: FetchLike;
}

/**
 * Batches through @tollgate/sdk's ingestBatch: POST /v1/ingest/batch with the SDK's retries (the
 * spec's guidance: 429 and 503 after Retry-After, 5 s when absent, at most 3 retries; a lost
 * answer retried too, as every attempt carries the batch's X-Idempotency-Key). A 400 naming
 * events by index is an outcome (the forwarder counts them and sends the rest); anything else
 * left after the retries is SEND_FAILED.
 */
export function createSdkBatchSender(options: SdkBatchSenderOptions): BatchSender {
  const client = new Tollgate({
    apiKey: options.apiKey,
    baseUrl: options.url,
    timeoutMs: options.timeoutMs ?? 30_000,
    // The forwarder never track()s: nothing is queued for an exit hook to flush.
    flushOnExit: false,
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return {
    async sendBatch(events, idempotencyKey): Promise<BatchOutcome> {
      try {
        const answer = await client.ingestBatch(events, { idempotencyKey });
        return { ok: true, accepted: answer.accepted, duplicates: answer.duplicates };
      } catch (err) {
        if (!(err instanceof TollgateError)) throw err;
        const indexed = err.errors.filter((e) => typeof e.index === 'number');
        if (err.status === 400 && indexed.length > 0) {
          return { ok: false, rejected: indexed.map((e) => ({ index: e.index as number, code: e.code, message: e.message, field: e.field ?? '' })) };
        }
        throw new ForwarderError('SEND_FAILED', `${err.message}${err.requestId ? ` (request ${err.requestId})` : ''}`, err.status === 0 ? null : err.status);
      }
    },
  };
}
