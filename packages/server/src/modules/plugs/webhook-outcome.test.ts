import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { summarizeOutcomes, webhookResponseBody, type EventOutcome } from './webhook-outcome.js';

const fields = { eventId: 'evt_1', tenantId: 'acme', quantity: 5, metricId: 'mtr_1', customerId: 'cus_1' };
const accepted = (index: number): EventOutcome => ({ index, status: 'accepted', ...fields });
const duplicate = (index: number): EventOutcome => ({ index, status: 'duplicate', ...fields });
const discarded = (index: number): EventOutcome => ({ index, status: 'discarded', eventType: 'open', reason: 'filtered' });
const rejected = (index: number): EventOutcome => ({
  index,
  status: 'rejected',
  code: 'UNKNOWN_CUSTOMER',
  field: 'field_mappings.tenant_id',
  message: 'no such customer',
});

describe('plugs.summarizeOutcomes', () => {
  const cases: Array<[string, EventOutcome[], { status: string; httpStatus: number; reasonCode: string | null }]> = [
    ['one accepted event', [accepted(0)], { status: 'accepted', httpStatus: 200, reasonCode: null }],
    ['one duplicate', [duplicate(0)], { status: 'duplicate', httpStatus: 200, reasonCode: null }],
    ['one discarded: the reason is kept', [discarded(0)], { status: 'discarded', httpStatus: 200, reasonCode: 'filtered' }],
    ['one rejected: 422 with its code', [rejected(0)], { status: 'rejected', httpStatus: 422, reasonCode: 'UNKNOWN_CUSTOMER' }],
    ['accepted and duplicate: accepted', [duplicate(0), accepted(1)], { status: 'accepted', httpStatus: 200, reasonCode: null }],
    ['accepted and discarded: accepted', [accepted(0), discarded(1)], { status: 'accepted', httpStatus: 200, reasonCode: null }],
    [
      'accepted and rejected: stored, yet 422 so the provider retries',
      [accepted(0), rejected(1)],
      { status: 'accepted', httpStatus: 422, reasonCode: 'UNKNOWN_CUSTOMER' },
    ],
    ['duplicate and rejected: rejected', [duplicate(0), rejected(1)], { status: 'rejected', httpStatus: 422, reasonCode: 'UNKNOWN_CUSTOMER' }],
    ['duplicate and discarded: duplicate', [discarded(0), duplicate(1)], { status: 'duplicate', httpStatus: 200, reasonCode: null }],
    ['an empty array: discarded', [], { status: 'discarded', httpStatus: 200, reasonCode: 'empty_batch' }],
  ];
  for (const [name, outcomes, expected] of cases) {
    it(name, () => {
      const s = summarizeOutcomes(outcomes);
      assert.deepEqual({ status: s.status, httpStatus: s.httpStatus, reasonCode: s.reasonCode }, expected);
    });
  }
});

describe('plugs.webhookResponseBody', () => {
  const body = (outcomes: EventOutcome[], isArray: boolean) => webhookResponseBody(outcomes, isArray, summarizeOutcomes(outcomes));
  it("one accepted event answers with exactly the spec's five fields", () => {
    assert.deepEqual(body([accepted(0)], false), { status: 'accepted', event_id: 'evt_1', metric_id: 'mtr_1', quantity: 5, tenant_id: 'acme' });
  });
  it('a duplicate answers the same way with status duplicate', () => {
    assert.deepEqual(body([duplicate(0)], false), { status: 'duplicate', event_id: 'evt_1', metric_id: 'mtr_1', quantity: 5, tenant_id: 'acme' });
  });
  it('a discarded event names its type and why', () => {
    assert.deepEqual(body([discarded(0)], false), { status: 'discarded', event_type: 'open', reason: 'filtered' });
  });
  it('a rejected event answers with the error envelope naming the field', () => {
    assert.deepEqual(body([rejected(0)], false), {
      success: false,
      errors: [{ code: 'UNKNOWN_CUSTOMER', message: 'no such customer', field: 'field_mappings.tenant_id' }],
    });
  });
  it('an array lists every element, and a refusal adds the envelope with indexes', () => {
    assert.deepEqual(body([accepted(0), discarded(1)], true), {
      status: 'accepted',
      events: [
        { status: 'accepted', event_id: 'evt_1', metric_id: 'mtr_1', quantity: 5, tenant_id: 'acme' },
        { status: 'discarded', event_type: 'open', reason: 'filtered' },
      ],
    });
    const refused = body([accepted(0), rejected(1)], true);
    assert.equal(refused.success, false);
    assert.deepEqual(refused.errors, [{ code: 'UNKNOWN_CUSTOMER', message: 'no such customer', field: 'field_mappings.tenant_id', index: 1 }]);
    assert.equal((refused.events as unknown[]).length, 2);
  });
});
