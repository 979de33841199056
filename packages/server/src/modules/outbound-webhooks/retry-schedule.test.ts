import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JITTER, MAX_ATTEMPTS, nextAttemptAt, parseRetryAfter, RETRY_DELAYS_MS } from './retry-schedule.js';

const T0 = Date.UTC(2026, 10, 23, 12);
const S = 1000;
const at = (step: number, extra: Partial<Parameters<typeof nextAttemptAt>[0]> = {}) =>
  nextAttemptAt({ messageId: 'msg_1', endpointId: 'we_1', step, failedAt: T0, ...extra });

describe('outbound-webhooks.retry schedule: 8 attempts, Svix delays, ±20% jitter', () => {
  const nominal: Array<[step: number, delayMs: number]> = [
    [1, 5 * S],
    [2, 5 * 60 * S],
    [3, 30 * 60 * S],
    [4, 2 * 3600 * S],
    [5, 5 * 3600 * S],
    [6, 10 * 3600 * S],
    [7, 10 * 3600 * S],
  ];
  for (const [step, delay] of nominal) {
    it(`after failed attempt ${step}: attempt ${step + 1} within ${delay / S} s ± 20%`, () => {
      const next = at(step)!;
      assert.ok(next >= T0 + delay * (1 - JITTER) && next <= T0 + delay * (1 + JITTER), `${next - T0} ms`);
    });
  }
  it('after the 8th failed attempt: none (the delivery fails)', () => {
    assert.equal(MAX_ATTEMPTS, 8);
    assert.equal(at(8), null);
  });
  it('the nominal total is about 27.6 hours', () =>
    assert.equal(
      RETRY_DELAYS_MS.reduce((a, b) => a + b, 0),
      (27 * 3600 + 35 * 60 + 5) * S,
    ));
  it('jitter is deterministic per (message, endpoint, step)', () => assert.equal(at(3), at(3)));
  it('jitter differs between deliveries that failed together', () => {
    const dues = new Set(Array.from({ length: 20 }, (_, i) => at(2, { messageId: `msg_${i}` })));
    assert.ok(dues.size > 15);
  });
});

describe('outbound-webhooks.retry schedule: Retry-After', () => {
  it('429 with Retry-After: 60 waits at least 60 s', () => assert.ok(at(1, { responseStatus: 429, retryAfterSeconds: 60 })! >= T0 + 60 * S));
  it('503 with Retry-After: 60 waits at least 60 s', () => assert.ok(at(1, { responseStatus: 503, retryAfterSeconds: 60 })! >= T0 + 60 * S));
  it('Retry-After is capped at one hour', () => assert.equal(at(1, { responseStatus: 429, retryAfterSeconds: 86_400 }), T0 + 3600 * S));
  it('a Retry-After shorter than the schedule does not shorten it', () => assert.equal(at(3, { responseStatus: 429, retryAfterSeconds: 1 }), at(3)));
  it('Retry-After on another status is ignored', () => assert.equal(at(1, { responseStatus: 500, retryAfterSeconds: 600 }), at(1)));
  it('Retry-After does not extend the schedule past 8 attempts', () => assert.equal(at(8, { responseStatus: 429, retryAfterSeconds: 60 }), null));
});

describe('outbound-webhooks.parseRetryAfter', () => {
  const cases: Array<[rule: string, value: string | undefined, seconds: number | null]> = [
    ['absent', undefined, null],
    ['delta-seconds', '60', 60],
    ['delta-seconds with spaces', ' 5 ', 5],
    ['an HTTP date 2 minutes ahead', new Date(T0 + 120 * S).toUTCString(), 120],
    ['an HTTP date in the past is 0', new Date(T0 - 120 * S).toUTCString(), 0],
    ['a negative number is unreadable', '-5', null],
    ['words are unreadable', 'soon', null],
  ];
  for (const [rule, value, seconds] of cases) it(rule, () => assert.equal(parseRetryAfter(value, T0), seconds));
});
