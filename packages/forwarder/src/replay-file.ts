import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { checkDecodedLogs, decodeSubscriptionEvent, DEFAULT_MAX_DECOMPRESSED_BYTES } from './decode-subscription-event.js';
import type { Forwarder } from './forwarder.js';
import { eventIdOf } from './map-access-log.js';
import { ForwarderError } from './types.js';

export interface ReplayOptions {
  maxDecompressedBytes?: number;
  /** Bytes of the file read so far and its size, now and then. */
  onProgress?: (bytesRead: number, size: number) => void;
}

/** A replayed line's time: `timestamp` (ms or ISO 8601), else API Gateway's requestTimeEpoch (ms). */
function timeOf(line: Record<string, unknown>): number | null {
  for (const v of [line.timestamp, line.requestTimeEpoch]) {
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (typeof v === 'string' && v !== '-' && v !== '') {
      const n = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
      if (Number.isFinite(n)) return n;
    }
  }
  return null;
}

/**
 * One value of a replayed file: a subscription event ({awslogs: {data}}), a decoded one
 * ({messageType, logEvents}), a CloudWatch log event ({id, timestamp, message}), or an
 * access-log line itself with a time field.
 */
async function replayValue(value: unknown, forwarder: Forwarder, maxBytes: number): Promise<void> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return forwarder.skip('not-json');
  const v = value as Record<string, unknown>;
  if ('awslogs' in v) return forwarder.addDecoded(decodeSubscriptionEvent(v, maxBytes));
  if ('messageType' in v) return forwarder.addDecoded(checkDecodedLogs(v));
  if (typeof v.message === 'string' && typeof v.timestamp === 'number') {
    return forwarder.add({ id: typeof v.id === 'string' ? v.id : undefined, timestamp: v.timestamp, message: v.message });
  }
  const at = timeOf(v);
  if (at === null) return forwarder.skip('no-timestamp');
  return forwarder.addLine(v, at, eventIdOf(undefined, v));
}

function parse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * Feeds a saved file to the forwarder: one JSON document (a subscription event, possibly
 * pretty-printed), or NDJSON, read as a stream so a large file never sits in memory whole.
 */
export async function replayFile(file: string, forwarder: Forwarder, options: ReplayOptions = {}): Promise<void> {
  const maxBytes = options.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES;
  let size: number;
  try {
    size = statSync(file).size;
  } catch (err) {
    throw new ForwarderError('INVALID_FILE', `cannot read ${file}: ${(err as Error).message}`);
  }
  const stream = createReadStream(file);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let n = 0;
  let firstLine = true;
  for await (const raw of lines) {
    if (raw.trim() === '') continue;
    const parsed = parse(raw);
    if (firstLine && !parsed.ok && raw.trimStart().startsWith('{')) {
      // A pretty-printed document: read it whole (a subscription event is at most a few MB).
      lines.close();
      stream.destroy();
      const whole = parse(readFileSync(file, 'utf8'));
      if (!whole.ok) throw new ForwarderError('INVALID_FILE', `${file} is neither one JSON document nor NDJSON`);
      await replayValue(whole.value, forwarder, maxBytes);
      options.onProgress?.(size, size);
      return;
    }
    firstLine = false;
    if (parsed.ok) await replayValue(parsed.value, forwarder, maxBytes);
    else forwarder.skip('not-json');
    if (++n % 1000 === 0) options.onProgress?.(stream.bytesRead, size);
  }
  options.onProgress?.(size, size);
}
