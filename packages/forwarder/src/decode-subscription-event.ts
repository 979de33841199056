import { gunzipSync } from 'node:zlib';
import { ForwarderError, type LogEvent } from './types.js';

/** Decompressed size a subscription event may reach: CloudWatch sends at most about 1 MB gzipped. */
export const DEFAULT_MAX_DECOMPRESSED_BYTES = 10 * 1024 * 1024;

/** The Lambda input of a CloudWatch Logs subscription. */
export interface SubscriptionEvent {
  awslogs: { data: string };
}

/** What `awslogs.data` decodes to. */
export type DecodedLogs =
  | { messageType: 'DATA_MESSAGE'; owner: string; logGroup: string; logStream: string; subscriptionFilters: string[]; logEvents: LogEvent[] }
  /** CloudWatch checking that the destination is reachable: no usage in it. */
  | { messageType: 'CONTROL_MESSAGE'; logEvents: LogEvent[] };

/**
 * Decodes `awslogs.data` (base64 of gzip). The decompressed size is capped, so a corrupt or
 * hostile payload cannot take the function's memory: past `maxBytes` this throws
 * PAYLOAD_TOO_LARGE instead of inflating further.
 */
export function decodeSubscriptionEvent(event: unknown, maxBytes = DEFAULT_MAX_DECOMPRESSED_BYTES): DecodedLogs {
  const data = (event as { awslogs?: { data?: unknown } } | null)?.awslogs?.data;
  if (typeof data !== 'string') throw new ForwarderError('INVALID_EVENT', 'awslogs.data is missing: not a CloudWatch Logs subscription event');
  let json: Buffer;
  try {
    json = gunzipSync(Buffer.from(data, 'base64'), { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError)
      throw new ForwarderError('PAYLOAD_TOO_LARGE', `awslogs.data decompresses to more than ${maxBytes} bytes (the forwarder's cap); nothing was sent`);
    throw new ForwarderError('INVALID_EVENT', `awslogs.data is not base64 of gzip: ${(err as Error).message}`);
  }
  return checkDecodedLogs(parseJson(json.toString('utf8'), 'awslogs.data'));
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ForwarderError('INVALID_EVENT', `${what} does not decode to JSON`);
  }
}

/** Checks the shape of decoded logs (also a saved, already decoded event read by the CLI). */
export function checkDecodedLogs(value: unknown): DecodedLogs {
  const v = value as { messageType?: unknown; logEvents?: unknown } | null;
  if (v?.messageType === 'CONTROL_MESSAGE') return { messageType: 'CONTROL_MESSAGE', logEvents: [] };
  if (v?.messageType !== 'DATA_MESSAGE')
    throw new ForwarderError('INVALID_EVENT', `messageType is ${JSON.stringify(v?.messageType)}: DATA_MESSAGE or CONTROL_MESSAGE expected`);
  if (!Array.isArray(v.logEvents)) throw new ForwarderError('INVALID_EVENT', 'logEvents is not an array');
  v.logEvents.forEach((e: { timestamp?: unknown; message?: unknown }, i) => {
    if (typeof e?.timestamp !== 'number' || !Number.isFinite(e.timestamp))
      throw new ForwarderError('INVALID_EVENT', `logEvents[${i}].timestamp is not a number`);
    if (typeof e.message !== 'string') throw new ForwarderError('INVALID_EVENT', `logEvents[${i}].message is not a string`);
  });
  return value as DecodedLogs;
}
