import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiProblem } from '../src/errors.js';
import {
  attemptAnswer,
  deliveryState,
  deliveryTo,
  formText,
  ingestionOutcome,
  listFormErrors,
  readablePayload,
  sourcePatch,
  splitList,
  type AttemptLike,
  type DeliveryLike,
  type SourceEdit,
} from '../src/webhook-text.js';

describe('formText: a text input of a form by name', () => {
  const data = new FormData();
  data.set('name', ' Acme ');
  data.set('file', new Blob(['x']), 'x.txt');
  const cases: Array<[string, string]> = [
    ['name', ' Acme '],
    ['missing', ''],
    ['file', ''],
  ];
  for (const [name, want] of cases) it(`${name} -> ${JSON.stringify(want)}`, () => assert.equal(formText(data, name), want));
});

describe('splitList: a typed list to the items the API takes', () => {
  const cases: Array<[string, string[]]> = [
    ['', []],
    ['*', ['*']],
    ['invoice.*, subscription.created', ['invoice.*', 'subscription.created']],
    ['a,\n b ,, c\n', ['a', 'b', 'c']],
    ['a, a, b', ['a', 'b']],
    [' , ', []],
  ];
  for (const [text, want] of cases) it(`${JSON.stringify(text)} -> ${JSON.stringify(want)}`, () => assert.deepEqual(splitList(text), want));
});

describe('readablePayload: a body as text to read', () => {
  const cases: Array<[string, 'utf8' | 'base64' | undefined, { text: string; note: string | null }]> = [
    ['{"a":1,"b":[true]}', undefined, { text: '{\n  "a": 1,\n  "b": [\n    true\n  ]\n}', note: null }],
    ['"<script>"', 'utf8', { text: '"<script>"', note: null }],
    ['a=1&b=<b>', 'utf8', { text: 'a=1&b=<b>', note: null }],
    ['{"broken":', 'utf8', { text: '{"broken":', note: null }],
    ['', 'utf8', { text: '', note: 'The body was empty.' }],
    ['AAEC', 'base64', { text: 'AAEC', note: 'Not UTF-8 text: shown as base64, as stored.' }],
  ];
  for (const [body, encoding, want] of cases)
    it(`${JSON.stringify(body)} (${encoding ?? 'default'})`, () => assert.deepEqual(readablePayload(body, encoding), want));
});

describe('listFormErrors: an error on one item of a list lands next to the list input', () => {
  const problem = (field: string | undefined, message = 'is wrong.'): ApiProblem => ({
    status: 422,
    retryAfterSeconds: null,
    errors: [{ code: 'VALIDATION_FAILED', message, field }],
  });
  const inputs = ['url', 'eventTypes'];
  const cases: Array<[string, ApiProblem | null, { byInput: Record<string, string[]>; general: string[] }]> = [
    ['no problem', null, { byInput: {}, general: [] }],
    ['a plain field', problem('body.url'), { byInput: { url: ['is wrong.'] }, general: [] }],
    ['an item of a list input', problem('body.eventTypes.2', 'is not a type.'), { byInput: { eventTypes: ['Item 3: is not a type.'] }, general: [] }],
    ['the list as a whole', problem('body.eventTypes'), { byInput: { eventTypes: ['is wrong.'] }, general: [] }],
    ['an item of an input the form lacks', problem('body.metadata.0'), { byInput: {}, general: ['is wrong.'] }],
    ['no field', problem(undefined), { byInput: {}, general: ['is wrong.'] }],
  ];
  for (const [name, p, want] of cases) it(name, () => assert.deepEqual(listFormErrors(p, inputs), want));
});

