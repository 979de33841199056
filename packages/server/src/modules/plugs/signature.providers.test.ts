// Cross-checks against the providers' OFFICIAL npm packages (devDependencies): requests signed by
// their code must pass our verifier, and headers from our signer must pass their verifiers.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync, sign as ecdsaSign } from 'node:crypto';
import Stripe from 'stripe';
import { sign as octokitSign, verify as octokitVerify } from '@octokit/webhooks-methods';
import twilio from 'twilio';
import { EventWebhook } from '@sendgrid/eventwebhook';
import { verifySignature, type SignatureScheme, type SignedRequest, type VerificationFailure } from '../../lib/webhook-signature.js';
import { signWebhook } from './sign-webhook.js';

const NOW_MS = Date.UTC(2026, 0, 15, 12, 0, 0);
const NOW_S = NOW_MS / 1000;
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;
const PAYLOAD = JSON.stringify({ id: 'evt_test_1', object: 'event', type: 'invoice.paid', data: { object: { amount_paid: 4200, note: 'naïve ✓' } } });
const TAMPERED = PAYLOAD.replace('4200', '1');

function request(
  body: string,
  headers: Record<string, string>,
  url = 'https://hooks.tollgate.test/plugs/p',
  contentType: string | null = 'application/json',
): SignedRequest {
  return { body: Buffer.from(body, 'utf8'), headers, url, contentType };
}

function check(scheme: SignatureScheme, secret: string | null, req: SignedRequest, expected: 'ok' | VerificationFailure, nowMs = NOW_MS): void {
  const result = verifySignature(scheme, secret, req, nowMs);
  assert.equal(result.ok ? 'ok' : result.reason, expected, result.ok ? '' : result.message);
}

// ---------------------------------------------------------------------------------------------

