import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fingerprintOfText } from './run-idempotent.js';

// Ingestion bodies reach the fingerprint as the bytes sent (SQLite file) or as the text they
// decode to (elsewhere, and every key stored before bytes were kept): a key stored either way must
// match a retry of the same body the other way.
describe('idempotency.fingerprintOfText: bytes and the text they decode to agree', () => {
  const cases: Array<[string, Buffer]> = [
    ['empty', Buffer.alloc(0)],
    ['ASCII JSON', Buffer.from('{"events":[{"customerId":"c","metricName":"m","quantity":1}]}')],
    ['multi-byte characters', Buffer.from('{"m":"é€𝄞 日本"}')],
    ['a byte-order mark', Buffer.from('\uFEFF{"a":1}')],
    ['an invalid sequence (reads as U+FFFD)', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xc3, 0x22, 0x7d])],
    ['a truncated multi-byte character at the end', Buffer.from([0x7b, 0x7d, 0xe2, 0x82])],
  ];
  for (const [name, bytes] of cases) {
    it(name, () => {
      assert.equal(fingerprintOfText('POST', '/v1/ingest/batch', bytes), fingerprintOfText('POST', '/v1/ingest/batch', bytes.toString('utf8')));
    });
  }

  it('a slice of a larger buffer hashes only its own bytes', () => {
    const whole = Buffer.from('xx{"a":1}yy');
    assert.equal(fingerprintOfText('POST', '/r', whole.subarray(2, 9)), fingerprintOfText('POST', '/r', '{"a":1}'));
  });

  it('another body, method or route is another request', () => {
    const base = fingerprintOfText('POST', '/r', Buffer.from('{"a":1}'));
    assert.notEqual(fingerprintOfText('POST', '/r', Buffer.from('{"a":2}')), base);
    assert.notEqual(fingerprintOfText('PUT', '/r', Buffer.from('{"a":1}')), base);
    assert.notEqual(fingerprintOfText('POST', '/s', Buffer.from('{"a":1}')), base);
  });
});
