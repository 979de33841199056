// What an attempt's outcome means for the delivery and the log: tables of cases, one per rule.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { classifyRequestError, deliveryAfter, judgeAttempt, MAX_ERROR_MESSAGE, triggerOf, type AttemptResult, type JudgedAttempt } from './attempt-outcome.js';
import { nextAttemptAt, MAX_ATTEMPTS } from './retry-schedule.js';

const response = (status: number, extra: Partial<Extract<AttemptResult, { kind: 'response' }>> = {}): AttemptResult => ({
  kind: 'response',
  status,
  body: '',
  truncated: false,
  ...extra,
});

describe('outbound-webhooks.judgeAttempt', () => {
  const cases: Array<[string, AttemptResult, JudgedAttempt]> = [
    ['200 succeeds', response(200), { succeeded: true, responseStatus: 200, errorCode: null, errorMessage: null }],
    ['204 succeeds', response(204), { succeeded: true, responseStatus: 204, errorCode: null, errorMessage: null }],
    ['299 succeeds', response(299), { succeeded: true, responseStatus: 299, errorCode: null, errorMessage: null }],
    [
      '301 is a refused redirect, naming where it pointed',
      response(301, { location: 'https://elsewhere.example/' }),
      { succeeded: false, responseStatus: 301, errorCode: 'redirect', errorMessage: 'HTTP 301: redirect to https://elsewhere.example/ not followed' },
    ],
    ['307 without Location', response(307), { succeeded: false, responseStatus: 307, errorCode: 'redirect', errorMessage: 'HTTP 307: redirect not followed' }],
    ['400 fails', response(400), { succeeded: false, responseStatus: 400, errorCode: 'http_status', errorMessage: 'HTTP 400' }],
    ['410 fails (and disables: endpoint-health)', response(410), { succeeded: false, responseStatus: 410, errorCode: 'http_status', errorMessage: 'HTTP 410' }],
    ['500 fails', response(500), { succeeded: false, responseStatus: 500, errorCode: 'http_status', errorMessage: 'HTTP 500' }],
    ['199 fails', response(199), { succeeded: false, responseStatus: 199, errorCode: 'http_status', errorMessage: 'HTTP 199' }],
    [
      'no answer: the error code and message',
      { kind: 'error', code: 'timeout', message: 'no complete answer within 15000 ms' },
      { succeeded: false, responseStatus: null, errorCode: 'timeout', errorMessage: 'no complete answer within 15000 ms' },
    ],
  ];
  for (const [name, result, expected] of cases) it(name, () => assert.deepEqual(judgeAttempt(result), expected));

  it(`an error message is cut to ${MAX_ERROR_MESSAGE} characters`, () => {
    const judged = judgeAttempt({ kind: 'error', code: 'network', message: 'x'.repeat(5_000) });
    assert.equal(judged.errorMessage!.length, MAX_ERROR_MESSAGE);
    assert.ok(judged.errorMessage!.endsWith('…'));
  });
});

