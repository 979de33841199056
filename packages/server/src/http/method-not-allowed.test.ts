import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AllowedMethods } from './method-not-allowed.js';

describe('AllowedMethods: the methods a concrete path answers to', () => {
  const allowed = new AllowedMethods();
  for (const [method, url] of [
    ['GET', '/api/v1/customers'],
    ['POST', '/api/v1/customers'],
    ['GET', '/api/v1/customers/:id'],
    ['PATCH', '/api/v1/customers/:id'],
    ['POST', '/api/v1/subscriptions/:id/cancel'],
    ['GET', '/console/*'],
    ['GET', '/v1/prices.json'],
  ] as const) {
    allowed.add({ method, url });
  }
  const cases: Array<[string, string[]]> = [
    ['/api/v1/customers', ['GET', 'HEAD', 'POST']],
    ['/api/v1/customers/', ['GET', 'HEAD', 'POST']],
    ['/api/v1/customers/cus_1', ['GET', 'HEAD', 'PATCH']],
    ['/api/v1/subscriptions/sub_1/cancel', ['POST']],
    ['/api/v1/subscriptions/sub_1/cancel/more', []],
    ['/api/v1/customers/cus_1/extra', []],
    ['/console/keys/new', ['GET', 'HEAD']],
    ['/v1/prices.json', ['GET', 'HEAD']],
    ['/v1/pricesxjson', []],
    ['/nowhere', []],
  ];
  for (const [path, methods] of cases) {
    it(`${path} → ${methods.join(', ') || 'none'}`, () => assert.deepEqual(allowed.of(path), methods));
  }
});
