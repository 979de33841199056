import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formErrors, inputNameOf, parseRetryAfter, problemFrom, retryText, type ApiProblem } from '../src/errors.js';

describe('inputNameOf: the API field path to the form input name', () => {
  const cases: Array<[string | undefined, string | null]> = [
    ['body.name', 'name'],
    ['body.email', 'email'],
    ['body.address.city', 'address.city'],
    ['body.tiers.0.unitPrice', 'tiers.0.unitPrice'],
    ['query.limit', 'limit'],
    ['body', null],
    ['headers.idempotency-key', null],
    ['name', null],
    [undefined, null],
  ];
  for (const [field, want] of cases) it(`${String(field)} -> ${String(want)}`, () => assert.equal(inputNameOf(field), want));
});

describe('problemFrom: the error envelope, checked rather than trusted', () => {
  const cases: Array<[string, number, unknown, ApiProblem['errors']]> = [
    [
      'the envelope as the API sends it',
      400,
      { success: false, errors: [{ code: 'VALIDATION_FAILED', message: 'body.email must be a valid email.', field: 'body.email' }] },
      [{ code: 'VALIDATION_FAILED', message: 'body.email must be a valid email.', field: 'body.email' }],
    ],
    [
      'several errors, one without a field',
      401,
      { success: false, errors: [{ code: 'UNAUTHENTICATED', message: 'Wrong e-mail or password.' }] },
      [{ code: 'UNAUTHENTICATED', message: 'Wrong e-mail or password.' }],
    ],
    [
      'malformed entries are dropped',
      400,
      { errors: [{ code: 1, message: 'x' }, { code: 'A', message: 'kept' }, 'junk', { code: 'B', message: 'bad field', field: 3 }] },
      [{ code: 'A', message: 'kept' }],
    ],
    [
      'an HTML page from a proxy: words for the status',
      502,
      null,
      [{ code: 'HTTP_502', message: 'The server could not answer (HTTP 502). Try again in a moment.' }],
    ],
    ['an empty 429', 429, null, [{ code: 'HTTP_429', message: 'Too many requests.' }]],
    ['an envelope with no errors', 404, { success: false, errors: [] }, [{ code: 'HTTP_404', message: 'Not found.' }]],
    ['no answer at all', 0, null, [{ code: 'NETWORK_ERROR', message: 'The server could not be reached. Check your connection and try again.' }]],
  ];
  for (const [name, status, body, want] of cases) it(name, () => assert.deepEqual(problemFrom(status, body).errors, want));
  it('keeps the status and Retry-After', () =>
    assert.deepEqual(problemFrom(429, null, 30), { status: 429, errors: [{ code: 'HTTP_429', message: 'Too many requests.' }], retryAfterSeconds: 30 }));
});

describe('formErrors: each error next to its input, the rest above the form', () => {
  const problem = problemFrom(400, {
    errors: [
      { code: 'VALIDATION_FAILED', message: 'body.email must be a valid email.', field: 'body.email' },
      { code: 'VALIDATION_FAILED', message: 'body.email is too long.', field: 'body.email' },
      { code: 'VALIDATION_FAILED', message: 'body.role must be one of admin, viewer.', field: 'body.role' },
      { code: 'CONFLICT', message: 'An operator with this e-mail exists.' },
    ],
  });
  it('inputs the form has get their messages; unknown fields and field-less errors go to general', () =>
    assert.deepEqual(formErrors(problem, ['email', 'name']), {
      byInput: { email: ['body.email must be a valid email.', 'body.email is too long.'] },
      general: ['body.role must be one of admin, viewer.', 'An operator with this e-mail exists.'],
    }));
  it('no problem, no errors', () => assert.deepEqual(formErrors(null, ['email']), { byInput: {}, general: [] }));
});

describe('parseRetryAfter and retryText: how long to wait, in words', () => {
  const now = Date.UTC(2026, 3, 16, 12, 0, 0);
  const cases: Array<[string | null, number | null]> = [
    ['900', 900],
    [' 30 ', 30],
    ['0', 0],
    ['Thu, 16 Apr 2026 12:01:30 GMT', 90],
    ['Thu, 16 Apr 2026 11:59:00 GMT', null],
    ['-5', null],
    ['1.5', null],
    ['soon', null],
    [null, null],
  ];
  for (const [header, want] of cases) it(`Retry-After ${JSON.stringify(header)} -> ${String(want)}`, () => assert.equal(parseRetryAfter(header, now), want));

  const words: Array<[number, string]> = [
    [1, 'Try again in 1 second.'],
    [45, 'Try again in 45 seconds.'],
    [60, 'Try again in 1 minute.'],
    [125, 'Try again in 2 minutes 5 seconds.'],
    [900, 'Try again in 15 minutes.'],
  ];
  for (const [seconds, want] of words) it(`${seconds} s -> ${want}`, () => assert.equal(retryText(seconds), want));
});
