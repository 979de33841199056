/**
 * The spec's retry guidance: on 429 (keyed on the status, whatever the body: a gateway's differs)
 * and on 503, back off by Retry-After seconds, 5 when absent, at most 3 retries. No other status
 * is retried. A request that got no answer (network error, timeout) may have been processed, so
 * it is retried only when it carries an idempotency key that makes the repeat harmless.
 */
export const MAX_RETRIES = 3;
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

export type Attempt = { kind: 'status'; status: number; retryAfter: string | null } | { kind: 'network' };

/** Milliseconds to wait before the next try, or null when the failure is final. */
export function retryDelayMs(attempt: Attempt, retriesSoFar: number, hasIdempotencyKey: boolean, now: number): number | null {
  if (retriesSoFar >= MAX_RETRIES) return null;
  if (attempt.kind === 'network') return hasIdempotencyKey ? DEFAULT_RETRY_AFTER_SECONDS * 1000 : null;
  if (attempt.status !== 429 && attempt.status !== 503) return null;
  return retryAfterMs(attempt.retryAfter, now);
}

/** Retry-After as delay-seconds or an HTTP date; absent or unreadable: the spec's 5 seconds. */
export function retryAfterMs(header: string | null, now: number): number {
  if (header !== null) {
    const text = header.trim();
    if (/^[0-9]{1,9}$/.test(text)) return Number(text) * 1000;
    const date = Date.parse(text);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return DEFAULT_RETRY_AFTER_SECONDS * 1000;
}
