import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildWebhookBody } from './webhook-payload.js';

const AT = Date.UTC(2026, 10, 23, 12);

describe('outbound-webhooks.buildWebhookBody: {type, timestamp, data}, minified', () => {
  it('the resource, previous attributes and details as given, the timestamp in ISO 8601', () => {
    const data = {
      object: { id: 'sub_1', object: 'subscription', status: 'ACTIVE' },
      previousAttributes: { offeringId: 'off_0' },
      details: { kind: 'IMMEDIATE' },
    };
    assert.equal(
      buildWebhookBody('subscription.upgraded', AT, data),
      '{"type":"subscription.upgraded","timestamp":"2026-11-23T12:00:00.000Z","data":{"object":{"id":"sub_1","object":"subscription","status":"ACTIVE"},"previousAttributes":{"offeringId":"off_0"},"details":{"kind":"IMMEDIATE"}}}',
    );
  });
  it('a body at the limit is sent whole', () => {
    const data = { object: { id: 'inv_1', object: 'invoice', pad: '' } };
    const size = Buffer.byteLength(buildWebhookBody('invoice.created', AT, data));
    const body = buildWebhookBody('invoice.created', AT, { object: { ...data.object, pad: 'x'.repeat(100) } }, size + 100);
    assert.equal(JSON.parse(body).data.object.pad.length, 100);
  });
  it('past the limit: thin, {id, object} and thin: true (the seller GETs the resource)', () => {
    const body = buildWebhookBody('invoice.created', AT, { object: { id: 'inv_1', object: 'invoice', lines: 'x'.repeat(300 * 1024) }, details: { a: 1 } });
    assert.deepEqual(JSON.parse(body), {
      type: 'invoice.created',
      timestamp: '2026-11-23T12:00:00.000Z',
      data: { object: { id: 'inv_1', object: 'invoice' }, thin: true },
    });
  });
  it('the limit counts bytes, not characters', () => {
    const body = buildWebhookBody('invoice.created', AT, { object: { id: 'inv_1', object: 'invoice', note: 'é'.repeat(600) } }, 1000);
    assert.equal(JSON.parse(body).data.thin, true);
  });
});
