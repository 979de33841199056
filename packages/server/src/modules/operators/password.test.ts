import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword, passwordCost, passwordProblem, verifyAgainstNothing, verifyPassword } from './password.js';

describe('passwordProblem', () => {
  const cases: Array<[string, RegExp | null]> = [
    ['', /at least 12/],
    ['short', /at least 12/],
    ['elevenchars', /at least 12/],
    ['twelve chars', null],
    ['correct horse battery staple', null],
    ['            ', /only spaces/],
    ['ü'.repeat(12), null],
    ['😀'.repeat(11), /at least 12/],
    ['a'.repeat(256), null],
    ['a'.repeat(257), /at most 256/],
  ];
  for (const [password, expected] of cases) {
    it(`${JSON.stringify(password.slice(0, 30))} (${[...password].length} chars) -> ${expected ?? 'accepted'}`, () => {
      const problem = passwordProblem(password);
      if (expected === null) assert.equal(problem, null);
      else assert.match(problem ?? '', expected);
    });
  }
});

describe('passwordCost', () => {
  for (const [profile, expected] of [
    ['production', { logN: 15, r: 8, p: 3 }],
    ['development', { logN: 15, r: 8, p: 3 }],
    ['test', { logN: 10, r: 8, p: 1 }],
  ] as const) {
    it(`${profile}: N = 2^${expected.logN}, r = ${expected.r}, p = ${expected.p}`, () => {
      assert.deepEqual(passwordCost(profile), expected);
    });
  }

  it("a hash made at the test profile's cost names its parameters and verifies like any other", async () => {
    const stored = await hashPassword('correct horse battery staple', passwordCost('test'));
    assert.match(stored, /^scrypt\$10\$8\$1\$/);
    assert.equal(await verifyPassword('correct horse battery staple', stored), true);
    assert.equal(await verifyPassword('wrong horse battery staple', stored), false);
  });
});

describe('hashPassword / verifyPassword', () => {
  it('keeps the parameters and a random salt with the hash, never the password', async () => {
    const a = await hashPassword('correct horse battery staple');
    const b = await hashPassword('correct horse battery staple');
    assert.match(a, /^scrypt\$15\$8\$3\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    assert.notEqual(a, b, 'salted');
    assert.ok(!a.includes('horse'));
  });

  it('verifies the right password only', async () => {
    const stored = await hashPassword('correct horse battery staple');
    assert.equal(await verifyPassword('correct horse battery staple', stored), true);
    assert.equal(await verifyPassword('correct horse battery stapl', stored), false);
    assert.equal(await verifyPassword('', stored), false);
  });

  it('treats a composed and a decomposed accent as the same password (NFKC)', async () => {
    const stored = await hashPassword('caf\u00e9 au lait, please');
    assert.equal(await verifyPassword('cafe\u0301 au lait, please', stored), true);
  });

  it('never matches a malformed or out-of-range stored hash', async () => {
    for (const stored of ['', 'plain', 'scrypt$15$8$3$$', 'scrypt$30$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAA==', 'bcrypt$2b$10$abc']) {
      assert.equal(await verifyPassword('anything at all', stored), false, stored);
    }
  });

  it('verifyAgainstNothing spends the work and says no', async () => {
    assert.equal(await verifyAgainstNothing('anything at all'), false);
  });
});