describe('outbound-webhooks.deliveryAfter', () => {
  const d = { messageId: 'msg_1', endpointId: 'we_1' };
  const at = Date.UTC(2026, 0, 15, 12);
  const ok = judgeAttempt(response(200));
  const failed = judgeAttempt(response(500));
  const cases: Array<[string, number, JudgedAttempt, string | undefined, ReturnType<typeof deliveryAfter>]> = [
    ['a first success ends it at step 1', 0, ok, undefined, { status: 'succeeded', scheduleStep: 1, nextAttemptAt: null }],
    ['a success after retries', 3, ok, undefined, { status: 'succeeded', scheduleStep: 4, nextAttemptAt: null }],
    [
      'a first failure: due after the first delay',
      0,
      failed,
      undefined,
      { status: 'pending', scheduleStep: 1, nextAttemptAt: nextAttemptAt({ ...d, step: 1, failedAt: at }) },
    ],
    [
      'the 7th failure: due after the last delay',
      6,
      failed,
      undefined,
      { status: 'pending', scheduleStep: 7, nextAttemptAt: nextAttemptAt({ ...d, step: 7, failedAt: at }) },
    ],
    [`the ${MAX_ATTEMPTS}th failure: failed`, MAX_ATTEMPTS - 1, failed, undefined, { status: 'failed', scheduleStep: MAX_ATTEMPTS, nextAttemptAt: null }],
    [
      'a 503 with Retry-After: 600 waits at least that',
      0,
      judgeAttempt(response(503)),
      '600',
      { status: 'pending', scheduleStep: 1, nextAttemptAt: at + 600_000 },
    ],
    [
      'Retry-After on a 500 is not honoured',
      0,
      failed,
      '600',
      { status: 'pending', scheduleStep: 1, nextAttemptAt: nextAttemptAt({ ...d, step: 1, failedAt: at }) },
    ],
  ];
  for (const [name, step, judged, retryAfter, expected] of cases) {
    it(name, () => assert.deepEqual(deliveryAfter({ ...d, scheduleStep: step }, judged, retryAfter, at), expected));
  }

  it('a first failure is due 5 s later, ±20%', () => {
    const next = deliveryAfter({ ...d, scheduleStep: 0 }, failed, undefined, at).nextAttemptAt!;
    assert.ok(next - at >= 4_000 && next - at <= 6_000, `${next - at} ms`);
  });
});

describe('outbound-webhooks.triggerOf', () => {
  const cases: Array<[string, Parameters<typeof triggerOf>[0], 'event' | 'test', string]> = [
    ['a first attempt', { scheduleStep: 0, lastAttemptAt: null, lastError: null }, 'event', 'scheduled'],
    ['a retry', { scheduleStep: 2, lastAttemptAt: 1, lastError: 'http_status' }, 'event', 'scheduled'],
    ['a test message, first attempt', { scheduleStep: 0, lastAttemptAt: null, lastError: null }, 'test', 'test'],
    ['a test message, retried', { scheduleStep: 1, lastAttemptAt: 1, lastError: 'timeout' }, 'test', 'test'],
    ['a replay of a delivery that had attempts (back to step 0)', { scheduleStep: 0, lastAttemptAt: 1, lastError: 'http_status' }, 'event', 'replay'],
    ['a replay of a succeeded delivery', { scheduleStep: 0, lastAttemptAt: 1, lastError: null }, 'event', 'replay'],
    ['a replay of one failed as its endpoint was disabled', { scheduleStep: 0, lastAttemptAt: null, lastError: 'endpoint_disabled' }, 'event', 'replay'],
    ['a replay of one failed as its endpoint was deleted', { scheduleStep: 0, lastAttemptAt: null, lastError: 'endpoint_deleted' }, 'event', 'replay'],
  ];
  for (const [name, d, source, expected] of cases) it(`${name}: ${expected}`, () => assert.equal(triggerOf(d, source), expected));
});

describe('outbound-webhooks.classifyRequestError', () => {
  const err = (code: string, message = `boom ${code}`) => Object.assign(new Error(message), { code });
  const cases: Array<[unknown, string]> = [
    [err('ECONNREFUSED'), 'connection_refused'],
    [err('ECONNRESET'), 'connection_reset'],
    [err('EPIPE'), 'connection_reset'],
    [err('ENOTFOUND'), 'dns'],
    [err('EAI_AGAIN'), 'dns'],
    [err('URL_NOT_ALLOWED'), 'url_not_allowed'],
    [err('DEPTH_ZERO_SELF_SIGNED_CERT'), 'tls'],
    [err('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'tls'],
    [err('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls'],
    [err('CERT_HAS_EXPIRED'), 'tls'],
    [err('EHOSTUNREACH'), 'network'],
    [err('ESOMETHINGELSE'), 'network'],
    [new Error('no code at all'), 'network'],
    ['a string thrown', 'network'],
  ];
  for (const [e, code] of cases) {
    it(`${(e as { code?: string }).code ?? String(e)}: ${code}`, () => {
      const c = classifyRequestError(e);
      assert.equal(c.code, code);
      assert.ok(c.message.length > 0);
    });
  }
});
