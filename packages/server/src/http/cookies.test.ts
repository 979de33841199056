import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { clearedCookie, parseCookies, sessionCookie } from './cookies.js';

describe('parseCookies', () => {
  const cases: Array<[string, string | undefined, Record<string, string>]> = [
    ['no header', undefined, {}],
    ['empty header', '', {}],
    ['one cookie', 'a=1', { a: '1' }],
    ['several, spaces around', ' a=1 ;b=2;  c = 3 ', { a: '1', b: '2', c: '3' }],
    ['the first of a name wins', 'a=1; a=2', { a: '1' }],
    ['quoted value', 'a="x y"', { a: 'x y' }],
    ['a lone quote is kept', 'a="', { a: '"' }],
    ['= inside the value', 'a=b=c', { a: 'b=c' }],
    ['empty value', 'a=', { a: '' }],
    ['no = is skipped', 'flag; a=1', { a: '1' }],
    ['empty name is skipped', '=x; a=1', { a: '1' }],
    ['trailing semicolon', 'a=1;', { a: '1' }],
    ['a header beyond 8 KiB is not read', `a=${'x'.repeat(9000)}`, {}],
    ['names are case-sensitive', '__host-tollgate_hub=x; __Host-tollgate_hub=y', { '__host-tollgate_hub': 'x', '__Host-tollgate_hub': 'y' }],
  ];
  for (const [name, header, expected] of cases) {
    it(name, () => assert.deepEqual(Object.fromEntries(parseCookies(header)), expected));
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
