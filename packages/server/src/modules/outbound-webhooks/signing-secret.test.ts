import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateSigningSecret, signingKeyOf, signingSecretHint } from './signing-secret.js';

describe('outbound-webhooks.signing secrets: whsec_ and the base64 of 24 to 64 bytes', () => {
  it('a generated secret is whsec_ and 32 random bytes, different every time', () => {
    const a = generateSigningSecret();
    assert.match(a, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(signingKeyOf(a)!.length, 32);
    assert.notEqual(a, generateSigningSecret());
  });
  const b64 = (n: number) => Buffer.alloc(n, 1).toString('base64');
  const cases: Array<[rule: string, secret: string, bytes: number | null]> = [
    ['24 bytes, the least', `whsec_${b64(24)}`, 24],
    ['64 bytes, the most', `whsec_${b64(64)}`, 64],
    ['23 bytes is too short', `whsec_${b64(23)}`, null],
    ['65 bytes is too long', `whsec_${b64(65)}`, null],
    ['no whsec_ prefix', b64(32), null],
    ['not base64', `whsec_${'!'.repeat(44)}`, null],
    ['base64url is not base64', `whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`, null],
    ['empty', 'whsec_', null],
  ];
  for (const [rule, secret, bytes] of cases) {
    it(rule, () => assert.equal(signingKeyOf(secret)?.length ?? null, bytes));
  }
  it('the hint is the prefix and the last four characters', () => assert.equal(signingSecretHint('whsec_abcdefghk3Xa'), 'whsec_…k3Xa'));
});
