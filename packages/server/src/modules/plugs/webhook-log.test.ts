import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBody, encodeBody, headersForLog } from './webhook-log.js';

describe('plugs.headersForLog', () => {
  const cases: Array<[string, Record<string, string | string[] | undefined>, string[], Record<string, string>]> = [
    [
      "the scheme's own header is redacted",
      { 'x-custom-sig': 'abc', 'content-type': 'application/json' },
      ['x-custom-sig'],
      { 'x-custom-sig': '[redacted]', 'content-type': 'application/json' },
    ],
    [
      "GitHub's SHA-1 signature is redacted on a SHA-256 source too",
      { 'x-hub-signature': 'sha1=aa', 'x-hub-signature-256': 'sha256=bb' },
      ['x-hub-signature-256'],
      { 'x-hub-signature': '[redacted]', 'x-hub-signature-256': '[redacted]' },
    ],
    [
      'every known provider signature header is redacted',
      {
        'stripe-signature': 't=1,v1=a',
        'x-slack-signature': 'v0=a',
        'x-twilio-signature': 'a',
        'x-twilio-email-event-webhook-signature': 'a',
        'x-signature-256': 'a',
      },
      [],
      {
        'stripe-signature': '[redacted]',
        'x-slack-signature': '[redacted]',
        'x-twilio-signature': '[redacted]',
        'x-twilio-email-event-webhook-signature': '[redacted]',
        'x-signature-256': '[redacted]',
      },
    ],
    [
      'credentials a sender adds are not stored at all',
      { authorization: 'Bearer x', cookie: 'a=b', 'proxy-authorization': 'x', 'x-github-event': 'push' },
      [],
      { 'x-github-event': 'push' },
    ],
    ['repeated headers are joined', { 'x-forwarded-for': ['1.1.1.1', '2.2.2.2'] }, [], { 'x-forwarded-for': '1.1.1.1, 2.2.2.2' }],
  ];
  for (const [name, headers, scheme, expected] of cases) it(name, () => assert.deepEqual(headersForLog(headers, scheme), expected));
});

describe('plugs.encodeBody', () => {
  const cases: Array<[string, Buffer, 'utf8' | 'base64']> = [
    ['JSON text is kept as text', Buffer.from('{"a":"é"}'), 'utf8'],
    ['invalid UTF-8 is kept as base64', Buffer.from([0xff, 0xfe, 0x41]), 'base64'],
    ['a NUL byte (which PostgreSQL text refuses) is kept as base64', Buffer.from('a\u0000b'), 'base64'],
    ['an empty body is text', Buffer.alloc(0), 'utf8'],
  ];
  for (const [name, body, encoding] of cases) {
    it(`${name}, and decodes to the same bytes`, () => {
      const e = encodeBody(body);
      assert.equal(e.bodyEncoding, encoding);
      assert.deepEqual(decodeBody(e), body);
    });
  }
});
