import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { catalogTypes } from './event-catalog.js';
import { eventTypesOf, orBadRequest, parseAttemptFilter, parseMessageFilter } from './webhook-log-filter.js';

const T = Date.UTC(2026, 10, 23, 12);

describe('outbound-webhooks.eventTypesOf: an exact type or category.*', () => {
  const cases: Array<[rule: string, value: string, types: string[] | null]> = [
    ['an exact subscribable type', 'invoice.paid', ['invoice.paid']],
    ['webhook.test: the log holds test events', 'webhook.test', ['webhook.test']],
    ['a category', 'credit_note.*', ['credit_note.created']],
    ['the webhook category', 'webhook.*', ['webhook.test']],
    ['a category is every type of it, in catalog order', 'api_key.*', ['api_key.rotated', 'api_key.rolled', 'api_key.revoked', 'api_key.grace_used']],
    ['an unknown type', 'invoice.exploded', null],
    ['an unknown category', 'refund.*', null],
    ['a category without .*', 'invoice', null],
    ['* (leave the filter out instead)', '*', null],
    ['a prefix that is no category', 'inv.*', null],
    ['upper case', 'INVOICE.PAID', null],
  ];
  for (const [rule, value, types] of cases) it(rule, () => assert.deepEqual(eventTypesOf(value), types));

  it('every category of the catalog is a filter that matches exactly its types', () => {
    for (const t of catalogTypes) assert.ok(eventTypesOf(`${t.split('.')[0]}.*`)!.includes(t), t);
  });
});

describe('outbound-webhooks.parseMessageFilter and parseAttemptFilter', () => {
  const accepted: Array<[rule: string, got: ReturnType<typeof parseMessageFilter> | ReturnType<typeof parseAttemptFilter>, value: unknown]> = [
    ['nothing: no filter', parseMessageFilter({}), { eventTypes: undefined, endpointId: undefined, status: undefined, created: {} }],
    [
      'a range to the millisecond, with a zone offset',
      parseMessageFilter({ createdFrom: '2026-11-23T12:00:00.250Z', createdTo: '2026-11-23T14:00:00+01:00' }),
      { eventTypes: undefined, endpointId: undefined, status: undefined, created: { from: T + 250, to: T + 3_600_000 } },
    ],
    [
      'attempts: every filter',
      parseAttemptFilter({
        eventType: 'usage.*',
        endpointId: 'we_1',
        messageId: 'msg_1',
        status: 'failed',
        trigger: 'replay',
        attemptedFrom: '2026-11-23T12:00:00Z',
      }),
      { eventTypes: ['usage.limit_alert'], endpointId: 'we_1', messageId: 'msg_1', status: 'failed', trigger: 'replay', attempted: { from: T } },
    ],
  ];
  for (const [rule, got, value] of accepted) it(`accepts ${rule}`, () => assert.deepEqual(got, { ok: true, value }));

  const refused: Array<[rule: string, got: ReturnType<typeof parseMessageFilter> | ReturnType<typeof parseAttemptFilter>, fields: string[]]> = [
    ['an unknown event type', parseMessageFilter({ eventType: 'invoice.exploded' }), ['query.eventType']],
    ['a time without a zone', parseMessageFilter({ createdFrom: '2026-11-23T12:00:00' }), ['query.createdFrom']],
    ['a day that does not exist', parseAttemptFilter({ attemptedTo: '2026-02-30T00:00:00Z' }), ['query.attemptedTo']],
    ['an empty range', parseMessageFilter({ createdFrom: '2026-11-23T12:00:00Z', createdTo: '2026-11-23T12:00:00Z' }), ['query.createdTo']],
    ['a range backwards', parseAttemptFilter({ attemptedFrom: '2026-11-23T12:00:00Z', attemptedTo: '2026-11-23T11:00:00Z' }), ['query.attemptedTo']],
    [
      'every bad field at once',
      parseMessageFilter({ eventType: 'nope', createdFrom: 'x', createdTo: 'y' }),
      ['query.eventType', 'query.createdFrom', 'query.createdTo'],
    ],
  ];
  for (const [rule, got, fields] of refused) {
    it(`refuses ${rule}, naming the field`, () => {
      assert.equal(got.ok, false);
      if (!got.ok)
        assert.deepEqual(
          got.errors.map((e) => e.field),
          fields,
        );
    });
  }

  it('orBadRequest: a 400 VALIDATION_FAILED with one detail per field', () => {
    assert.throws(
      () => orBadRequest(parseMessageFilter({ eventType: 'nope', createdFrom: 'x' })),
      (e: { status: number; details: Array<{ code: string; field: string }> }) =>
        e.status === 400 && e.details.map((d) => `${d.code} ${d.field}`).join() === 'VALIDATION_FAILED query.eventType,VALIDATION_FAILED query.createdFrom',
    );
  });
});
