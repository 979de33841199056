export { Tollgate, type TollgateOptions } from './tollgate.js';
export { TollgateError, QueueFullError, EntitlementDenied, UsageLimitExceeded, CreditsExhausted, type ApiErrorDetail } from './errors.js';
export { MAX_RETRIES, DEFAULT_RETRY_AFTER_SECONDS } from './retry-policy.js';
export {
  MAX_BATCH_EVENTS,
  MAX_REPORTED_FAILURES,
  type UsageEvent,
  type QueuedEvent,
  type FlushResult,
  type FailedBatch,
  type MetadataValue,
} from './usage-queue.js';
export type { GuardInput, GuardResult, UsageAlert } from './entitlement-guard.js';
export type { CreateOptions } from './operator-api.js';
export type { FetchLike } from './http-client.js';
export type * from './api-types.js';
export type { paths } from './generated/openapi.js';