describe("sourcePatch: the PATCH body of a source's edit form is what changed", () => {
  const now = { displayName: 'Stripe', metricName: 'tokens', eventFilter: ['a', 'b'], dedupWindowHours: 72 };
  const form = (o: Partial<SourceEdit>): SourceEdit => ({
    displayName: 'Stripe',
    metricName: 'tokens',
    signingSecret: '',
    eventFilter: 'a, b',
    dedupWindowHours: '72',
    ...o,
  });
  const cases: Array<[string, Partial<SourceEdit>, Record<string, unknown> | null]> = [
    ['nothing changed', {}, null],
    ['spaces around the name are not a change', { displayName: ' Stripe ' }, null],
    ['a new name', { displayName: 'Payments' }, { displayName: 'Payments' }],
    ['a new secret, sent as typed', { signingSecret: ' s3cret' }, { signingSecret: ' s3cret' }],
    ['the filter emptied: every type', { eventFilter: '' }, { eventFilter: [] }],
    ['the filter reordered is a change', { eventFilter: 'b, a' }, { eventFilter: ['b', 'a'] }],
    ['a new window', { dedupWindowHours: '24' }, { dedupWindowHours: 24 }],
    ['a window that is no number goes as typed, for the API to name', { dedupWindowHours: 'soon' }, { dedupWindowHours: 'soon' }],
    ['two fields', { metricName: 'api_calls', dedupWindowHours: '1' }, { metricName: 'api_calls', dedupWindowHours: 1 }],
  ];
  for (const [name, o, want] of cases) it(name, () => assert.deepEqual(sourcePatch(form(o), now), want));
});

describe('ingestionOutcome: what a received webhook came to', () => {
  const entry = (status: string, reasonCode: string | null = null, reasonMessage: string | null = null, httpStatus = 200) => ({
    status,
    httpStatus,
    reasonCode,
    reasonMessage,
  });
  const cases: Array<[ReturnType<typeof entry>, string]> = [
    [entry('accepted'), 'Accepted: stored as usage (the sender got HTTP 200).'],
    [entry('duplicate'), "Duplicate: its event was stored before, within the source's window, so nothing was added (the sender got HTTP 200)."],
    [entry('discarded', 'filtered'), "Discarded: its event type is outside the source's filter (the sender got HTTP 200)."],
    [entry('rejected', 'signature_mismatch', 'The signature does not match.', 401), 'Rejected: The signature does not match. (the sender got HTTP 401).'],
    [entry('rejected', 'UNKNOWN_CUSTOMER', null, 422), 'Rejected: UNKNOWN_CUSTOMER (the sender got HTTP 422).'],
    [entry('rejected', null, null, 422), 'Rejected (the sender got HTTP 422).'],
  ];
  for (const [e, want] of cases) it(`${e.status} ${String(e.reasonCode)}`, () => assert.equal(ingestionOutcome(e), want));
});

describe('attemptAnswer: an attempt in words', () => {
  const a = (o: Partial<AttemptLike>): AttemptLike => ({ status: 'failed', responseStatus: null, errorCode: null, errorMessage: null, latencyMs: 12, ...o });
  const cases: Array<[AttemptLike, string]> = [
    [a({ status: 'succeeded', responseStatus: 200 }), 'HTTP 200 in 12 ms'],
    [a({ responseStatus: 500, errorCode: 'http_500', errorMessage: 'The endpoint answered 500.' }), 'HTTP 500 in 12 ms: The endpoint answered 500.'],
    [a({ errorCode: 'timeout', latencyMs: 10000 }), 'No answer after 10000 ms: timeout'],
    [a({}), 'No answer after 12 ms'],
  ];
  for (const [x, want] of cases) it(want, () => assert.equal(attemptAnswer(x), want));
});

describe('deliveryTo and deliveryState: a message at one endpoint', () => {
  const d = (o: Partial<DeliveryLike>): DeliveryLike => ({
    endpointId: 'we_1',
    status: 'succeeded',
    attempts: 1,
    lastResponseStatus: 200,
    lastError: null,
    ...o,
  });
  it('finds the delivery to the endpoint, or null', () => {
    const list = [d({ endpointId: 'we_0' }), d({ endpointId: 'we_1', attempts: 3 })];
    assert.equal(deliveryTo(list, 'we_1')?.attempts, 3);
    assert.equal(deliveryTo(list, 'we_9'), null);
  });
  const cases: Array<[DeliveryLike | null, string]> = [
    [null, 'not sent to this endpoint'],
    [d({}), 'succeeded after 1 attempt'],
    [d({ status: 'failed', attempts: 8, lastError: 'http_500' }), 'failed after 8 attempts (http_500)'],
    [d({ status: 'failed', attempts: 0, lastError: 'endpoint_disabled' }), 'failed without an attempt (endpoint_disabled)'],
    [d({ status: 'pending', attempts: 0 }), 'pending, no attempt yet'],
    [d({ status: 'pending', attempts: 2 }), 'pending, 2 attempts so far'],
  ];
  for (const [x, want] of cases) it(want, () => assert.equal(deliveryState(x), want));
});
