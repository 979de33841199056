export { handler, createHandler, type HandlerOptions } from './handler.js';
export { Forwarder, forwardDecodedLogs, MAX_BATCH_EVENTS, type ForwarderOptions } from './forwarder.js';
export {
  decodeSubscriptionEvent,
  checkDecodedLogs,
  DEFAULT_MAX_DECOMPRESSED_BYTES,
  type DecodedLogs,
  type SubscriptionEvent,
} from './decode-subscription-event.js';
export { mapAccessLog, mapLogEvent, eventIdOf, parseLine, DEFAULT_MAPPING, DEFAULTS, LOG_FIELDS, type MappingOptions, type Mapped } from './map-access-log.js';
export { createSdkBatchSender, type SdkBatchSenderOptions } from './sdk-batch-sender.js';
export type { BatchSender, BatchOutcome } from './batch-sender.js';
export { formatSummary } from './format-summary.js';
export { readForwarderConfig, type ForwarderConfig } from './forwarder-config.js';
export {
  ForwarderError,
  emptySummary,
  addSummary,
  type ForwardSummary,
  type LogEvent,
  type UsageEvent,
  type SkipReason,
  type RejectedEvent,
  type ForwarderErrorCode,
} from './types.js';
