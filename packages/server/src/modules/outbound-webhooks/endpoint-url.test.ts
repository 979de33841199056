import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkEndpointUrl } from './endpoint-url.js';

describe('outbound-webhooks.checkEndpointUrl: URL rules', () => {
  const refused: Array<[rule: string, url: string, allowHttp: boolean, message: RegExp]> = [
    ['not a URL', 'hooks.example.com/x', true, /absolute URL/],
    ['ftp is no webhook scheme', 'ftp://hooks.example.com/x', true, /must use https \(got ftp:\)/],
    ['file is no webhook scheme', 'file:///etc/passwd', true, /must use https/],
    ['http without OUTBOUND_WEBHOOK_ALLOW_HTTP', 'http://hooks.example.com/x', false, /OUTBOUND_WEBHOOK_ALLOW_HTTP/],
    ['a user name and password', 'https://user:pass@hooks.example.com/x', true, /user name or password/],
    ['a user name hiding the host', 'https://bank.example@evil.test/x', true, /user name or password/],
    ['a fragment', 'https://hooks.example.com/x#frag', true, /fragment/],
    ['an empty fragment', 'https://hooks.example.com/x#', true, /fragment/],
    ['longer than 2,048 characters', `https://hooks.example.com/${'a'.repeat(2_030)}`, true, /at most 2048/],
  ];
  for (const [rule, url, allowHttp, message] of refused) {
    it(`refused: ${rule}`, () => {
      const r = checkEndpointUrl(url, { allowHttp });
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.message, message);
    });
  }
  const accepted: Array<[rule: string, url: string, allowHttp: boolean, canonical: string]> = [
    ['https', 'https://hooks.example.com/tollgate', false, 'https://hooks.example.com/tollgate'],
    ['http when allowed', 'http://127.0.0.1:8080/hook', true, 'http://127.0.0.1:8080/hook'],
    ['the host is lower-cased and the default port dropped', 'https://HOOKS.Example.com:443/a?b=1', false, 'https://hooks.example.com/a?b=1'],
    ['a query is kept', 'https://hooks.example.com/x?token=abc', false, 'https://hooks.example.com/x?token=abc'],
  ];
  for (const [rule, url, allowHttp, canonical] of accepted) {
    it(`accepted: ${rule}`, () => {
      const r = checkEndpointUrl(url, { allowHttp });
      assert.ok(r.ok);
      assert.equal(r.url, canonical);
    });
  }
  it('a trailing dot is dropped from the name to resolve', () => {
    const r = checkEndpointUrl('https://localhost./x', { allowHttp: false });
    assert.ok(r.ok);
    assert.deepEqual(r.host, { kind: 'name', name: 'localhost' });
  });
});
