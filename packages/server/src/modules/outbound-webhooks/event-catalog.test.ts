import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { catalogTypes, checkEventTypeFilters, eventCatalog, exampleOf, matchesEventType, subscribableTypes, type CatalogType } from './event-catalog.js';

describe('outbound-webhooks.event catalog', () => {
  it('holds the 15 types the issue requires', () => {
    for (const t of [
      'subscription.created',
      'subscription.upgraded',
      'subscription.downgraded',
      'subscription.change_scheduled',
      'subscription.cancelled',
      'subscription.renewed',
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.voided',
      'credit_note.created',
      'usage.limit_alert',
      'api_key.rotated',
      'api_key.revoked',
      'api_key.grace_used',
    ])
      assert.ok(catalogTypes.includes(t as CatalogType), t);
  });
  it('every type is named category.action after its category', () => {
    for (const t of catalogTypes) assert.ok(t.startsWith(`${eventCatalog[t].category}.`), t);
  });
  it('webhook.test cannot be subscribed to', () => assert.ok(!(subscribableTypes as string[]).includes('webhook.test')));
  it("every example is of its type and its resource's object", () => {
    for (const t of catalogTypes) {
      const e = exampleOf(t);
      assert.equal(e.type, t);
      assert.equal(e.data.object.object, eventCatalog[t].resource);
    }
  });
});

describe('outbound-webhooks.checkEventTypeFilters: "*", exact names or category.*', () => {
  const accepted: Array<[rule: string, list: string[], value: string[]]> = [
    ['every type', ['*'], ['*']],
    ['"*" absorbs the rest', ['invoice.paid', '*'], ['*']],
    ['exact names', ['invoice.paid', 'subscription.upgraded'], ['invoice.paid', 'subscription.upgraded']],
    ['a category', ['subscription.*'], ['subscription.*']],
    [
      'every category',
      ['subscription.*', 'invoice.*', 'credit_note.*', 'usage.*', 'api_key.*'],
      ['subscription.*', 'invoice.*', 'credit_note.*', 'usage.*', 'api_key.*'],
    ],
    ['duplicates are dropped', ['invoice.paid', 'invoice.paid'], ['invoice.paid']],
  ];
  for (const [rule, list, value] of accepted)
    it(`accepted: ${rule}`, () => assert.deepEqual(checkEventTypeFilters(list, 'body.eventTypes'), { ok: true, value }));

  const refused: Array<[rule: string, list: string[], fields: string[]]> = [
    ['an unknown type names its index', ['invoice.paid', 'invoice.exploded'], ['body.eventTypes[1]']],
    ['an unknown category', ['charge.*'], ['body.eventTypes[0]']],
    ['a bare category', ['invoice'], ['body.eventTypes[0]']],
    ['a prefix glob', ['invoice.p*'], ['body.eventTypes[0]']],
    ['webhook.test', ['webhook.test'], ['body.eventTypes[0]']],
    ['webhook.* (the test category)', ['webhook.*'], ['body.eventTypes[0]']],
    ['an empty list', [], ['body.eventTypes']],
    ['each bad entry is named', ['x', 'invoice.paid', 'y'], ['body.eventTypes[0]', 'body.eventTypes[2]']],
  ];
  for (const [rule, list, fields] of refused) {
    it(`refused: ${rule}`, () => {
      const r = checkEventTypeFilters(list, 'body.eventTypes');
      assert.equal(r.ok, false);
      if (!r.ok)
        assert.deepEqual(
          r.errors.map((e) => e.field),
          fields,
        );
    });
  }
});

describe('outbound-webhooks.matchesEventType', () => {
  const cases: Array<[rule: string, filters: string[], type: CatalogType, matches: boolean]> = [
    ['"*" matches every type', ['*'], 'invoice.paid', true],
    ['an exact name matches itself', ['invoice.paid'], 'invoice.paid', true],
    ['an exact name matches no other', ['invoice.paid'], 'invoice.voided', false],
    ['a category matches its types', ['subscription.*'], 'subscription.upgraded', true],
    ['a category matches no other category', ['subscription.*'], 'invoice.paid', false],
    ['credit_note.* matches credit_note.created', ['credit_note.*'], 'credit_note.created', true],
    ['webhook.test matches nothing, not even "*"', ['*'], 'webhook.test', false],
  ];
  for (const [rule, filters, type, matches] of cases) it(rule, () => assert.equal(matchesEventType(filters, type), matches));
});
