import type { LogEvent, SkipReason, UsageEvent } from './types.js';

export interface MappingOptions {
  /**
   * The access-log field naming the consumer, which becomes customerId: a top-level key of the
   * JSON line, or a dotted path into it. Default `apiKeyId` (`$context.identity.apiKeyId`).
   */
  consumerField: string;
  /** Default `api_calls`, the spec's metric. */
  metricName: string;
}

export const DEFAULT_MAPPING: MappingOptions = { consumerField: 'apiKeyId', metricName: 'api_calls' };

/**
 * The access-log fields each metadata value is read from, first present wins. The names are the
 * `$context` variables' own (AWS's documented JSON format uses them as keys).
 */
export const LOG_FIELDS = {
  method: ['httpMethod', 'method'],
  path: ['path', 'resourcePath'],
  status: ['status', 'statusCode'],
  latency: ['responseLatency', 'integrationLatency', 'latency'],
  requestId: ['requestId'],
} as const;

/** The spec's defaults when parsing. */
export const DEFAULTS = { path: '/', statusCode: 200, latencyMs: 0, requestId: '' } as const;

/** The server takes metadata strings up to 500 characters; a longer path is cut rather than the event refused. */
const MAX_METADATA_STRING = 500;

export type Mapped = { event: UsageEvent } | { skip: SkipReason };

type Line = Record<string, unknown>;

/** API Gateway writes a missing `$context` value as "-". */
function present(v: unknown): v is string | number {
  return (typeof v === 'string' && v !== '' && v !== '-') || (typeof v === 'number' && Number.isFinite(v));
}

function first(line: Line, names: readonly string[]): string | number | undefined {
  for (const n of names) {
    const v = line[n];
    if (present(v)) return v;
  }
  return undefined;
}

/** A top-level key, or else a dotted path (`identity.apiKeyId` in a nested format). */
function field(line: Line, name: string): unknown {
  if (name in line) return line[name];
  let v: unknown = line;
  for (const part of name.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Line)[part];
  }
  return v;
}

/** A whole number from a string or number value ("200", 12), else the default. */
function numberOr(v: string | number | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}

function cut(s: string): string {
  return s.length > MAX_METADATA_STRING ? s.slice(0, MAX_METADATA_STRING) : s;
}

/**
 * The spec's gateway-log mapping of one parsed access-log line: customerId from the consumer
 * field, the configured metric, quantity 1, occurredAt the log event's time (never the time of
 * delivery), metadata from the log fields with the spec's defaults. A line without a method or
 * a consumer is skipped, with its reason.
 */
export function mapAccessLog(line: Line, timestamp: number, eventId: string | undefined, options: MappingOptions): Mapped {
  const method = first(line, LOG_FIELDS.method);
  if (method === undefined) return { skip: 'no-method' };
  const consumer = field(line, options.consumerField);
  if (!present(consumer)) return { skip: 'no-consumer' };
  const path = first(line, LOG_FIELDS.path);
  const requestId = first(line, LOG_FIELDS.requestId);
  const event: UsageEvent = {
    customerId: String(consumer),
    metricName: options.metricName,
    quantity: 1,
    occurredAt: new Date(timestamp).toISOString(),
    metadata: {
      method: String(method),
      path: path === undefined ? DEFAULTS.path : cut(String(path)),
      statusCode: numberOr(first(line, LOG_FIELDS.status), DEFAULTS.statusCode),
      latencyMs: numberOr(first(line, LOG_FIELDS.latency), DEFAULTS.latencyMs),
      requestId: requestId === undefined ? DEFAULTS.requestId : cut(String(requestId)),
    },
  };
  if (eventId !== undefined) event.eventId = eventId;
  return { event };
}

/**
 * The eventId that makes a redelivered log batch count once: CloudWatch's id of the log event
 * (the same on every redelivery), else the line's extendedRequestId (API Gateway's, which callers
 * cannot override, unlike requestId). Without either the event is sent without one.
 */
export function eventIdOf(logEventId: string | undefined, line: Line): string | undefined {
  if (logEventId) return `cwl:${logEventId}`;
  const ext = line.extendedRequestId;
  if (present(ext)) return `apigw:${String(ext)}`;
  return undefined;
}

/** Parses a log event's message (a JSON access-log line) and maps it. */
export function mapLogEvent(logEvent: LogEvent, options: MappingOptions): Mapped {
  const line = parseLine(logEvent.message);
  if (line === null) return { skip: 'not-json' };
  return mapAccessLog(line, logEvent.timestamp, eventIdOf(logEvent.id, line), options);
}

/** A JSON object, or null for anything else (a plain-text log line, an array, a number). */
export function parseLine(message: string): Line | null {
  const s = message.trimStart();
  if (s[0] !== '{') return null;
  try {
    const v: unknown = JSON.parse(s);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Line) : null;
  } catch {
    return null;
  }
}
