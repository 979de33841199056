/** One entry of `logEvents[]` in a CloudWatch Logs subscription event. */
export interface LogEvent {
  /** CloudWatch's id of this log event: the same on every redelivery of its batch. */
  id?: string;
  /** When the log event happened, in milliseconds since the epoch. */
  timestamp: number;
  /** The API Gateway access-log line, in the stage's access-log format (JSON here). */
  message: string;
}

/** A usage event as POST /v1/ingest/batch takes it. */
export interface UsageEvent {
  customerId: string;
  metricName: string;
  quantity: number;
  occurredAt: string;
  metadata: { method: string; path: string; statusCode: number; latencyMs: number; requestId: string };
  eventId?: string;
}

/**
 * Why a log line gave no usage event. The spec's two rules (no method, no consumer key) and the
 * lines that cannot carry them at all: not JSON, or (in a replayed NDJSON file) no time.
 */
export type SkipReason = 'not-json' | 'no-method' | 'no-consumer' | 'no-timestamp';

/** One event the server refused in a batch (400), by the code of its first problem. */
export interface RejectedEvent {
  code: string;
  message: string;
  field: string;
}

/** What one run (a Lambda invocation, a replayed file) did with its log lines. */
export interface ForwardSummary {
  /** Log events read (every DATA_MESSAGE's logEvents, every NDJSON line). */
  logEvents: number;
  /** Usage events in batches the server acknowledged (200). */
  sent: number;
  /** Of those, events counted now. */
  accepted: number;
  /** Of those, events whose eventId the server had already counted (a redelivered batch). */
  duplicates: number;
  /** Lines that gave no usage event, by reason. Never dropped silently. */
  skipped: Partial<Record<SkipReason, number>>;
  /** Events the server refused (unknown customer, too old…), by error code; the rest of their batch was sent. */
  rejected: Record<string, number>;
  /** CONTROL_MESSAGE events acknowledged and ignored. */
  controlMessages: number;
  /** Batches posted and acknowledged. */
  batches: number;
}

export function emptySummary(): ForwardSummary {
  return { logEvents: 0, sent: 0, accepted: 0, duplicates: 0, skipped: {}, rejected: {}, controlMessages: 0, batches: 0 };
}

export function addSummary(into: ForwardSummary, from: ForwardSummary): ForwardSummary {
  into.logEvents += from.logEvents;
  into.sent += from.sent;
  into.accepted += from.accepted;
  into.duplicates += from.duplicates;
  into.controlMessages += from.controlMessages;
  into.batches += from.batches;
  for (const [k, n] of Object.entries(from.skipped)) into.skipped[k as SkipReason] = (into.skipped[k as SkipReason] ?? 0) + n;
  for (const [k, n] of Object.entries(from.rejected)) into.rejected[k] = (into.rejected[k] ?? 0) + n;
  return into;
}

export type ForwarderErrorCode = 'PAYLOAD_TOO_LARGE' | 'INVALID_EVENT' | 'INVALID_CONFIG' | 'SEND_FAILED' | 'INVALID_FILE';

/** Every failure of the forwarder: a stable code and a message naming what is wrong. */
export class ForwarderError extends Error {
  override readonly name = 'ForwarderError';
  constructor(
    readonly code: ForwarderErrorCode,
    message: string,
    /** For SEND_FAILED: the last HTTP status, or null after a network error. */
    readonly status: number | null = null,
  ) {
    super(message);
  }
}
