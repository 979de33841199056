import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { retryAfterMs, retryDelayMs, type Attempt } from '../src/retry-policy.js';

describe('retry guidance (spec, Errors): back off by Retry-After seconds, 5 if absent, up to 3 retries', () => {
  const NOW = Date.UTC(2026, 0, 15, 12);
  const delays: Array<[rule: string, header: string | null, ms: number]> = [
    ['Retry-After in seconds is waited', '7', 7000],
    ['Retry-After 0 retries at once', '0', 0],
    ['without Retry-After the wait is 5 seconds', null, 5000],
    ['an unreadable Retry-After waits 5 seconds', 'soon', 5000],
    ['Retry-After as an HTTP date waits until then', new Date(NOW + 3000).toUTCString(), 3000],
    ['Retry-After as an HTTP date already past retries at once', new Date(NOW - 3000).toUTCString(), 0],
  ];
  for (const [rule, header, ms] of delays) it(rule, () => assert.equal(retryAfterMs(header, NOW), ms));

  const status = (s: number): Attempt => ({ kind: 'status', status: s, retryAfter: null });
  const cases: Array<[rule: string, attempt: Attempt, retriesSoFar: number, hasKey: boolean, retried: boolean]> = [
    ['429 is retried, whatever the body (clients key on the status)', status(429), 0, false, true],
    ['503 is retried', status(503), 0, false, true],
    ['at most 3 retries: the fourth failure is final', status(503), 3, true, false],
    ['the third retry is still made', status(429), 2, false, true],
    ['400 is never retried', status(400), 0, true, false],
    ['401 is never retried', status(401), 0, true, false],
    ['403 is never retried', status(403), 0, true, false],
    ['409 is never retried', status(409), 0, true, false],
    ['413 is never retried', status(413), 0, true, false],
    ['500 is not retried', status(500), 0, true, false],
    ['a network error is retried when the request carries an idempotency key', { kind: 'network' }, 0, true, true],
    ['a network error is not retried without an idempotency key (it may have been processed)', { kind: 'network' }, 0, false, false],
  ];
  for (const [rule, attempt, retriesSoFar, hasKey, retried] of cases) {
    it(rule, () => assert.equal(retryDelayMs(attempt, retriesSoFar, hasKey, NOW) !== null, retried));
  }
});
