import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hrefOf, matchRoute, NAV, navSectionOf, type Route } from '../src/routes.js';

describe('matchRoute: a pathname to the screen it shows', () => {
  const cases: Array<[string, Route | null]> = [
    ['/console', { name: 'home', params: {} }],
    ['/console/', { name: 'home', params: {} }],
    ['/console/sign-in', { name: 'sign-in', params: {} }],
    ['/console/accept', { name: 'accept', params: {} }],
    ['/console/customers', { name: 'customers', params: {} }],
    ['/console/customers/', { name: 'customers', params: {} }],
    ['/console//customers', { name: 'customers', params: {} }],
    ['/console/customers/cus_123', { name: 'customer', params: { id: 'cus_123' } }],
    ['/console/customers/a%2Fb', { name: 'customer', params: { id: 'a/b' } }],
    ['/console/invoices/inv_123', { name: 'invoice', params: { id: 'inv_123' } }],
    ['/console/invoices', null],
    ['/console/invoices/inv_1/lines', null],
    ['/console/audit', { name: 'audit', params: {} }],
    ['/console/webhooks', { name: 'webhooks', params: {} }],
    ['/console/webhooks/wsrc_1', { name: 'webhook-source', params: { id: 'wsrc_1' } }],
    ['/console/webhooks/wsrc_1/log/whl_2', { name: 'webhook-entry', params: { id: 'wsrc_1', entryId: 'whl_2' } }],
    ['/console/webhooks/wsrc_1/log', null],
    ['/console/outbound', { name: 'outbound', params: {} }],
    ['/console/outbound/we_1', { name: 'outbound-endpoint', params: { id: 'we_1' } }],
    ['/console/outbound/we_1/deliveries/msg_2', { name: 'outbound-delivery', params: { id: 'we_1', messageId: 'msg_2' } }],
    ['/console/outbound/we_1/deliveries', null],
    ['/console/catalog', { name: 'catalog', params: {} }],
    ['/console/catalog/rate-plans', { name: 'catalog-rate-plans', params: {} }],
    ['/console/catalog/rate-plans/new', { name: 'catalog-rate-plan', params: { id: 'new' } }],
    ['/console/catalog/rate-plans/plan_1', { name: 'catalog-rate-plan', params: { id: 'plan_1' } }],
    ['/console/catalog/offerings', { name: 'catalog-offerings', params: {} }],
    ['/console/catalog/storefronts', { name: 'catalog-storefronts', params: {} }],
    ['/console/catalog/nope', null],
    ['/console/test-clocks', { name: 'test-clocks', params: {} }],
    ['/console/operators', { name: 'operators', params: {} }],
    ['/console/settings/payments', { name: 'payment-settings', params: {} }],
    ['/console/settings', null],
    ['/console/customers/cus_1/extra', null],
    ['/console/nope', null],
    ['/console/customers/%E0%A4%A', null],
    ['/consoles', null],
    ['/', null],
    ['/api/v1/customers', null],
  ];
  for (const [path, want] of cases)
    it(`${path} -> ${want ? `${want.name} ${JSON.stringify(want.params)}` : 'no screen'}`, () => assert.deepEqual(matchRoute(path), want));
});

describe('hrefOf: the path of a screen, and back', () => {
  const cases: Array<[Parameters<typeof hrefOf>, string]> = [
    [['home'], '/console'],
    [['customers'], '/console/customers'],
    [['customer', { id: 'cus_1' }], '/console/customers/cus_1'],
    [['customer', { id: 'a/b c' }], '/console/customers/a%2Fb%20c'],
    [['webhook-source', { id: 'wsrc_1' }], '/console/webhooks/wsrc_1'],
    [['webhook-entry', { id: 'wsrc_1', entryId: 'whl_2' }], '/console/webhooks/wsrc_1/log/whl_2'],
    [['outbound-endpoint', { id: 'we_1' }], '/console/outbound/we_1'],
    [['outbound-delivery', { id: 'we_1', messageId: 'msg_2' }], '/console/outbound/we_1/deliveries/msg_2'],
    [['catalog-rate-plan', { id: 'plan_1' }], '/console/catalog/rate-plans/plan_1'],
    [['catalog-storefronts'], '/console/catalog/storefronts'],
    [['invoice', { id: 'inv_1' }], '/console/invoices/inv_1'],
    [['payment-settings'], '/console/settings/payments'],
  ];
  for (const [args, want] of cases) {
    it(`${JSON.stringify(args)} -> ${want}, which matches it again`, () => {
      assert.equal(hrefOf(...args), want);
      assert.deepEqual(matchRoute(want), { name: args[0], params: args[1] ?? {} });
    });
  }
  it('a missing parameter is an error, not a broken link', () => assert.throws(() => hrefOf('customer'), /needs id/));
  it('every navigation entry is a route', () => {
    for (const n of NAV) assert.deepEqual(matchRoute(hrefOf(n.name)), { name: n.name, params: {} });
  });
});

describe('navSectionOf: the navigation entry that is current', () => {
  const cases: Array<[string, string | null]> = [
    ['/console', 'home'],
    ['/console/customers/cus_1', 'customers'],
    ['/console/invoices/inv_1', 'customers'],
    ['/console/keys', 'keys'],
    ['/console/webhooks/wsrc_1', 'webhooks'],
    ['/console/webhooks/wsrc_1/log/whl_2', 'webhooks'],
    ['/console/outbound/we_1', 'outbound'],
    ['/console/outbound/we_1/deliveries/msg_2', 'outbound'],
    ['/console/catalog', 'catalog'],
    ['/console/catalog/rate-plans/plan_1', 'catalog'],
    ['/console/catalog/storefronts', 'catalog'],
    ['/console/settings/payments', 'payment-settings'],
    ['/console/sign-in', null],
    ['/console/nope', null],
  ];
  for (const [path, want] of cases) it(`${path} -> ${want}`, () => assert.equal(navSectionOf(matchRoute(path)), want));
});
