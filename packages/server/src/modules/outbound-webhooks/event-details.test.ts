import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { changeKinds as ownerKinds } from '@tollgate/pricing';
import { changeChannels as ownerChannels } from '../plan-changes/plan-change.js';
import { cancelChannels as ownerCancelChannels } from '../subscriptions/cancellation-details.js';
import { cancelReasons as ownerReasons } from '../retention-offers/retention-offer.js';
import { catalogTypes } from './event-catalog.js';
import { cancelChannels, cancelReasons, changeChannels, changeKinds, detailsExample, detailsSchema, eventDetails } from './event-details.js';

describe('event details: the documented fields of each type', () => {
  it('the enums written out here are their owners’ lists', () => {
    assert.deepEqual(changeKinds, ownerKinds);
    assert.deepEqual(changeChannels, ownerChannels);
    assert.deepEqual(cancelChannels, ownerCancelChannels);
    assert.deepEqual(cancelReasons, ownerReasons);
  });

  const cases: Array<[type: string, fields: string[] | null]> = [
    ['subscription.created', null],
    [
      'subscription.upgraded',
      ['kind', 'applyAt', 'channel', 'fromOfferingId', 'toOfferingId', 'effectiveAt', 'credit', 'debit', 'net', 'invoiceId', 'creditNoteId'],
    ],
    ['subscription.change_scheduled', ['change', 'fromOfferingId', 'toOfferingId', 'effectiveAt', 'channel', 'reason', 'comment']],
    ['subscription.change_withdrawn', ['withdrawn', 'channel']],
    ['subscription.cancelled', ['applyAt', 'reason', 'channel', 'comment', 'creditNoteId', 'revokedKeyIds', 'revokedClientCredentialIds', 'invoiceId']],
    ['invoice.paid', null],
    ['usage.limit_alert', null],
    ['api_key.rotated', ['newKeyId', 'graceEndsAt', 'testClockId', 'graceEndsAtClock']],
    ['api_key.revoked', ['reason']],
    ['webhook.test', null],
  ];
  for (const [type, fields] of cases) {
    it(`${type}: ${fields ? fields.join(', ') : 'no details'}; the schema requires each, the example has each in order`, () => {
      const t = type as (typeof catalogTypes)[number];
      if (!fields) {
        assert.equal(detailsSchema(t), null);
        assert.equal(detailsExample(t), undefined);
        return;
      }
      assert.deepEqual(detailsSchema(t)!.required, fields);
      assert.deepEqual(Object.keys(detailsExample(t)!), fields);
    });
  }

  it('every documented field has a description, and every string or array a maximum', () => {
    for (const [type, fields] of Object.entries(eventDetails)) {
      for (const [name, f] of Object.entries(fields)) {
        assert.ok(f.description.length > 10, `${type}.${name} is described`);
        const kinds = ([] as unknown[]).concat(f.schema.type ?? []);
        if (kinds.includes('string') && !f.schema.enum) assert.ok(typeof f.schema.maxLength === 'number', `${type}.${name}: maxLength`);
        if (kinds.includes('array')) assert.ok(typeof f.schema.maxItems === 'number', `${type}.${name}: maxItems`);
      }
    }
  });
});
