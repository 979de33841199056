import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sha256Hex } from '../../lib/crypto.js';
import { csrfMatches, csrfTokenOf, hubCookie, parseCookies } from './hub-cookie.js';

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
    ['names are case-sensitive', '__host-tollgate_hub=x; __Host-tollgate_hub=y', { '__host-tollgate_hub': 'x', '__Host-tollgate_hub': 'y' }],
  ];
  for (const [name, header, expected] of cases) {
    it(name, () => assert.deepEqual(Object.fromEntries(parseCookies(header)), expected));
  }
});

describe('hubCookie', () => {
  it('sets the __Host- cookie for the seconds left, HttpOnly, Secure, SameSite=Strict', () => {
    assert.equal(hubCookie('hst_test_x', 3599.9), '__Host-tollgate_hub=hst_test_x; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=3599');
  });
  it('clears it with Max-Age=0, never a negative age', () => {
    assert.match(hubCookie('', -5), /^__Host-tollgate_hub=; .*Max-Age=0$/);
  });
});

describe('csrf', () => {
  const secret = `hst_test_${'ab'.repeat(32)}`;
  const token = csrfTokenOf(secret);
  it('is stable for a secret, differs between secrets and does not contain the secret', () => {
    assert.equal(csrfTokenOf(secret), token);
    assert.notEqual(csrfTokenOf(`hst_test_${'cd'.repeat(32)}`), token);
    assert.match(token, /^[0-9a-f]{64}$/);
    assert.ok(!token.includes('abab'));
  });
  const cases: Array<[string, string | string[] | undefined, boolean]> = [
    ['the token', token, true],
    ['absent', undefined, false],
    ['empty', '', false],
    ['another token', csrfTokenOf('other'), false],
    ['the token, upper case', token.toUpperCase(), false],
    ['repeated header', [token, token], false],
    ['the stored hash itself', sha256Hex(token), false],
  ];
  for (const [name, presented, expected] of cases) {
    it(`csrfMatches: ${name}`, () => assert.equal(csrfMatches(presented, sha256Hex(token)), expected));
  }
});
