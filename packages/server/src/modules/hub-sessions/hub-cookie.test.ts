import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sha256Hex } from '../../lib/crypto.js';
import { csrfMatches, csrfTokenOf, hubCookie } from './hub-cookie.js';

describe('hubCookie', () => {
  it('sets the __Host- cookie for the seconds left, HttpOnly, Secure, SameSite=Strict', () => {
    assert.equal(hubCookie('hst_test_x', 3599.9), '__Host-tollgate_hub=hst_test_x; Path=/; Max-Age=3599; HttpOnly; Secure; SameSite=Strict');
  });
  it('clears it with Max-Age=0, never a negative age', () => {
    assert.match(hubCookie('', -5), /^__Host-tollgate_hub=; Path=\/; Max-Age=0;/);
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
