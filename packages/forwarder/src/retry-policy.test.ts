import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isRetryableStatus, retryDelayMs } from './retry-policy.js';

describe('retry guidance (spec, Errors): back off by Retry-After seconds, 5 if absent, up to 3 retries', () => {
  const NOW = Date.UTC(2026, 0, 15, 12);
  const delays: Array<[rule: string, header: string | null, ms: number]> = [
    ['Retry-After in seconds is waited', '7', 7000],
    ['Retry-After 0 retries at once', '0', 0],
    ['without Retry-After the wait is 5 seconds', null, 5000],
    ['an unreadable Retry-After waits 5 seconds', 'soon', 5000],
    ['Retry-After as an HTTP date waits until then', new Date(NOW + 3000).toUTCString(), 3000],
  ];
  for (const [rule, header, ms] of delays) it(rule, () => assert.equal(retryDelayMs(header, NOW), ms));

  const statuses: Array<[rule: string, status: number, retried: boolean]> = [
    ['429 is retried, whatever the body (clients key on the status)', 429, true],
    ['503 is retried', 503, true],
    ['400 is never retried', 400, false],
    ['401 is never retried', 401, false],
    ['403 is never retried', 403, false],
    ['413 is never retried', 413, false],
    ['500 is not retried', 500, false],
  ];
  for (const [rule, status, retried] of statuses) it(rule, () => assert.equal(isRetryableStatus(status), retried));
});
