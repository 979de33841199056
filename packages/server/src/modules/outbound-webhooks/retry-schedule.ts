import { createHash } from 'node:crypto';

/**
 * When a failed delivery is tried again: Svix's schedule, 8 attempts over about 27.6 hours. Pure.
 *
 * | attempt | after the previous failure | nominal time since the first |
 * |--------:|---------------------------:|-----------------------------:|
 * | 1 | at commit | 0 |
 * | 2 | 5 s | 5 s |
 * | 3 | 5 min | 5 min 5 s |
 * | 4 | 30 min | 35 min 5 s |
 * | 5 | 2 h | 2 h 35 min |
 * | 6 | 5 h | 7 h 35 min |
 * | 7 | 10 h | 17 h 35 min |
 * | 8 | 10 h | 27 h 35 min, then failed |
 *
 * Each delay moves by up to ±20%, by a hash of (message, endpoint, step): deterministic, so tests
 * know every due time and no Math.random is read, and retries of many messages that failed
 * together spread out. A Retry-After on 429 or 503 pushes the next attempt to at least that, capped
 * at an hour.
 */
const S = 1_000;
export const RETRY_DELAYS_MS = [5 * S, 5 * 60 * S, 30 * 60 * S, 2 * 3600 * S, 5 * 3600 * S, 10 * 3600 * S, 10 * 3600 * S] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const JITTER = 0.2;
export const MAX_RETRY_AFTER_SECONDS = 3600;

/** A number in [-1, 1) from the hash of the delivery and step. */
function spread(messageId: string, endpointId: string, step: number): number {
  const h = createHash('sha256').update(`${messageId}\u0000${endpointId}\u0000${step}`).digest();
  return h.readUInt32BE(0) / 2 ** 31 - 1;
}

export interface FailedAttempt {
  messageId: string;
  endpointId: string;
  /** Attempts made in this pass of the schedule, the failed one included (1 after the first). */
  step: number;
  failedAt: number;
  /** The answer's status, when there was one. */
  responseStatus?: number | null;
  /** Its Retry-After, in seconds (parseRetryAfter). */
  retryAfterSeconds?: number | null;
}

/** The next attempt's due time, or null when the schedule is exhausted (the delivery fails). */
export function nextAttemptAt(a: FailedAttempt): number | null {
  if (a.step >= MAX_ATTEMPTS) return null;
  const base = RETRY_DELAYS_MS[Math.max(0, a.step - 1)]!;
  let delay = Math.round(base * (1 + JITTER * spread(a.messageId, a.endpointId, a.step)));
  if ((a.responseStatus === 429 || a.responseStatus === 503) && a.retryAfterSeconds != null) {
    delay = Math.max(delay, Math.min(a.retryAfterSeconds, MAX_RETRY_AFTER_SECONDS) * S);
  }
  return a.failedAt + delay;
}

/** Retry-After as seconds from `now`: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text);
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[A-Za-z]/.test(text)) return null;
  return Math.max(0, Math.ceil((at - now) / S));
}
