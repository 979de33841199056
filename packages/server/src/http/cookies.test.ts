import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { clearedCookie, parseCookies, sessionCookie } from './cookies.js';

describe('parseCookies', () => {
  const cases: Array<[string | undefined, Record<string, string>]> = [
    [undefined, {}],
    ['', {}],
    ['a=1', { a: '1' }],
    ['a=1; b=2', { a: '1', b: '2' }],
    ['  a = 1 ;b=2  ', { a: '1', b: '2' }],
    ['a="quoted"', { a: 'quoted' }],
    ['a=1; a=2', { a: '1' }],
    ['__Host-tollgate_console=tgc_abc; theme=dark', { '__Host-tollgate_console': 'tgc_abc', theme: 'dark' }],
    ['novalue; a=1', { a: '1' }],
    ['a=; b=2', { a: '', b: '2' }],
    [`a=${'x'.repeat(9000)}`, {}],
  ];
  for (const [header, expected] of cases) {
    it(`${JSON.stringify(header)?.slice(0, 40)} -> ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(Object.fromEntries(parseCookies(header)), expected);
    });
  }
});

describe('session cookies', () => {
  it('are HttpOnly, Secure, SameSite=Strict, Path=/ with a whole Max-Age', () => {
    assert.equal(sessionCookie('__Host-x', 'v', 3600.7), '__Host-x=v; Path=/; Max-Age=3600; HttpOnly; Secure; SameSite=Strict');
    assert.equal(sessionCookie('__Host-x', 'v', -5), '__Host-x=v; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict');
  });
  it('are cleared with Max-Age=0 and the same attributes', () => {
    assert.equal(clearedCookie('__Host-x'), '__Host-x=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict');
  });
});