describe('stripe: signed by stripe.webhooks.generateTestHeaderString', () => {
  const scheme: SignatureScheme = { kind: 'stripe' };
  const secret = 'whsec_test_tollgate_0123456789';
  const header = (timestamp = NOW_S, key = secret): string => Stripe.webhooks.generateTestHeaderString({ payload: PAYLOAD, secret: key, timestamp });
  const req = (value: string | null, body = PAYLOAD): SignedRequest => request(body, value === null ? {} : { 'stripe-signature': value });

  it('valid passes', () => check(scheme, secret, req(header()), 'ok'));
  it('tampered body fails', () => check(scheme, secret, req(header(), TAMPERED), 'signature_mismatch'));
  it('wrong secret fails', () => check(scheme, secret, req(header(NOW_S, 'whsec_other')), 'signature_mismatch'));
  it('missing header fails', () => check(scheme, secret, req(null), 'missing_signature'));
  it('empty secret fails', () => check(scheme, '', req(header()), 'missing_secret'));
  it('stale timestamp (301 s old) fails', () => check(scheme, secret, req(header(NOW_S - 301)), 'timestamp_outside_tolerance'));
  it('future timestamp (301 s ahead) fails', () => check(scheme, secret, req(header(NOW_S + 301)), 'timestamp_outside_tolerance'));
  it('a header of two deliveries signed with the old and the new secret passes (secret roll)', () => {
    const oldSig = header(NOW_S, 'whsec_old').split('v1=')[1];
    check(scheme, secret, req(`${header()},v1=${oldSig}`), 'ok');
  });

  it("stripe's own constructEvent agrees on valid and stale, but (unlike us) accepts a future timestamp", () => {
    const event = Stripe.webhooks.constructEvent(PAYLOAD, header(), secret, 300, undefined, NOW_MS);
    assert.equal(event.id, 'evt_test_1');
    assert.throws(
      () => Stripe.webhooks.constructEvent(PAYLOAD, header(NOW_S - 301), secret, 300, undefined, NOW_MS),
      Stripe.errors.StripeSignatureVerificationError,
    );
    // stripe-node only rejects age > tolerance; a timestamp from the future passes there. We refuse both ways.
    assert.doesNotThrow(() => Stripe.webhooks.constructEvent(PAYLOAD, header(NOW_S + 3600), secret, 300, undefined, NOW_MS));
  });

  describe('our signWebhook, checked by stripe.webhooks.constructEvent', () => {
    const ours = (nowMs = NOW_MS, body = PAYLOAD): string => String(signWebhook(scheme, secret, body, { nowMs }).headers['stripe-signature']);
    it('accepts our header', () => {
      assert.equal(Stripe.webhooks.constructEvent(PAYLOAD, ours(), secret, 300, undefined, NOW_MS).id, 'evt_test_1');
    });
    it('rejects our header on a tampered body', () => {
      assert.throws(() => Stripe.webhooks.constructEvent(TAMPERED, ours(), secret, 300, undefined, NOW_MS), Stripe.errors.StripeSignatureVerificationError);
    });
    it('rejects our header under another secret', () => {
      assert.throws(
        () => Stripe.webhooks.constructEvent(PAYLOAD, ours(), 'whsec_other', 300, undefined, NOW_MS),
        Stripe.errors.StripeSignatureVerificationError,
      );
    });
    it('rejects our header once stale', () => {
      assert.throws(
        () => Stripe.webhooks.constructEvent(PAYLOAD, ours(NOW_MS - 301_000), secret, 300, undefined, NOW_MS),
        Stripe.errors.StripeSignatureVerificationError,
      );
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('github sha256: signed by @octokit/webhooks-methods sign', () => {
  const scheme: SignatureScheme = { kind: 'hub_sha256' };
  const secret = 'octokit-secret';
  const req = (value: string | null, body = PAYLOAD): SignedRequest => request(body, value === null ? {} : { 'x-hub-signature-256': value });

  it('valid passes', async () => check(scheme, secret, req(await octokitSign(secret, PAYLOAD)), 'ok'));
  it('tampered body fails', async () => check(scheme, secret, req(await octokitSign(secret, PAYLOAD), TAMPERED), 'signature_mismatch'));
  it('wrong secret fails', async () => check(scheme, secret, req(await octokitSign('other', PAYLOAD)), 'signature_mismatch'));
  it('missing header fails', () => check(scheme, secret, req(null), 'missing_signature'));
  it('empty secret fails', async () => check(scheme, '', req(await octokitSign(secret, PAYLOAD)), 'missing_secret'));
  it('no timestamp is signed: the result does not depend on the clock', async () => {
    const value = await octokitSign(secret, PAYLOAD);
    check(scheme, secret, req(value), 'ok', 0);
    check(scheme, secret, req(value), 'ok', NOW_MS + TEN_YEARS_MS);
  });

  describe('our signWebhook, checked by octokit verify', () => {
    const ours = String(signWebhook(scheme, secret, PAYLOAD, { nowMs: NOW_MS }).headers['x-hub-signature-256']);
    it('accepts our header', async () => assert.equal(await octokitVerify(secret, PAYLOAD, ours), true));
    it('rejects our header on a tampered body', async () => assert.equal(await octokitVerify(secret, TAMPERED, ours), false));
    it('rejects our header under another secret', async () => assert.equal(await octokitVerify('other', PAYLOAD, ours), false));
  });
});

describe('github sha1 (legacy X-Hub-Signature): node crypto, since @octokit/webhooks-methods v6 signs sha256 only', () => {
  const scheme: SignatureScheme = { kind: 'hub_sha1' };
  const secret = 'legacy-secret';
  const sha1 = (key: string, body: string): string => `sha1=${createHmac('sha1', key).update(body).digest('hex')}`;
  const req = (value: string | null, body = PAYLOAD): SignedRequest => request(body, value === null ? {} : { 'x-hub-signature': value });

  it('octokit v6 really has no sha1 signer', async () => assert.match(await octokitSign(secret, PAYLOAD), /^sha256=/));
  it('valid passes', () => check(scheme, secret, req(sha1(secret, PAYLOAD)), 'ok'));
  it('tampered body fails', () => check(scheme, secret, req(sha1(secret, PAYLOAD), TAMPERED), 'signature_mismatch'));
  it('wrong secret fails', () => check(scheme, secret, req(sha1('other', PAYLOAD)), 'signature_mismatch'));
  it('missing header fails', () => check(scheme, secret, req(null), 'missing_signature'));
  it('empty secret fails', () => check(scheme, '', req(sha1(secret, PAYLOAD)), 'missing_secret'));
  it('our signWebhook produces the same header', () => {
    assert.deepEqual(signWebhook(scheme, secret, PAYLOAD, { nowMs: NOW_MS }).headers, { 'x-hub-signature': sha1(secret, PAYLOAD) });
  });
});

// ---------------------------------------------------------------------------------------------

describe('twilio: signed by twilio.getExpectedTwilioSignature', () => {
  const scheme: SignatureScheme = { kind: 'twilio' };
  const token = 'twilio_auth_token_abcdef0123456789';
  const form = 'application/x-www-form-urlencoded';
  const url = 'https://hooks.tollgate.test/twilio/sms?plug=p_1&env=test';
  const params: Record<string, string> = {
    MessageSid: 'SM0123456789',
    AccountSid: 'AC0123456789',
    From: '+15550001111',
    To: '+15550002222',
    Body: 'Café & crème = 100% ✓ (a+b)',
  };
  const formBody = new URLSearchParams(params).toString();
  const header = (key = token, signedUrl = url, signedParams: Record<string, string | string[]> = params): string =>
    twilio.getExpectedTwilioSignature(key, signedUrl, signedParams);
  const formReq = (value: string | null, body = formBody, receivedUrl = url): SignedRequest =>
    request(body, value === null ? {} : { 'x-twilio-signature': value }, receivedUrl, form);

  it('form: valid passes (and twilio.validateRequest agrees)', () => {
    check(scheme, token, formReq(header()), 'ok');
    assert.equal(twilio.validateRequest(token, header(), url, params), true);
  });
  it('form: parameters posted in another order pass', () => {
    const reversed = new URLSearchParams(Object.entries(params).reverse()).toString();
    check(scheme, token, formReq(header(), reversed), 'ok');
  });
  it('form: tampered body fails', () => check(scheme, token, formReq(header(), formBody.replace('SM0123456789', 'SM9')), 'signature_mismatch'));
  it('form: wrong token fails', () => check(scheme, token, formReq(header('other_token')), 'signature_mismatch'));
  it('form: missing header fails', () => check(scheme, token, formReq(null), 'missing_signature'));
  it('form: empty token fails', () => check(scheme, '', formReq(header()), 'missing_secret'));
  it('no timestamp is signed: the result does not depend on the clock', () => {
    check(scheme, token, formReq(header()), 'ok', 0);
    check(scheme, token, formReq(header()), 'ok', NOW_MS + TEN_YEARS_MS);
  });
  it('form: repeated keys are signed as twilio does (values de-duplicated and sorted)', () => {
    const repeated = { To: '+15550002222', MediaUrl: ['https://m/b', 'https://m/a', 'https://m/b'] };
    const body = 'MediaUrl=https%3A%2F%2Fm%2Fb&To=%2B15550002222&MediaUrl=https%3A%2F%2Fm%2Fa&MediaUrl=https%3A%2F%2Fm%2Fb';
    check(scheme, token, formReq(header(token, url, repeated), body), 'ok');
  });

  describe('URL port variants, as twilio.validateRequest tries them', () => {
    const bare = 'https://hooks.tollgate.test/twilio/sms?plug=p_1';
    const withPort = 'https://hooks.tollgate.test:443/twilio/sms?plug=p_1';
    const cases: Array<[string, string, string]> = [
      ['signed with :443, received without', withPort, bare],
      ['signed without, received with :443', bare, withPort],
      ['http signed with :80, received without', 'http://hooks.tollgate.test:80/sms', 'http://hooks.tollgate.test/sms'],
      ['http signed without, received with :80', 'http://hooks.tollgate.test/sms', 'http://hooks.tollgate.test:80/sms'],
    ];
    for (const [name, signedUrl, receivedUrl] of cases) {
      it(`${name}: both twilio and we accept`, () => {
        const value = header(token, signedUrl);
        assert.equal(twilio.validateRequest(token, value, receivedUrl, params), true);
        check(scheme, token, formReq(value, formBody, receivedUrl), 'ok');
      });
    }
    it('a non-default port: twilio-node drops ANY port, we only the default one (deliberately stricter)', () => {
      const value = header(token, bare);
      const elsewhere = 'https://hooks.tollgate.test:8443/twilio/sms?plug=p_1';
      assert.equal(twilio.validateRequest(token, value, elsewhere, params), true);
      check(scheme, token, formReq(value, formBody, elsewhere), 'signature_mismatch');
    });
  });

  describe('JSON body with bodySHA256', () => {
    const jsonUrl = `${url}&bodySHA256=${twilio.getExpectedBodyHash(PAYLOAD)}`;
    const jsonHeader = (key = token): string => twilio.getExpectedTwilioSignature(key, jsonUrl, {});
    const jsonReq = (value: string | null, body = PAYLOAD, receivedUrl = jsonUrl): SignedRequest =>
      request(body, value === null ? {} : { 'x-twilio-signature': value }, receivedUrl, 'application/json');

    it('valid passes (and twilio.validateRequestWithBody agrees)', () => {
      check(scheme, token, jsonReq(jsonHeader()), 'ok');
      assert.equal(twilio.validateRequestWithBody(token, jsonHeader(), jsonUrl, PAYLOAD), true);
    });
    it('tampered body fails on the body hash (twilio agrees)', () => {
      check(scheme, token, jsonReq(jsonHeader(), TAMPERED), 'body_hash_mismatch');
      assert.equal(twilio.validateRequestWithBody(token, jsonHeader(), jsonUrl, TAMPERED), false);
    });
    it('a signed but wrong bodySHA256 fails', () => {
      const wrongUrl = `${url}&bodySHA256=${twilio.getExpectedBodyHash('{}')}`;
      check(scheme, token, jsonReq(twilio.getExpectedTwilioSignature(token, wrongUrl, {}), PAYLOAD, wrongUrl), 'body_hash_mismatch');
    });
    it('wrong token fails', () => check(scheme, token, jsonReq(jsonHeader('other_token')), 'signature_mismatch'));
    it('missing header fails', () => check(scheme, token, jsonReq(null), 'missing_signature'));
    it('empty token fails', () => check(scheme, '', jsonReq(jsonHeader()), 'missing_secret'));
  });

  describe('our signWebhook, checked by twilio.validateRequest / validateRequestWithBody', () => {
    const paramsOf = (body: string): Record<string, string | string[]> => {
      const out: Record<string, string | string[]> = {};
      for (const [k, v] of new URLSearchParams(body)) {
        const prior = out[k];
        out[k] = prior === undefined ? v : [...(Array.isArray(prior) ? prior : [prior]), v];
      }
      return out;
    };
    it('form: accepted by twilio.validateRequest', () => {
      const signed = signWebhook(scheme, token, formBody, { nowMs: NOW_MS, url, contentType: form });
      assert.equal(signed.url, url);
      assert.equal(twilio.validateRequest(token, String(signed.headers['x-twilio-signature']), signed.url, params), true);
      assert.equal(twilio.validateRequest(token, String(signed.headers['x-twilio-signature']), signed.url, { ...params, Body: 'changed' }), false);
    });
    it('form with repeated keys: accepted by twilio.validateRequest', () => {
      const body = 'Tag=b&To=x&Tag=a&Tag=b';
      const signed = signWebhook(scheme, token, body, { nowMs: NOW_MS, url });
      assert.equal(twilio.validateRequest(token, String(signed.headers['x-twilio-signature']), signed.url, paramsOf(body)), true);
    });
    it('JSON: accepted by twilio.validateRequestWithBody, with bodySHA256 in the returned URL', () => {
      const signed = signWebhook(scheme, token, PAYLOAD, { nowMs: NOW_MS, url, contentType: 'application/json' });
      assert.equal(new URL(signed.url).searchParams.get('bodySHA256'), twilio.getExpectedBodyHash(PAYLOAD));
      assert.equal(twilio.validateRequestWithBody(token, String(signed.headers['x-twilio-signature']), signed.url, PAYLOAD), true);
      assert.equal(twilio.validateRequestWithBody(token, String(signed.headers['x-twilio-signature']), signed.url, TAMPERED), false);
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('sendgrid: checked by @sendgrid/eventwebhook', () => {
  const scheme: SignatureScheme = { kind: 'sendgrid' };
  const events = `${JSON.stringify([{ email: 'a@example.com', event: 'delivered', sg_event_id: 'ev1', timestamp: NOW_S - 5 }])}\r\n`;
  const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const otherPair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  // What SendGrid's dashboard shows, and what @sendgrid/eventwebhook expects: base64 SPKI DER, no PEM armour.
  const dashboardKey = pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
  const pemKey = pair.publicKey.export({ format: 'pem', type: 'spki' }).toString();
  const otherDashboardKey = otherPair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
  const privatePem = pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const ew = new EventWebhook();

  const signAt = (ts: number, body = events, key = pair.privateKey): string =>
    ecdsaSign('sha256', Buffer.from(`${ts}${body}`, 'utf8'), { key, dsaEncoding: 'der' }).toString('base64');
  const headers = (signature: string, ts: number): Record<string, string> => ({
    'x-twilio-email-event-webhook-signature': signature,
    'x-twilio-email-event-webhook-timestamp': String(ts),
  });
  const libraryAccepts = (publicKey: string, body: string, signature: string, ts: number | string): boolean =>
    ew.verifySignature(ew.convertPublicKeyToECDSA(publicKey), body, signature, String(ts));

  it('valid: @sendgrid accepts, and we accept with the dashboard key and with PEM', () => {
    const signature = signAt(NOW_S);
    assert.equal(libraryAccepts(dashboardKey, events, signature, NOW_S), true);
    check(scheme, dashboardKey, request(events, headers(signature, NOW_S)), 'ok');
    check(scheme, pemKey, request(events, headers(signature, NOW_S)), 'ok');
  });
  it('tampered body: both reject', () => {
    const signature = signAt(NOW_S);
    const tampered = events.replace('delivered', 'bounce');
    assert.equal(libraryAccepts(dashboardKey, tampered, signature, NOW_S), false);
    check(scheme, dashboardKey, request(tampered, headers(signature, NOW_S)), 'signature_mismatch');
  });
  it('wrong key: both reject', () => {
    const signature = signAt(NOW_S);
    assert.equal(libraryAccepts(otherDashboardKey, events, signature, NOW_S), false);
    check(scheme, otherDashboardKey, request(events, headers(signature, NOW_S)), 'signature_mismatch');
  });
  it('missing signature header fails', () => {
    check(scheme, dashboardKey, request(events, { 'x-twilio-email-event-webhook-timestamp': String(NOW_S) }), 'missing_signature');
  });
  it('missing timestamp header fails', () => {
    check(scheme, dashboardKey, request(events, { 'x-twilio-email-event-webhook-signature': signAt(NOW_S) }), 'missing_timestamp');
  });
  it('empty key fails', () => check(scheme, '', request(events, headers(signAt(NOW_S), NOW_S)), 'missing_secret'));
  it('stale timestamp (301 s old): we reject; @sendgrid has no clock and accepts', () => {
    const ts = NOW_S - 301;
    assert.equal(libraryAccepts(dashboardKey, events, signAt(ts), ts), true);
    check(scheme, dashboardKey, request(events, headers(signAt(ts), ts)), 'timestamp_outside_tolerance');
  });
  it('future timestamp (301 s ahead): we reject', () => {
    const ts = NOW_S + 301;
    check(scheme, dashboardKey, request(events, headers(signAt(ts), ts)), 'timestamp_outside_tolerance');
  });

  describe('our signWebhook, checked by @sendgrid verifySignature', () => {
    const signed = signWebhook(scheme, privatePem, events, { nowMs: NOW_MS });
    const signature = String(signed.headers['x-twilio-email-event-webhook-signature']);
    const ts = String(signed.headers['x-twilio-email-event-webhook-timestamp']);
    it('stamps the current second', () => assert.equal(ts, String(NOW_S)));
    it('accepted by @sendgrid (dashboard key and PEM)', () => {
      assert.equal(libraryAccepts(dashboardKey, events, signature, ts), true);
      assert.equal(libraryAccepts(pemKey, events, signature, ts), true);
    });
    it('rejected by @sendgrid on a tampered body or another timestamp', () => {
      assert.equal(libraryAccepts(dashboardKey, `${events} `, signature, ts), false);
      assert.equal(libraryAccepts(dashboardKey, events, signature, NOW_S + 1), false);
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe("slack: node crypto per Slack's published algorithm (no official signer is installed: @slack/* is not a dependency)", () => {
  const scheme: SignatureScheme = { kind: 'slack' };
  const secret = 'slack_signing_secret_0123';
  const slackHeaders = (ts: number, key = secret, body = PAYLOAD): Record<string, string> => ({
    'x-slack-signature': `v0=${createHmac('sha256', key).update(`v0:${ts}:${body}`).digest('hex')}`,
    'x-slack-request-timestamp': String(ts),
  });

  it('valid passes', () => check(scheme, secret, request(PAYLOAD, slackHeaders(NOW_S)), 'ok'));
  it('tampered body fails', () => check(scheme, secret, request(TAMPERED, slackHeaders(NOW_S)), 'signature_mismatch'));
  it('wrong secret fails', () => check(scheme, secret, request(PAYLOAD, slackHeaders(NOW_S, 'other')), 'signature_mismatch'));
  it('missing header fails', () => check(scheme, secret, request(PAYLOAD, { 'x-slack-request-timestamp': String(NOW_S) }), 'missing_signature'));
  it('empty secret fails', () => check(scheme, '', request(PAYLOAD, slackHeaders(NOW_S)), 'missing_secret'));
  it('stale timestamp (301 s old) fails', () => check(scheme, secret, request(PAYLOAD, slackHeaders(NOW_S - 301)), 'timestamp_outside_tolerance'));
  it('future timestamp (301 s ahead) fails', () => check(scheme, secret, request(PAYLOAD, slackHeaders(NOW_S + 301)), 'timestamp_outside_tolerance'));
  it('our signWebhook produces the same headers', () => {
    assert.deepEqual(signWebhook(scheme, secret, PAYLOAD, { nowMs: NOW_MS }).headers, slackHeaders(NOW_S));
  });
});
