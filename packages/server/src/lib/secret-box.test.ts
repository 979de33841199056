import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatEncryptionKey, generateEncryptionKey, loadOrCreateKeyFile, parseEncryptionKeys, SecretBox, SecretBoxError } from './secret-box.js';

const k1 = generateEncryptionKey('k1');
const k2 = generateEncryptionKey('k2');

describe('SecretBox', () => {
  it('opens what it sealed, with the key id stored beside the value', () => {
    const box = new SecretBox([k1]);
    const sealed = box.seal('whsec_abc', 'webhook_source:wsrc_1');
    assert.equal(sealed.keyId, 'k1');
    assert.ok(!sealed.ciphertext.includes('whsec_abc'));
    assert.equal(box.open(sealed, 'webhook_source:wsrc_1'), 'whsec_abc');
  });

  it('uses a fresh 96-bit nonce for every value: the same secret seals differently', () => {
    const box = new SecretBox([k1]);
    const a = box.seal('same', 'x');
    const b = box.seal('same', 'x');
    assert.notEqual(a.ciphertext, b.ciphertext);
    assert.notDeepEqual(Buffer.from(a.ciphertext, 'base64').subarray(0, 12), Buffer.from(b.ciphertext, 'base64').subarray(0, 12));
    assert.equal(Buffer.from(a.ciphertext, 'base64').length, 12 + 4 + 16);
  });

  const refusals: Array<[string, (s: { keyId: string; ciphertext: string }) => { keyId: string; ciphertext: string }, string]> = [
    ['a flipped ciphertext byte', (s) => ({ ...s, ciphertext: flip(s.ciphertext, 14) }), 'webhook_source:wsrc_1'],
    ['a flipped tag byte', (s) => ({ ...s, ciphertext: flip(s.ciphertext, -1) }), 'webhook_source:wsrc_1'],
    ['a flipped nonce byte', (s) => ({ ...s, ciphertext: flip(s.ciphertext, 0) }), 'webhook_source:wsrc_1'],
    ['another row (associated data)', (s) => s, 'webhook_source:wsrc_2'],
    ['an unknown key id', (s) => ({ ...s, keyId: 'nope' }), 'webhook_source:wsrc_1'],
    ['a truncated value', (s) => ({ ...s, ciphertext: s.ciphertext.slice(0, 8) }), 'webhook_source:wsrc_1'],
  ];
  for (const [name, tamper, aad] of refusals) {
    it(`refuses ${name}`, () => {
      const box = new SecretBox([k1]);
      const sealed = box.seal('whsec_abc', 'webhook_source:wsrc_1');
      assert.throws(() => box.open(tamper(sealed), aad), SecretBoxError);
    });
  }

  it('rotates: the first key seals, older keys still open', () => {
    const old = new SecretBox([k1]).seal('s', 'a');
    const rotated = new SecretBox([k2, k1]);
    assert.equal(rotated.currentKeyId, 'k2');
    assert.equal(rotated.open(old, 'a'), 's');
    assert.equal(rotated.seal('s', 'a').keyId, 'k2');
  });
});

describe('parseEncryptionKeys', () => {
  it('reads id:base64 entries in order', () => {
    const keys = parseEncryptionKeys(`${formatEncryptionKey(k2)}, ${formatEncryptionKey(k1)}`);
    assert.deepEqual(
      keys.map((k) => k.id),
      ['k2', 'k1'],
    );
    assert.deepEqual(keys[0]!.key, k2.key);
  });
  const bad: Array<[string, string, RegExp]> = [
    ['no colon', 'abc', /id:base64key/],
    ['a short key', `k1:${Buffer.alloc(16).toString('base64')}`, /32 bytes/],
    ['a bad id', `k 1:${k1.key.toString('base64')}`, /key id/],
    ['a repeated id', `${formatEncryptionKey(k1)},${formatEncryptionKey(k1)}`, /twice/],
    ['nothing', ' , ', /no key/],
  ];
  for (const [name, text, message] of bad) {
    it(`refuses ${name}, naming the problem`, () => assert.throws(() => parseEncryptionKeys(text), message));
  }
});

describe('loadOrCreateKeyFile', () => {
  it('creates a 0600 key file once and reads the same key afterwards', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tollgate-keys-'));
    try {
      const first = loadOrCreateKeyFile(dir);
      assert.equal(first.created, true);
      assert.equal(statSync(first.file).mode & 0o777, 0o600);
      const again = loadOrCreateKeyFile(dir);
      assert.equal(again.created, false);
      assert.deepEqual(again.keys[0]!.key, first.keys[0]!.key);
      assert.match(readFileSync(first.file, 'utf8'), /^dev1:/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function flip(b64: string, at: number): string {
  const raw = Buffer.from(b64, 'base64');
  const i = at < 0 ? raw.length + at : at;
  raw[i] = raw[i]! ^ 0xff;
  return raw.toString('base64');
}
