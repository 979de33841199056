import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { originRefusal } from './allowed-origins.js';

const SHOP = 'https://shop.example.com';

describe('originRefusal', () => {
  const cases: Array<[string, string[], string | undefined, 'allowed' | RegExp]> = [
    ['no list: any origin', [], 'https://anything.example', 'allowed'],
    ['no list: no Origin header either', [], undefined, 'allowed'],
    ['listed origin', [SHOP, 'http://localhost:3000'], 'http://localhost:3000', 'allowed'],
    ['another origin', [SHOP], 'https://evil.example', /origin 'https:\/\/evil\.example'; it allows https:\/\/shop\.example\.com/],
    ['same host, other scheme', [SHOP], 'http://shop.example.com', /origin 'http:\/\/shop\.example\.com'/],
    ['same host, other port', [SHOP], 'https://shop.example.com:8443', /origin 'https:\/\/shop\.example\.com:8443'/],
    ['a subdomain of a listed one', [SHOP], 'https://a.shop.example.com', /origin 'https:\/\/a\.shop\.example\.com'/],
    ['no Origin header with a list: fail closed', [SHOP], undefined, /no Origin header/],
    ["the opaque origin 'null'", [SHOP], 'null', /origin 'null'/],
  ];
  for (const [name, allowed, origin, expected] of cases) {
    it(`${name} -> ${expected === 'allowed' ? 'allowed' : '403'}`, () => {
      const refusal = originRefusal(allowed, origin);
      if (expected === 'allowed') return assert.equal(refusal, null);
      assert.equal(refusal?.code, 'ORIGIN_NOT_ALLOWED');
      assert.equal(refusal?.status, 403);
      assert.match(refusal?.message ?? '', expected);
    });
  }
});
