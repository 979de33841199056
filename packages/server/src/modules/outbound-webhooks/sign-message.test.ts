// Our signatures checked by the standardwebhooks package (the reference library receivers use),
// never by our own code. The library compares webhook-timestamp with Date.now(): Date is mocked
// to the signing instant, so nothing depends on the wall clock.
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { signatureHeader, signMessage, webhookHeaders } from './sign-message.js';
import { generateSigningSecret, signingKeyOf } from './signing-secret.js';

const AT = Date.UTC(2026, 10, 23, 12, 0, 0);
const ts = AT / 1000;
const body = JSON.stringify({
  type: 'subscription.upgraded',
  timestamp: new Date(AT).toISOString(),
  data: { object: { id: 'sub_1', object: 'subscription' } },
});
const id = 'msg_01jd3m5x7c0000000000000000';
const keyOf = (secret: string) => signingKeyOf(secret)!;

beforeEach(() => mock.timers.enable({ apis: ['Date'], now: AT }));
afterEach(() => mock.timers.reset());

describe('outbound-webhooks.signMessage: Standard Webhooks v1', () => {
  it('one secret: the library verifies our headers', () => {
    const secret = generateSigningSecret();
    const headers = webhookHeaders(id, ts, body, [keyOf(secret)]);
    assert.match(headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  });

  it("the same signature as the library's own sign()", () => {
    const secret = generateSigningSecret();
    assert.equal(signMessage(id, ts, body, keyOf(secret)), new Webhook(secret).sign(id, new Date(AT), body));
  });

  it('rotation grace: two signatures, and the old and the new secret each verify', () => {
    const [next, previous] = [generateSigningSecret(), generateSigningSecret()];
    const headers = webhookHeaders(id, ts, body, [keyOf(next), keyOf(previous)]);
    assert.equal(headers['webhook-signature']!.split(' ').length, 2);
    assert.ok(headers['webhook-signature']!.split(' ').every((s) => s.startsWith('v1,')));
    assert.deepEqual(new Webhook(next).verify(body, headers), JSON.parse(body));
    assert.deepEqual(new Webhook(previous).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(generateSigningSecret()).verify(body, headers), /No matching signature/);
  });

  it('a secret brought by the operator (24 bytes) verifies too', () => {
    const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    assert.deepEqual(new Webhook(secret).verify(body, webhookHeaders(id, ts, body, [keyOf(secret)])), JSON.parse(body));
  });

  it('the signature covers id, timestamp and body: a change to any fails', () => {
    const secret = generateSigningSecret();
    const headers = webhookHeaders(id, ts, body, [keyOf(secret)]);
    const wh = new Webhook(secret);
    assert.throws(() => wh.verify(`${body} `, headers));
    assert.throws(() => wh.verify(body, { ...headers, 'webhook-id': 'msg_other' }));
    assert.throws(() => wh.verify(body, { ...headers, 'webhook-timestamp': String(ts + 1) }));
  });

  it('signatureHeader joins one entry per key, newest first', () => {
    const [a, b] = [keyOf(generateSigningSecret()), keyOf(generateSigningSecret())];
    assert.equal(signatureHeader(id, ts, body, [a, b]), `${signMessage(id, ts, body, a)} ${signMessage(id, ts, body, b)}`);
  });
});
