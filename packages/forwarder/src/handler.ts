import type { BatchSender } from './batch-sender.js';
import { decodeSubscriptionEvent, DEFAULT_MAX_DECOMPRESSED_BYTES } from './decode-subscription-event.js';
import { forwardDecodedLogs } from './forwarder.js';
import { readForwarderConfig, type ForwarderConfig } from './forwarder-config.js';
import { createSdkBatchSender } from './sdk-batch-sender.js';
import type { ForwardSummary } from './types.js';

export interface HandlerOptions {
  config: ForwarderConfig;
  /** Default: @tollgate/sdk's ingestBatch, with the spec's retry guidance. */
  sender?: BatchSender;
  maxDecompressedBytes?: number;
  concurrency?: number;
  newIdempotencyKey?: () => string;
  /** Where the summary of each invocation goes; default one JSON line on stdout (CloudWatch). */
  log?: (summary: ForwardSummary) => void;
}

/**
 * A Lambda handler for a CloudWatch Logs subscription. It returns the invocation's summary.
 * It throws (so Lambda retries the invocation) when a batch cannot be delivered; the eventIds
 * derived from CloudWatch's log-event ids make that retry count nothing twice. Events the server
 * refuses are reported, not retried: no retry could make them valid.
 */
export function createHandler(options: HandlerOptions): (event: unknown) => Promise<ForwardSummary> {
  const sender = options.sender ?? createSdkBatchSender({ url: options.config.url, apiKey: options.config.apiKey });
  const log = options.log ?? ((s: ForwardSummary) => console.log(JSON.stringify({ msg: 'tollgate-forwarder', ...s })));
  return async (event: unknown) => {
    const decoded = decodeSubscriptionEvent(event, options.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES);
    const summary = await forwardDecodedLogs(decoded, {
      sender,
      mapping: options.config.mapping,
      concurrency: options.concurrency,
      newIdempotencyKey: options.newIdempotencyKey,
    });
    log(summary);
    return summary;
  };
}

let fromEnv: ((event: unknown) => Promise<ForwardSummary>) | null = null;

/** The Lambda entry point (`index.handler` in deploy/template.yaml): configured from the environment on first use. */
export async function handler(event: unknown): Promise<ForwardSummary> {
  fromEnv ??= createHandler({ config: readForwarderConfig(process.env) });
  return fromEnv(event);
}
