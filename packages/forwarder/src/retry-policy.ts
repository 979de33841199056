/** The spec's retry guidance: back off by Retry-After seconds (5 when absent), at most 3 retries. */
export const MAX_RETRIES = 3;
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** 429 (whatever the body: a gateway's differs from ours) and 503 are retried; no other status is. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 503;
}

/**
 * Milliseconds to wait before the next attempt, from a Retry-After header: delay-seconds or an
 * HTTP date (against `now`); absent or unreadable gives the spec's 5 seconds.
 */
export function retryDelayMs(retryAfter: string | null, now: number): number {
  if (retryAfter !== null) {
    const s = retryAfter.trim();
    if (/^\d+$/.test(s)) return Number(s) * 1000;
    const at = Date.parse(s);
    if (Number.isFinite(at)) return Math.max(0, at - now);
  }
  return DEFAULT_RETRY_AFTER_SECONDS * 1000;
}
