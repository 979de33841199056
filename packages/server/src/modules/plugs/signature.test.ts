import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import {
  TIMESTAMP_TOLERANCE_SECONDS,
  signatureHeaderNames,
  verifySignature,
  type SignatureScheme,
  type SignedRequest,
  type Verification,
  type VerificationFailure,
} from '../../lib/webhook-signature.js';
import { signWebhook } from './sign-webhook.js';

// Expected values below are either published by the provider or computed here with node:crypto
// straight from the provider's description of the algorithm: never with the code under test.

const NOW_MS = Date.UTC(2026, 0, 15, 12, 0, 0);
const NOW_S = NOW_MS / 1000;
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;
const HOOK_URL = 'https://hooks.tollgate.test/plugs/plug_1';
const JSON_BODY = '{"id":"evt_1","type":"usage.recorded","data":{"quantity":3}}';

type Headers = Record<string, string | string[] | undefined>;
type Outcome = 'ok' | VerificationFailure;

interface Case {
  name: string;
  secret: string | null;
  request: SignedRequest;
  nowMs?: number;
  expect: Outcome;
}

function request(body: string | Buffer, headers: Headers, extra: Partial<Omit<SignedRequest, 'body' | 'headers'>> = {}): SignedRequest {
  return {
    body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
    headers,
    url: extra.url ?? HOOK_URL,
    contentType: extra.contentType === undefined ? 'application/json' : extra.contentType,
  };
}

function hmacDigest(algorithm: 'sha256' | 'sha1', key: string, data: string | Buffer): Buffer {
  return createHmac(algorithm, key).update(data).digest();
}
const hmacHex = (algorithm: 'sha256' | 'sha1', key: string, data: string | Buffer): string => hmacDigest(algorithm, key, data).toString('hex');
const hmacBase64 = (algorithm: 'sha256' | 'sha1', key: string, data: string | Buffer): string => hmacDigest(algorithm, key, data).toString('base64');

const outcome = (v: Verification): Outcome => (v.ok ? 'ok' : v.reason);

const TIMESTAMP_HEADERS: Partial<Record<SignatureScheme['kind'], string[]>> = {
  slack: ['x-slack-request-timestamp'],
  sendgrid: ['x-twilio-email-event-webhook-timestamp'],
};

/** Messages go back to the sender: one sentence, naming the header, never the secret or a correct signature. */
function assertSafeMessage(message: string, scheme: SignatureScheme, secret: string | null, forbidden: readonly string[]): void {
  assert.match(message, /^[A-Z][^\n]*\.$/, `one sentence: ${message}`);
  assert.doesNotMatch(message, /\.\s/, `one sentence: ${message}`);
  const headers = [...signatureHeaderNames(scheme), ...(TIMESTAMP_HEADERS[scheme.kind] ?? [])];
  assert.ok(
    headers.some((header) => message.toLowerCase().includes(header)),
    `names one of ${headers.join(', ')}: ${message}`,
  );
  if (secret !== null && secret.trim().length >= 4) assert.ok(!message.includes(secret.trim()), `leaks the secret: ${message}`);
  for (const value of forbidden) assert.ok(!message.toLowerCase().includes(value.toLowerCase()), `leaks a signature: ${message}`);
}

function table(scheme: SignatureScheme, cases: readonly Case[], forbidden: readonly string[]): void {
  for (const c of cases) {
    it(`${c.name} -> ${c.expect}`, () => {
      const result = verifySignature(scheme, c.secret, c.request, c.nowMs ?? NOW_MS);
      assert.equal(outcome(result), c.expect);
      if (!result.ok) assertSafeMessage(result.message, scheme, c.secret, forbidden);
    });
  }
}

/** The cases every scheme must answer the same way. */
function commonCases(opts: {
  secret: string;
  valid: SignedRequest;
  tampered: SignedRequest;
  wrongSecret: SignedRequest;
  missingHeader: SignedRequest;
  timed: boolean;
}): Case[] {
  const cases: Case[] = [
    { name: 'valid', secret: opts.secret, request: opts.valid, expect: 'ok' },
    { name: 'tampered body', secret: opts.secret, request: opts.tampered, expect: 'signature_mismatch' },
    { name: 'signed with another secret', secret: opts.secret, request: opts.wrongSecret, expect: 'signature_mismatch' },
    { name: 'signature header missing', secret: opts.secret, request: opts.missingHeader, expect: 'missing_signature' },
    { name: 'empty secret', secret: '', request: opts.valid, expect: 'missing_secret' },
    { name: 'blank secret', secret: '   ', request: opts.valid, expect: 'missing_secret' },
    { name: 'null secret', secret: null, request: opts.valid, expect: 'missing_secret' },
  ];
  if (!opts.timed) {
    cases.push(
      { name: 'no signed timestamp: valid at the epoch', secret: opts.secret, request: opts.valid, nowMs: 0, expect: 'ok' },
      { name: 'no signed timestamp: valid ten years on', secret: opts.secret, request: opts.valid, nowMs: NOW_MS + TEN_YEARS_MS, expect: 'ok' },
      {
        name: 'no signed timestamp: a tampered body still fails at the epoch',
        secret: opts.secret,
        request: opts.tampered,
        nowMs: 0,
        expect: 'signature_mismatch',
      },
    );
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// GitHub

describe('hub_sha256 (GitHub X-Hub-Signature-256)', () => {
  const scheme: SignatureScheme = { kind: 'hub_sha256' };
  // https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries#testing-the-webhook-payload-validation
  const DOC_SECRET = "It's a Secret to Everybody";
  const DOC_BODY = 'Hello, World!';
  const DOC_SIGNATURE = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
  const secret = 'gh_webhook_secret_1';
  const good = `sha256=${hmacHex('sha256', secret, JSON_BODY)}`;
  const h = (value: string | string[]): Headers => ({ 'x-hub-signature-256': value });

  it('the documented vector is what HMAC-SHA256 gives (checked independently of our code)', () => {
    assert.equal(`sha256=${hmacHex('sha256', DOC_SECRET, DOC_BODY)}`, DOC_SIGNATURE);
  });

  table(
    scheme,
    [
      { name: "GitHub's documented vector", secret: DOC_SECRET, request: request(DOC_BODY, h(DOC_SIGNATURE)), expect: 'ok' },
      {
        name: "GitHub's documented vector with another payload",
        secret: DOC_SECRET,
        request: request('Hello, World?', h(DOC_SIGNATURE)),
        expect: 'signature_mismatch',
      },
      ...commonCases({
        secret,
        valid: request(JSON_BODY, h(good)),
        tampered: request(JSON_BODY.replace('3', '4'), h(good)),
        wrongSecret: request(JSON_BODY, h(`sha256=${hmacHex('sha256', 'another', JSON_BODY)}`)),
        missingHeader: request(JSON_BODY, { 'x-hub-signature': `sha1=${hmacHex('sha1', secret, JSON_BODY)}` }),
        timed: false,
      }),
      { name: 'upper-case hex digest', secret, request: request(JSON_BODY, h(`sha256=${hmacHex('sha256', secret, JSON_BODY).toUpperCase()}`)), expect: 'ok' },
      { name: 'header key kept in the sender spelling', secret, request: request(JSON_BODY, { 'X-Hub-Signature-256': good }), expect: 'ok' },
      { name: 'empty header value', secret, request: request(JSON_BODY, h('')), expect: 'missing_signature' },
      { name: 'header repeated (array)', secret, request: request(JSON_BODY, h([good, good])), expect: 'malformed_signature' },
      { name: 'sha1= prefix on the sha256 header', secret, request: request(JSON_BODY, h(good.replace('sha256=', 'sha1='))), expect: 'malformed_signature' },
      { name: 'upper-case prefix', secret, request: request(JSON_BODY, h(good.replace('sha256=', 'SHA256='))), expect: 'malformed_signature' },
      { name: 'bare hex without prefix', secret, request: request(JSON_BODY, h(good.slice('sha256='.length))), expect: 'malformed_signature' },
      { name: 'prefix only', secret, request: request(JSON_BODY, h('sha256=')), expect: 'malformed_signature' },
      { name: 'non-hex digest', secret, request: request(JSON_BODY, h(`sha256=${'zz'.repeat(32)}`)), expect: 'malformed_signature' },
      { name: 'odd number of hex digits', secret, request: request(JSON_BODY, h(good.slice(0, -1))), expect: 'malformed_signature' },
      { name: 'truncated but well-formed digest', secret, request: request(JSON_BODY, h(good.slice(0, -2))), expect: 'signature_mismatch' },
      { name: 'digest of the right length but wrong', secret, request: request(JSON_BODY, h(`sha256=${'00'.repeat(32)}`)), expect: 'signature_mismatch' },
    ],
    [good.slice('sha256='.length)],
  );
});

describe('hub_sha1 (GitHub legacy X-Hub-Signature)', () => {
  const scheme: SignatureScheme = { kind: 'hub_sha1' };
  const secret = 'gh_legacy_secret';
  const digest = hmacHex('sha1', secret, JSON_BODY);
  const h = (value: string | string[]): Headers => ({ 'x-hub-signature': value });
  table(
    scheme,
    [
      ...commonCases({
        secret,
        valid: request(JSON_BODY, h(`sha1=${digest}`)),
        tampered: request(`${JSON_BODY} `, h(`sha1=${digest}`)),
        wrongSecret: request(JSON_BODY, h(`sha1=${hmacHex('sha1', 'another', JSON_BODY)}`)),
        missingHeader: request(JSON_BODY, { 'x-hub-signature-256': `sha256=${hmacHex('sha256', secret, JSON_BODY)}` }),
        timed: false,
      }),
      { name: 'sha256= prefix', secret, request: request(JSON_BODY, h(`sha256=${digest}`)), expect: 'malformed_signature' },
      {
        name: 'a sha256 digest under sha1=',
        secret,
        request: request(JSON_BODY, h(`sha1=${hmacHex('sha256', secret, JSON_BODY)}`)),
        expect: 'signature_mismatch',
      },
      { name: 'non-hex digest', secret, request: request(JSON_BODY, h(`sha1=${digest.slice(0, -1)}g`)), expect: 'malformed_signature' },
      { name: 'header repeated (array)', secret, request: request(JSON_BODY, h([`sha1=${digest}`])), expect: 'malformed_signature' },
    ],
    [digest],
  );
});

describe('raw_sha256 (X-Signature-256: bare hex)', () => {
  const scheme: SignatureScheme = { kind: 'raw_sha256' };
  const secret = 'raw-secret';
  const digest = hmacHex('sha256', secret, JSON_BODY);
  const h = (value: string): Headers => ({ 'x-signature-256': value });
  table(
    scheme,
    [
      ...commonCases({
        secret,
        valid: request(JSON_BODY, h(digest)),
        tampered: request(JSON_BODY.toUpperCase(), h(digest)),
        wrongSecret: request(JSON_BODY, h(hmacHex('sha256', 'another', JSON_BODY))),
        missingHeader: request(JSON_BODY, { 'x-hub-signature-256': `sha256=${digest}` }),
        timed: false,
      }),
      { name: 'GitHub-style sha256= prefix', secret, request: request(JSON_BODY, h(`sha256=${digest}`)), expect: 'malformed_signature' },
      { name: 'base64 instead of hex', secret, request: request(JSON_BODY, h(hmacBase64('sha256', secret, JSON_BODY))), expect: 'malformed_signature' },
      { name: 'a sha1 digest', secret, request: request(JSON_BODY, h(hmacHex('sha1', secret, JSON_BODY))), expect: 'signature_mismatch' },
      {
        name: 'raw bytes are what is signed (non-UTF-8 body)',
        secret,
        request: request(Buffer.from([0xff, 0xfe, 0x00, 0x41]), h(hmacHex('sha256', secret, Buffer.from([0xff, 0xfe, 0x00, 0x41])))),
        expect: 'ok',
      },
    ],
    [digest],
  );
});

// ---------------------------------------------------------------------------------------------
// Stripe

describe('stripe (Stripe-Signature)', () => {
  const scheme: SignatureScheme = { kind: 'stripe' };
  const secret = 'whsec_tollgate_0123456789abcdef0123456789';
  const other = 'whsec_previous_secret_being_rolled';
  const v1 = (t: number | string, body = JSON_BODY, key = secret): string => hmacHex('sha256', key, `${t}.${body}`);
  const h = (value: string | string[]): Headers => ({ 'stripe-signature': value });
  const signedAt = (t: number, body = JSON_BODY): SignedRequest => request(body, h(`t=${t},v1=${v1(t, body)}`));
  table(
    scheme,
    [
      ...commonCases({
        secret,
        valid: signedAt(NOW_S),
        tampered: request(JSON_BODY.replace('3', '30'), h(`t=${NOW_S},v1=${v1(NOW_S)}`)),
        wrongSecret: request(JSON_BODY, h(`t=${NOW_S},v1=${v1(NOW_S, JSON_BODY, other)}`)),
        missingHeader: request(JSON_BODY, {}),
        timed: true,
      }),
      { name: 'stale: 301 s old', secret, request: signedAt(NOW_S - 301), expect: 'timestamp_outside_tolerance' },
      { name: 'stale: a day old', secret, request: signedAt(NOW_S - 86_400), expect: 'timestamp_outside_tolerance' },
      { name: 'edge: exactly 300 s old', secret, request: signedAt(NOW_S - 300), expect: 'ok' },
      { name: 'future: 301 s ahead', secret, request: signedAt(NOW_S + 301), expect: 'timestamp_outside_tolerance' },
      { name: 'edge: exactly 300 s ahead', secret, request: signedAt(NOW_S + 300), expect: 'ok' },
      {
        name: 'stale and badly signed reports the signature',
        secret,
        request: request(JSON_BODY, h(`t=${NOW_S - 3600},v1=${'ab'.repeat(32)}`)),
        expect: 'signature_mismatch',
      },
      { name: 'a clock that is NaN fails closed', secret, request: signedAt(NOW_S), nowMs: Number.NaN, expect: 'timestamp_outside_tolerance' },
      {
        name: 'two v1 values, the second matches (secret being rolled)',
        secret,
        request: request(JSON_BODY, h(`t=${NOW_S},v1=${v1(NOW_S, JSON_BODY, other)},v1=${v1(NOW_S)}`)),
        expect: 'ok',
      },
      {
        name: 'two v1 values, the first matches',
        secret,
        request: request(JSON_BODY, h(`t=${NOW_S},v1=${v1(NOW_S)},v1=${v1(NOW_S, JSON_BODY, other)}`)),
        expect: 'ok',
      },
      {
        name: 'two v1 values, neither matches',
        secret,
        request: request(JSON_BODY, h(`t=${NOW_S},v1=${v1(NOW_S, JSON_BODY, other)},v1=${'00'.repeat(32)}`)),
        expect: 'signature_mismatch',
      },
      {
        name: 'only v0 (never trusted, even when it holds the right HMAC)',
        secret,
        request: request(JSON_BODY, h(`t=${NOW_S},v0=${v1(NOW_S)}`)),
        expect: 'missing_signature',
      },
      { name: 'v1 and v0 together', secret, request: request(JSON_BODY, h(`t=${NOW_S},v1=${v1(NOW_S)},v0=${'11'.repeat(32)}`)), expect: 'ok' },
      { name: 'fields in another order', secret, request: request(JSON_BODY, h(`v1=${v1(NOW_S)},t=${NOW_S}`)), expect: 'ok' },
      { name: 'spaces after the commas', secret, request: request(JSON_BODY, h(`t=${NOW_S}, v1=${v1(NOW_S)}`)), expect: 'ok' },
      { name: 'no t=', secret, request: request(JSON_BODY, h(`v1=${v1(NOW_S)}`)), expect: 'missing_timestamp' },
      { name: 'non-numeric t=', secret, request: request(JSON_BODY, h(`t=now,v1=${v1('now')}`)), expect: 'malformed_signature' },
      { name: 'fractional t=', secret, request: request(JSON_BODY, h(`t=${NOW_S}.5,v1=${v1(`${NOW_S}.5`)}`)), expect: 'malformed_signature' },
      {
        name: 'two headers joined by Node with ", " (two t=)',
        secret,
        request: request(JSON_BODY, h(`t=${NOW_S},v1=${v1(NOW_S)}, t=${NOW_S},v1=${v1(NOW_S)}`)),
        expect: 'malformed_signature',
      },
      { name: 'header repeated (array)', secret, request: request(JSON_BODY, h([`t=${NOW_S},v1=${v1(NOW_S)}`])), expect: 'malformed_signature' },
      { name: 'non-hex v1', secret, request: request(JSON_BODY, h(`t=${NOW_S},v1=${v1(NOW_S).replace(/^../, 'xy')}`)), expect: 'malformed_signature' },
      { name: 'a field without =', secret, request: request(JSON_BODY, h(`t=${NOW_S},v1`)), expect: 'malformed_signature' },
      { name: 'trailing comma', secret, request: request(JSON_BODY, h(`t=${NOW_S},v1=${v1(NOW_S)},`)), expect: 'malformed_signature' },
      { name: 'empty header value', secret, request: request(JSON_BODY, h('')), expect: 'missing_signature' },
      {
        name: 'an old signature replayed with a fresh t=',
        secret,
        request: request(JSON_BODY, h(`t=${NOW_S},v1=${v1(NOW_S - 3600)}`)),
        expect: 'signature_mismatch',
      },
    ],
    [v1(NOW_S)],
  );
});

// ---------------------------------------------------------------------------------------------
// Slack

describe('slack (X-Slack-Signature)', () => {
  const scheme: SignatureScheme = { kind: 'slack' };
  // https://api.slack.com/authentication/verifying-requests-from-slack (worked example). The body
  // there has command=%2Fwebhook-collect: with that body the documented signature verifies. Our
  // brief transcribed it as command=%2Fwebbot, which does not verify (a tampered-body case below).
  const DOC_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
  const DOC_TS = 1531420618;
  const docBody = (command: string): string =>
    'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar' +
    `&user_id=U2CERLKJA&user_name=roadrunner&command=${command}&text=` +
    '&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN' +
    '&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
  const DOC_SIGNATURE = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';
  const docHeaders: Headers = { 'x-slack-signature': DOC_SIGNATURE, 'x-slack-request-timestamp': String(DOC_TS) };
  const form = { contentType: 'application/x-www-form-urlencoded' };

  const secret = 'slack_signing_secret_abc';
  const sig = (ts: number | string, body = JSON_BODY, key = secret): string => `v0=${hmacHex('sha256', key, `v0:${ts}:${body}`)}`;
  const signedAt = (ts: number, body = JSON_BODY): SignedRequest =>
    request(body, { 'x-slack-signature': sig(ts, body), 'x-slack-request-timestamp': String(ts) });

  it('the documented vector is what HMAC-SHA256 gives (checked independently of our code)', () => {
    assert.equal(`v0=${hmacHex('sha256', DOC_SECRET, `v0:${DOC_TS}:${docBody('%2Fwebhook-collect')}`)}`, DOC_SIGNATURE);
    assert.notEqual(`v0=${hmacHex('sha256', DOC_SECRET, `v0:${DOC_TS}:${docBody('%2Fwebbot')}`)}`, DOC_SIGNATURE);
  });

  table(
    scheme,
    [
      {
        name: "Slack's documented example, at its own time",
        secret: DOC_SECRET,
        request: request(docBody('%2Fwebhook-collect'), docHeaders, form),
        nowMs: DOC_TS * 1000,
        expect: 'ok',
      },
      {
        name: "Slack's documented example with command=%2Fwebbot",
        secret: DOC_SECRET,
        request: request(docBody('%2Fwebbot'), docHeaders, form),
        nowMs: DOC_TS * 1000,
        expect: 'signature_mismatch',
      },
      {
        name: "Slack's documented example, 301 s later",
        secret: DOC_SECRET,
        request: request(docBody('%2Fwebhook-collect'), docHeaders, form),
        nowMs: (DOC_TS + 301) * 1000,
        expect: 'timestamp_outside_tolerance',
      },
      ...commonCases({
        secret,
        valid: signedAt(NOW_S),
        tampered: request(`${JSON_BODY}\n`, { 'x-slack-signature': sig(NOW_S), 'x-slack-request-timestamp': String(NOW_S) }),
        wrongSecret: request(JSON_BODY, { 'x-slack-signature': sig(NOW_S, JSON_BODY, 'other'), 'x-slack-request-timestamp': String(NOW_S) }),
        missingHeader: request(JSON_BODY, { 'x-slack-request-timestamp': String(NOW_S) }),
        timed: true,
      }),
      { name: 'timestamp header missing', secret, request: request(JSON_BODY, { 'x-slack-signature': sig(NOW_S) }), expect: 'missing_timestamp' },
      { name: 'stale: 301 s old', secret, request: signedAt(NOW_S - 301), expect: 'timestamp_outside_tolerance' },
      { name: 'edge: exactly 300 s old', secret, request: signedAt(NOW_S - 300), expect: 'ok' },
      { name: 'future: 301 s ahead', secret, request: signedAt(NOW_S + 301), expect: 'timestamp_outside_tolerance' },
      { name: 'edge: exactly 300 s ahead', secret, request: signedAt(NOW_S + 300), expect: 'ok' },
      {
        name: 'timestamp moved forward under the old signature',
        secret,
        request: request(JSON_BODY, { 'x-slack-signature': sig(NOW_S - 1000), 'x-slack-request-timestamp': String(NOW_S) }),
        expect: 'signature_mismatch',
      },
      {
        name: 'non-numeric timestamp',
        secret,
        request: request(JSON_BODY, { 'x-slack-signature': sig('soon'), 'x-slack-request-timestamp': 'soon' }),
        expect: 'malformed_signature',
      },
      {
        name: 'v1= prefix',
        secret,
        request: request(JSON_BODY, { 'x-slack-signature': sig(NOW_S).replace('v0=', 'v1='), 'x-slack-request-timestamp': String(NOW_S) }),
        expect: 'malformed_signature',
      },
      {
        name: 'no prefix',
        secret,
        request: request(JSON_BODY, { 'x-slack-signature': sig(NOW_S).slice(3), 'x-slack-request-timestamp': String(NOW_S) }),
        expect: 'malformed_signature',
      },
      {
        name: 'non-hex digest',
        secret,
        request: request(JSON_BODY, { 'x-slack-signature': `v0=${'q'.repeat(64)}`, 'x-slack-request-timestamp': String(NOW_S) }),
        expect: 'malformed_signature',
      },
      {
        name: 'signature header repeated (array)',
        secret,
        request: request(JSON_BODY, { 'x-slack-signature': [sig(NOW_S), sig(NOW_S)], 'x-slack-request-timestamp': String(NOW_S) }),
        expect: 'malformed_signature',
      },
      {
        name: 'headers in the sender spelling',
        secret,
        request: request(JSON_BODY, { 'X-Slack-Signature': sig(NOW_S), 'X-Slack-Request-Timestamp': String(NOW_S) }),
        expect: 'ok',
      },
    ],
    [sig(NOW_S).slice(3), DOC_SIGNATURE.slice(3)],
  );
});

// ---------------------------------------------------------------------------------------------
// SendGrid

describe('sendgrid (X-Twilio-Email-Event-Webhook-Signature)', () => {
  const scheme: SignatureScheme = { kind: 'sendgrid' };
  // The vectors of SendGrid's own library (node_modules/@sendgrid/eventwebhook/src/eventwebhook.spec.js).
  const LIB_PUBLIC_KEY = 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE83T4O/n84iotIvIW4mdBgQ/7dAfSmpqIM8kF9mN1flpVKS3GRqe62gw+2fNNRaINXvVpiglSI8eNEc6wEA3F+g==';
  const LIB_SIGNATURE = 'MEUCIGHQVtGj+Y3LkG9fLcxf3qfI10QysgDWmMOVmxG0u6ZUAiEAyBiXDWzM+uOe5W0JuG+luQAbPIqHh89M15TluLtEZtM=';
  const LIB_TIMESTAMP = 1600112502;
  const LIB_PAYLOAD =
    JSON.stringify([
      {
        email: 'hello@world.com',
        event: 'dropped',
        reason: 'Bounced Address',
        sg_event_id: 'ZHJvcC0xMDk5NDkxOS1MUnpYbF9OSFN0T0doUTRrb2ZTbV9BLTA',
        sg_message_id: 'LRzXl_NHStOGhQ4kofSm_A.filterdrecv-p3mdw1-756b745b58-kmzbl-18-5F5FC76C-9.0',
        'smtp-id': '<LRzXl_NHStOGhQ4kofSm_A@ismtpd0039p1iad1.sendgrid.net>',
        timestamp: 1600112492,
      },
    ]) + '\r\n';
  const LIB_OTHER_KEY = 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEqTxd43gyp8IOEto2LdIfjRQrIbsd4SXZkLW6jDutdhXSJCWHw8REntlo7aNDthvj+y7GjUuFDb/R1NGe1OPzpA==';
  const LIB_BAD_SIGNATURE = 'MEUCIQCtIHJeH93Y+qpYeWrySphQgpNGNr/U+UyUlBkU6n7RAwIgJTz2C+8a8xonZGi6BpSzoQsbVRamr2nlxFDWYNH3j/0=';
  const LIB_MULTI_KEY = 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEQ4LIFtWztlsF7skFqOncjD1lun4H5w8XOhyOArHW9RcIx/FfEzx6cikC/yPfUvwaX/JScE7Fc9CJD2afQ9Ok3Q==';
  const LIB_MULTI_SIGNATURE = 'MEYCIQC/I4o6vCgqRYrTljjoVWB/GRWNtxeePlLMHr3x9ETeRQIhAIpV+03nREPTTHWSW0wIOA0EoMPdcNgXa70yCaqDJlu5';
  const LIB_MULTI_TIMESTAMP = 1619651159;
  const LIB_MULTI_PAYLOAD =
    JSON.stringify([
      {
        email: 'invalid@gmail.com',
        event: 'processed',
        send_at: 0,
        sg_event_id: 'cHJvY2Vzc2VkLTE5OTQyMTEyLXFOd0JMZ1BRUWpXNkRKdktRd1NBYnctMA',
        sg_message_id: 'qNwBLgPQQjW6DJvKQwSAbw.filterdrecv-canary-547b64655b-cw6zx-1-6089EA4A-56.0',
        'smtp-id': '<qNwBLgPQQjW6DJvKQwSAbw@ismtpd0178p1mdw1.sendgrid.net>',
        timestamp: 1619651146,
      },
      {
        email: 'invalid@gmail.com',
        event: 'bounce',
        ip: '167.89.101.76',
        reason:
          '552 5.2.2 The email account that you tried to reach is over quota and inactive. Please direct the recipient to https://support.google.com/mail/?p=OverQuotaPerm c17si1130468pgv.34 - gsmtp',
        sg_event_id: 'Ym91bmNlLTAtMTk5NDIxMTItcU53QkxnUFFRalc2REp2S1F3U0Fidy0w',
        sg_message_id: 'qNwBLgPQQjW6DJvKQwSAbw.filterdrecv-canary-547b64655b-cw6zx-1-6089EA4A-56.0',
        'smtp-id': '<qNwBLgPQQjW6DJvKQwSAbw@ismtpd0178p1mdw1.sendgrid.net>',
        status: '5.2.2',
        timestamp: 1619651147,
        tls: 1,
        type: 'blocked',
      },
    ])
      .split('},{')
      .join('},\r\n{') + '\r\n';

  const libHeaders = (signature: string, ts: number): Headers => ({
    'x-twilio-email-event-webhook-signature': signature,
    'x-twilio-email-event-webhook-timestamp': String(ts),
  });
  const pem = (base64Der: string): string => `-----BEGIN PUBLIC KEY-----\n${base64Der.match(/.{1,64}/g)?.join('\n')}\n-----END PUBLIC KEY-----\n`;

  const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const otherPair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const publicPem = pair.publicKey.export({ format: 'pem', type: 'spki' }).toString();
  const publicBase64 = pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
  const ecdsa = (key: KeyObject, ts: number | string, body: string): string =>
    sign('sha256', Buffer.concat([Buffer.from(String(ts)), Buffer.from(body)]), { key, dsaEncoding: 'der' }).toString('base64');
  const headersAt = (ts: number, body = JSON_BODY, key = pair.privateKey): Headers => libHeaders(ecdsa(key, ts, body), ts);
  const good = headersAt(NOW_S);
  const goodSignature = String(good['x-twilio-email-event-webhook-signature']);

  table(
    scheme,
    [
      {
        name: "SendGrid library vector (dashboard's bare base64 key)",
        secret: LIB_PUBLIC_KEY,
        request: request(LIB_PAYLOAD, libHeaders(LIB_SIGNATURE, LIB_TIMESTAMP)),
        nowMs: LIB_TIMESTAMP * 1000,
        expect: 'ok',
      },
      {
        name: 'SendGrid library vector, key as PEM',
        secret: pem(LIB_PUBLIC_KEY),
        request: request(LIB_PAYLOAD, libHeaders(LIB_SIGNATURE, LIB_TIMESTAMP)),
        nowMs: LIB_TIMESTAMP * 1000,
        expect: 'ok',
      },
      {
        name: 'SendGrid library multi-event vector',
        secret: LIB_MULTI_KEY,
        request: request(LIB_MULTI_PAYLOAD, libHeaders(LIB_MULTI_SIGNATURE, LIB_MULTI_TIMESTAMP)),
        nowMs: LIB_MULTI_TIMESTAMP * 1000,
        expect: 'ok',
      },
      {
        name: 'SendGrid library vector without its trailing CRLF',
        secret: LIB_PUBLIC_KEY,
        request: request(LIB_PAYLOAD.trimEnd(), libHeaders(LIB_SIGNATURE, LIB_TIMESTAMP)),
        nowMs: LIB_TIMESTAMP * 1000,
        expect: 'signature_mismatch',
      },
      {
        name: "SendGrid library 'invalid key' vector",
        secret: LIB_OTHER_KEY,
        request: request(LIB_PAYLOAD, libHeaders(LIB_SIGNATURE, LIB_TIMESTAMP)),
        nowMs: LIB_TIMESTAMP * 1000,
        expect: 'signature_mismatch',
      },
      {
        name: "SendGrid library 'bad signature' vector",
        secret: LIB_PUBLIC_KEY,
        request: request(LIB_PAYLOAD, libHeaders(LIB_BAD_SIGNATURE, LIB_TIMESTAMP)),
        nowMs: LIB_TIMESTAMP * 1000,
        expect: 'signature_mismatch',
      },
      {
        name: 'SendGrid library vector, checked today (stale)',
        secret: LIB_PUBLIC_KEY,
        request: request(LIB_PAYLOAD, libHeaders(LIB_SIGNATURE, LIB_TIMESTAMP)),
        expect: 'timestamp_outside_tolerance',
      },
      ...commonCases({
        secret: publicPem,
        valid: request(JSON_BODY, good),
        tampered: request(JSON_BODY.replace('usage', 'Usage'), good),
        wrongSecret: request(JSON_BODY, headersAt(NOW_S, JSON_BODY, otherPair.privateKey)),
        missingHeader: request(JSON_BODY, { 'x-twilio-email-event-webhook-timestamp': String(NOW_S) }),
        timed: true,
      }),
      { name: 'key as bare base64 SPKI DER', secret: publicBase64, request: request(JSON_BODY, good), expect: 'ok' },
      { name: 'key as base64 pasted with line breaks', secret: publicBase64.replace(/(.{20})/g, '$1\n'), request: request(JSON_BODY, good), expect: 'ok' },
      {
        name: 'timestamp header missing',
        secret: publicPem,
        request: request(JSON_BODY, { 'x-twilio-email-event-webhook-signature': goodSignature }),
        expect: 'missing_timestamp',
      },
      { name: 'stale: 301 s old', secret: publicPem, request: request(JSON_BODY, headersAt(NOW_S - 301)), expect: 'timestamp_outside_tolerance' },
      { name: 'edge: exactly 300 s old', secret: publicPem, request: request(JSON_BODY, headersAt(NOW_S - 300)), expect: 'ok' },
      { name: 'future: 301 s ahead', secret: publicPem, request: request(JSON_BODY, headersAt(NOW_S + 301)), expect: 'timestamp_outside_tolerance' },
      { name: 'edge: exactly 300 s ahead', secret: publicPem, request: request(JSON_BODY, headersAt(NOW_S + 300)), expect: 'ok' },
      {
        name: 'timestamp header changed under the signature',
        secret: publicPem,
        request: request(JSON_BODY, libHeaders(goodSignature, NOW_S + 1)),
        expect: 'signature_mismatch',
      },
      {
        name: 'non-numeric timestamp',
        secret: publicPem,
        request: request(JSON_BODY, {
          'x-twilio-email-event-webhook-signature': ecdsa(pair.privateKey, 'yesterday', JSON_BODY),
          'x-twilio-email-event-webhook-timestamp': 'yesterday',
        }),
        expect: 'malformed_signature',
      },
      { name: 'signature not base64', secret: publicPem, request: request(JSON_BODY, libHeaders('not base64!', NOW_S)), expect: 'malformed_signature' },
      {
        name: 'signature base64 but not DER',
        secret: publicPem,
        request: request(JSON_BODY, libHeaders(Buffer.alloc(64, 7).toString('base64'), NOW_S)),
        expect: 'signature_mismatch',
      },
      { name: 'key that is not a key', secret: 'not a key', request: request(JSON_BODY, good), expect: 'invalid_public_key' },
      { name: 'truncated base64 key', secret: publicBase64.slice(0, 40), request: request(JSON_BODY, good), expect: 'invalid_public_key' },
      {
        name: 'the PRIVATE key pasted by mistake',
        secret: pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        request: request(JSON_BODY, good),
        expect: 'invalid_public_key',
      },
      {
        name: 'an RSA public key',
        secret: generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'pem', type: 'spki' }).toString(),
        request: request(JSON_BODY, good),
        expect: 'invalid_public_key',
      },
      {
        name: 'a P-384 public key',
        secret: generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey.export({ format: 'pem', type: 'spki' }).toString(),
        request: request(JSON_BODY, good),
        expect: 'invalid_public_key',
      },
    ],
    [goodSignature, LIB_SIGNATURE],
  );
});

// ---------------------------------------------------------------------------------------------
// Twilio

describe('twilio (X-Twilio-Signature)', () => {
  const scheme: SignatureScheme = { kind: 'twilio' };
  const form = 'application/x-www-form-urlencoded';
  /** Twilio's documented rule: URL, then each parameter name+value, names sorted; a repeated name's values de-duplicated and sorted (twilio-node). */
  const twilioSig = (token: string, url: string, params: ReadonlyArray<readonly [string, string]> = []): string => {
    const byName = new Map<string, string[]>();
    for (const [k, v] of params) byName.set(k, [...(byName.get(k) ?? []), v]);
    let data = url;
    for (const k of [...byName.keys()].sort()) for (const v of [...new Set(byName.get(k))].sort()) data += k + v;
    return hmacBase64('sha1', token, data);
  };
  const formBody = (params: ReadonlyArray<readonly [string, string]>): string =>
    new URLSearchParams(params.map(([k, v]): [string, string] => [k, v])).toString();
  const h = (value: string | string[]): Headers => ({ 'x-twilio-signature': value });

  // Twilio's documentation example (twilio.com/docs/usage/security, snippet in TwilioDevEd/api-snippets
  // security/signature_validation): auth token 12345.
  const DOC_TOKEN = '12345';
  const DOC_URL = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const DOC_PARAMS = [
    ['CallSid', 'CA1234567890ABCDE'],
    ['Caller', '+14158675309'],
    ['Digits', '1234'],
    ['From', '+14158675309'],
    ['To', '+18005551212'],
  ] as const;
  const DOC_SIGNATURE = 'RSOYDt4T1cUTdK1PDd93/VVr8B8=';
  // The twilio helper libraries' own test vectors (same token and URL, other numbers; and a JSON body).
  const LIB_PARAMS = [
    ['CallSid', 'CA1234567890ABCDE'],
    ['Caller', '+12349013030'],
    ['Digits', '1234'],
    ['From', '+12349013030'],
    ['To', '+18005551212'],
  ] as const;
  const LIB_SIGNATURE = '0/KCTR6DLpKmkAf8muzZqo1nDgQ=';
  const LIB_JSON_BODY = '{"property": "value", "boolean": true}';
  const LIB_JSON_URL = `${DOC_URL}&bodySHA256=0a1ff7634d9ab3b95db5c9a2dfe9416e41502b283a80c7cf19632632f96e6620`;
  const LIB_JSON_SIGNATURE = 'a9nBmqA0ju/hNViExpshrM61xv4=';

  it('the documented vectors are what HMAC-SHA1 gives (checked independently of our code)', () => {
    assert.equal(twilioSig(DOC_TOKEN, DOC_URL, DOC_PARAMS), DOC_SIGNATURE);
    assert.equal(twilioSig(DOC_TOKEN, DOC_URL, LIB_PARAMS), LIB_SIGNATURE);
    assert.equal(createHash('sha256').update(LIB_JSON_BODY).digest('hex'), LIB_JSON_URL.split('bodySHA256=')[1]);
    assert.equal(twilioSig(DOC_TOKEN, LIB_JSON_URL), LIB_JSON_SIGNATURE);
  });

  const token = 'twilio_auth_token_0123456789abcdef';
  const params = [
    ['MessageSid', 'SM0123'],
    ['Body', 'Hello & welcome = 100% ✓'],
    ['From', '+15550001111'],
    ['To', '+15550002222'],
    ['AccountSid', 'AC0123'],
  ] as const;
  const body = formBody(params);
  const good = twilioSig(token, HOOK_URL, params);
  const signedForm = (signedUrl: string, receivedUrl: string): SignedRequest =>
    request(body, h(twilioSig(token, signedUrl, params)), { url: receivedUrl, contentType: form });
  const jsonBody = JSON_BODY;
  const jsonUrl = `${HOOK_URL}?bodySHA256=${createHash('sha256').update(jsonBody).digest('hex')}`;

  table(
    scheme,
    [
      {
        name: "Twilio's documented example",
        secret: DOC_TOKEN,
        request: request(formBody(DOC_PARAMS), h(DOC_SIGNATURE), { url: DOC_URL, contentType: form }),
        expect: 'ok',
      },
      {
        name: "Twilio's documented example, params posted out of order",
        secret: DOC_TOKEN,
        request: request(formBody([...DOC_PARAMS].reverse()), h(DOC_SIGNATURE), { url: DOC_URL, contentType: form }),
        expect: 'ok',
      },
      {
        name: "Twilio's documented example, Digits changed",
        secret: DOC_TOKEN,
        request: request(formBody(DOC_PARAMS).replace('Digits=1234', 'Digits=9999'), h(DOC_SIGNATURE), { url: DOC_URL, contentType: form }),
        expect: 'signature_mismatch',
      },
      {
        name: "Twilio's documented example, query changed",
        secret: DOC_TOKEN,
        request: request(formBody(DOC_PARAMS), h(DOC_SIGNATURE), { url: DOC_URL.replace('bar=2', 'bar=3'), contentType: form }),
        expect: 'signature_mismatch',
      },
      {
        name: 'twilio library vector (form)',
        secret: DOC_TOKEN,
        request: request(formBody(LIB_PARAMS), h(LIB_SIGNATURE), { url: DOC_URL, contentType: form }),
        expect: 'ok',
      },
      {
        name: 'twilio library vector (JSON, bodySHA256)',
        secret: DOC_TOKEN,
        request: request(LIB_JSON_BODY, h(LIB_JSON_SIGNATURE), { url: LIB_JSON_URL, contentType: 'application/json' }),
        expect: 'ok',
      },
      {
        name: 'twilio library vector (JSON), body changed',
        secret: DOC_TOKEN,
        request: request(LIB_JSON_BODY.replace('true', 'false'), h(LIB_JSON_SIGNATURE), { url: LIB_JSON_URL, contentType: 'application/json' }),
        expect: 'body_hash_mismatch',
      },
      ...commonCases({
        secret: token,
        valid: request(body, h(good), { contentType: form }),
        tampered: request(body.replace('SM0123', 'SM9999'), h(good), { contentType: form }),
        wrongSecret: request(body, h(twilioSig('another_token', HOOK_URL, params)), { contentType: form }),
        missingHeader: request(body, {}, { contentType: form }),
        timed: false,
      }),
      {
        name: 'form params posted out of order',
        secret: token,
        request: request(formBody([...params].reverse()), h(good), { contentType: form }),
        expect: 'ok',
      },
      { name: 'an extra form parameter', secret: token, request: request(`${body}&NumMedia=1`, h(good), { contentType: form }), expect: 'signature_mismatch' },
      {
        name: 'form content type with a charset',
        secret: token,
        request: request(body, h(good), { contentType: 'Application/X-WWW-Form-Urlencoded; charset=UTF-8' }),
        expect: 'ok',
      },
      {
        name: 'repeated form keys: values de-duplicated and sorted, as twilio does',
        secret: token,
        request: request('To=x&Tag=b&Tag=a&Tag=b', h(hmacBase64('sha1', token, `${HOOK_URL}TagaTagbTox`)), { contentType: form }),
        expect: 'ok',
      },
      {
        name: 'repeated form keys signed without de-duplication',
        secret: token,
        request: request('To=x&Tag=b&Tag=a&Tag=b', h(hmacBase64('sha1', token, `${HOOK_URL}TagaTagbTagbTox`)), { contentType: form }),
        expect: 'signature_mismatch',
      },
      {
        name: 'empty body: the URL (and its query) alone is signed',
        secret: token,
        request: request('', h(twilioSig(token, `${HOOK_URL}?CallSid=CA1&CallStatus=ringing`)), {
          url: `${HOOK_URL}?CallSid=CA1&CallStatus=ringing`,
          contentType: null,
        }),
        expect: 'ok',
      },
      {
        name: 'port: signed with :443, received without',
        secret: token,
        request: signedForm('https://hooks.tollgate.test:443/plugs/plug_1', HOOK_URL),
        expect: 'ok',
      },
      {
        name: 'port: signed without, received with :443',
        secret: token,
        request: signedForm(HOOK_URL, 'https://hooks.tollgate.test:443/plugs/plug_1'),
        expect: 'ok',
      },
      {
        name: 'port: http signed with :80, received without',
        secret: token,
        request: signedForm('http://hooks.tollgate.test:80/p?x=1', 'http://hooks.tollgate.test/p?x=1'),
        expect: 'ok',
      },
      {
        name: 'port: http signed without, received with :80',
        secret: token,
        request: signedForm('http://hooks.tollgate.test/p?x=1', 'http://hooks.tollgate.test:80/p?x=1'),
        expect: 'ok',
      },
      {
        name: 'port: https signed with :80 is another URL',
        secret: token,
        request: signedForm('https://hooks.tollgate.test:80/plugs/plug_1', HOOK_URL),
        expect: 'signature_mismatch',
      },
      {
        name: 'port: a non-default port must match',
        secret: token,
        request: signedForm('https://hooks.tollgate.test:8443/plugs/plug_1', 'https://hooks.tollgate.test:8443/plugs/plug_1'),
        expect: 'ok',
      },
      {
        name: 'port: a non-default port is never dropped (stricter than twilio-node)',
        secret: token,
        request: signedForm(HOOK_URL, 'https://hooks.tollgate.test:8443/plugs/plug_1'),
        expect: 'signature_mismatch',
      },
      {
        name: "query: signed with ', received as %27 (twilio's normalisation)",
        secret: token,
        request: signedForm(`${HOOK_URL}?test=param'WithQuote`, `${HOOK_URL}?test=param%27WithQuote`),
        expect: 'ok',
      },
      {
        name: "query: signed with %27, received as '",
        secret: token,
        request: signedForm(`${HOOK_URL}?test=param%27WithQuote`, `${HOOK_URL}?test=param'WithQuote`),
        expect: 'ok',
      },
      {
        name: 'scheme changed from https to http',
        secret: token,
        request: signedForm(HOOK_URL, HOOK_URL.replace('https:', 'http:')),
        expect: 'signature_mismatch',
      },
      { name: 'JSON body with bodySHA256', secret: token, request: request(jsonBody, h(twilioSig(token, jsonUrl)), { url: jsonUrl }), expect: 'ok' },
      {
        name: 'JSON body, bodySHA256 and :443 port variant',
        secret: token,
        request: request(jsonBody, h(twilioSig(token, jsonUrl.replace('.test/', '.test:443/'))), { url: jsonUrl }),
        expect: 'ok',
      },
      {
        name: 'JSON body changed under a genuine URL',
        secret: token,
        request: request(`${jsonBody} `, h(twilioSig(token, jsonUrl)), { url: jsonUrl }),
        expect: 'body_hash_mismatch',
      },
      {
        name: 'JSON body with a signed but wrong bodySHA256',
        secret: token,
        request: request(jsonBody, h(twilioSig(token, `${HOOK_URL}?bodySHA256=${createHash('sha256').update('{}').digest('hex')}`)), {
          url: `${HOOK_URL}?bodySHA256=${createHash('sha256').update('{}').digest('hex')}`,
        }),
        expect: 'body_hash_mismatch',
      },
      {
        name: 'JSON body with a non-hex bodySHA256',
        secret: token,
        request: request(jsonBody, h(twilioSig(token, `${HOOK_URL}?bodySHA256=nothex`)), { url: `${HOOK_URL}?bodySHA256=nothex` }),
        expect: 'body_hash_mismatch',
      },
      {
        name: 'JSON body with an empty bodySHA256',
        secret: token,
        request: request(jsonBody, h(twilioSig(token, `${HOOK_URL}?bodySHA256=`)), { url: `${HOOK_URL}?bodySHA256=` }),
        expect: 'body_hash_mismatch',
      },
      {
        name: 'JSON body with bodySHA256 but the URL altered',
        secret: token,
        request: request(jsonBody, h(twilioSig(token, jsonUrl)), { url: `${jsonUrl}&x=1` }),
        expect: 'signature_mismatch',
      },
      {
        name: 'JSON body without bodySHA256 (the body would be unsigned)',
        secret: token,
        request: request(jsonBody, h(twilioSig(token, HOOK_URL)), { url: HOOK_URL }),
        expect: 'body_hash_mismatch',
      },
      { name: 'form body without a content type', secret: token, request: request(body, h(good), { contentType: null }), expect: 'body_hash_mismatch' },
      { name: 'not base64', secret: token, request: request(body, h('sha1=abc'), { contentType: form }), expect: 'malformed_signature' },
      {
        name: 'base64 without its padding',
        secret: token,
        request: request(body, h(good.replace(/=+$/, '')), { contentType: form }),
        expect: 'malformed_signature',
      },
      {
        name: 'hex digest instead of base64',
        secret: token,
        request: request(body, h(Buffer.from(good, 'base64').toString('hex')), { contentType: form }),
        expect: 'signature_mismatch',
      },
      { name: 'header repeated (array)', secret: token, request: request(body, h([good, good]), { contentType: form }), expect: 'malformed_signature' },
    ],
    [good, DOC_SIGNATURE],
  );
});

// ---------------------------------------------------------------------------------------------
// Custom

describe('custom (user-defined header, HMAC of the body)', () => {
  const secret = 'custom_secret_value';
  const variants: Array<{ scheme: Extract<SignatureScheme, { kind: 'custom' }>; value: (key: string, body: string) => string }> = [
    { scheme: { kind: 'custom', header: 'X-Tollgate-Signature', algorithm: 'sha256', encoding: 'hex', prefix: '' }, value: (k, b) => hmacHex('sha256', k, b) },
    {
      scheme: { kind: 'custom', header: 'X-Webhook-Signature', algorithm: 'sha1', encoding: 'base64', prefix: 'sha1=' },
      value: (k, b) => `sha1=${hmacBase64('sha1', k, b)}`,
    },
    {
      scheme: { kind: 'custom', header: 'webhook-signature', algorithm: 'sha256', encoding: 'base64', prefix: '' },
      value: (k, b) => hmacBase64('sha256', k, b),
    },
    { scheme: { kind: 'custom', header: 'X-SIG', algorithm: 'sha1', encoding: 'hex', prefix: 'v1,' }, value: (k, b) => `v1,${hmacHex('sha1', k, b)}` },
    {
      scheme: { kind: 'custom', header: 'X-Shop-Hmac', algorithm: 'sha256', encoding: 'hex', prefix: 'sha256=' },
      value: (k, b) => `sha256=${hmacHex('sha256', k, b)}`,
    },
  ];
  for (const { scheme, value } of variants) {
    const { header, algorithm, encoding, prefix } = scheme;
    describe(`${header}: ${algorithm}/${encoding}${prefix ? ` with prefix "${prefix}"` : ' without prefix'}`, () => {
      const lower = header.toLowerCase();
      const good = value(secret, JSON_BODY);
      const digest = good.slice(prefix.length);
      table(
        scheme,
        [
          ...commonCases({
            secret,
            valid: request(JSON_BODY, { [lower]: good }),
            tampered: request(JSON_BODY.replace('quantity', 'Quantity'), { [lower]: good }),
            wrongSecret: request(JSON_BODY, { [lower]: value('other', JSON_BODY) }),
            missingHeader: request(JSON_BODY, { 'x-hub-signature-256': good }),
            timed: false,
          }),
          { name: 'header key in the configured (mixed) case', secret, request: request(JSON_BODY, { [header]: good }), expect: 'ok' },
          { name: 'header repeated (array)', secret, request: request(JSON_BODY, { [lower]: [good] }), expect: 'malformed_signature' },
          { name: 'junk before the value', secret, request: request(JSON_BODY, { [lower]: `x${good}` }), expect: 'malformed_signature' },
          {
            name: encoding === 'hex' ? 'base64 where hex is configured' : 'hex where base64 is configured',
            secret,
            request: request(JSON_BODY, { [lower]: prefix + Buffer.from(digest, encoding).toString(encoding === 'hex' ? 'base64' : 'hex') }),
            // A hex string happens to use only base64 characters, so it decodes, to the wrong length.
            expect: encoding === 'hex' ? 'malformed_signature' : 'signature_mismatch',
          },
          {
            name: 'the other algorithm',
            secret,
            request: request(JSON_BODY, { [lower]: prefix + hmacDigest(algorithm === 'sha256' ? 'sha1' : 'sha256', secret, JSON_BODY).toString(encoding) }),
            expect: 'signature_mismatch',
          },
          ...(prefix
            ? [
                { name: 'prefix missing', secret, request: request(JSON_BODY, { [lower]: digest }), expect: 'malformed_signature' as const },
                {
                  name: 'prefix in upper case',
                  secret,
                  request: request(JSON_BODY, { [lower]: prefix.toUpperCase() + digest }),
                  expect: 'malformed_signature' as const,
                },
              ]
            : []),
          ...(encoding === 'base64'
            ? [
                {
                  name: 'base64 with its padding removed',
                  secret,
                  request: request(JSON_BODY, { [lower]: prefix + digest.replace(/=+$/, '') }),
                  expect: 'malformed_signature' as const,
                },
              ]
            : [{ name: 'upper-case hex', secret, request: request(JSON_BODY, { [lower]: prefix + digest.toUpperCase() }), expect: 'ok' as const }]),
        ],
        [digest],
      );
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Cross-cutting

describe('signatureHeaderNames', () => {
  const cases: Array<[SignatureScheme, string[]]> = [
    [{ kind: 'stripe' }, ['stripe-signature']],
    [{ kind: 'hub_sha256' }, ['x-hub-signature-256']],
    [{ kind: 'hub_sha1' }, ['x-hub-signature']],
    [{ kind: 'raw_sha256' }, ['x-signature-256']],
    [{ kind: 'twilio' }, ['x-twilio-signature']],
    [{ kind: 'sendgrid' }, ['x-twilio-email-event-webhook-signature']],
    [{ kind: 'slack' }, ['x-slack-signature']],
    [{ kind: 'custom', header: 'X-Acme-Signature', algorithm: 'sha256', encoding: 'hex', prefix: '' }, ['x-acme-signature']],
  ];
  for (const [scheme, expected] of cases) {
    it(`${scheme.kind}${scheme.kind === 'custom' ? ` (${scheme.header})` : ''} -> ${expected.join(', ')}`, () => {
      assert.deepEqual(signatureHeaderNames(scheme), expected);
    });
  }
});

describe('failing closed', () => {
  it('the tolerance is 300 seconds', () => {
    assert.equal(TIMESTAMP_TOLERANCE_SECONDS, 300);
  });

  it('an exception while reading the request is a failure, not a throw and not a pass', () => {
    const hostile = new Proxy<Headers>(
      {},
      {
        ownKeys() {
          throw new Error('boom');
        },
      },
    );
    const result = verifySignature({ kind: 'hub_sha256' }, 'secret', request(JSON_BODY, hostile), NOW_MS);
    assert.equal(result.ok, false);
    assert.equal(outcome(result), 'malformed_signature');
    if (!result.ok) assert.ok(!result.message.includes('boom'));
  });

  it('a body that is not a Buffer (a caller bug) is a failure, not a throw', () => {
    const broken = {
      ...request('', {}),
      body: null as unknown as Buffer,
      headers: { 'x-twilio-signature': 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' },
      contentType: 'application/x-www-form-urlencoded',
    };
    assert.equal(outcome(verifySignature({ kind: 'twilio' }, 'token', broken, NOW_MS)), 'malformed_signature');
  });
});

// ---------------------------------------------------------------------------------------------
// Round trips through our own signer

describe('signWebhook then verifySignature', () => {
  const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const privatePem = pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const publicPem = pair.publicKey.export({ format: 'pem', type: 'spki' }).toString();
  const cases: Array<{ name: string; scheme: SignatureScheme; signWith: string; verifyWith: string; contentType?: string; body: string }> = [
    { name: 'stripe', scheme: { kind: 'stripe' }, signWith: 'whsec_x', verifyWith: 'whsec_x', body: JSON_BODY },
    { name: 'hub_sha256', scheme: { kind: 'hub_sha256' }, signWith: 's', verifyWith: 's', body: JSON_BODY },
    { name: 'hub_sha1', scheme: { kind: 'hub_sha1' }, signWith: 's', verifyWith: 's', body: JSON_BODY },
    { name: 'raw_sha256', scheme: { kind: 'raw_sha256' }, signWith: 's', verifyWith: 's', body: JSON_BODY },
    { name: 'slack', scheme: { kind: 'slack' }, signWith: 's', verifyWith: 's', body: JSON_BODY },
    { name: 'sendgrid', scheme: { kind: 'sendgrid' }, signWith: privatePem, verifyWith: publicPem, body: `[${JSON_BODY}]\r\n` },
    {
      name: 'twilio, form (default content type)',
      scheme: { kind: 'twilio' },
      signWith: 'tok',
      verifyWith: 'tok',
      body: 'To=%2B1555&From=%2B1666&Body=hi+there&Tag=b&Tag=a',
    },
    {
      name: 'twilio, form (explicit content type)',
      scheme: { kind: 'twilio' },
      signWith: 'tok',
      verifyWith: 'tok',
      contentType: 'application/x-www-form-urlencoded',
      body: 'B=2&A=1',
    },
    { name: 'twilio, JSON', scheme: { kind: 'twilio' }, signWith: 'tok', verifyWith: 'tok', contentType: 'application/json', body: JSON_BODY },
    {
      name: 'custom hex sha256',
      scheme: { kind: 'custom', header: 'X-Sig', algorithm: 'sha256', encoding: 'hex', prefix: '' },
      signWith: 's',
      verifyWith: 's',
      body: JSON_BODY,
    },
    {
      name: 'custom base64 sha1 with prefix',
      scheme: { kind: 'custom', header: 'X-Sig', algorithm: 'sha1', encoding: 'base64', prefix: 'sha1=' },
      signWith: 's',
      verifyWith: 's',
      body: JSON_BODY,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: verifies, and fails once the body changes`, () => {
      const url = `${HOOK_URL}?plug=1`;
      const signed = signWebhook(c.scheme, c.signWith, c.body, { nowMs: NOW_MS, url, ...(c.contentType ? { contentType: c.contentType } : {}) });
      const contentType = c.contentType ?? (c.scheme.kind === 'twilio' ? 'application/x-www-form-urlencoded' : 'application/json');
      assert.ok(
        Object.keys(signed.headers).every((name) => name === name.toLowerCase()),
        'lower-case header names',
      );
      for (const name of signatureHeaderNames(c.scheme)) assert.ok(name in signed.headers, `sets ${name}`);
      const genuine = request(c.body, signed.headers, { url: signed.url, contentType });
      assert.deepEqual(verifySignature(c.scheme, c.verifyWith, genuine, NOW_MS), { ok: true });
      const tampered = request(`${c.body}&x=1`, signed.headers, { url: signed.url, contentType });
      assert.equal(verifySignature(c.scheme, c.verifyWith, tampered, NOW_MS).ok, false);
    });
  }

  it('twilio JSON: the returned URL carries bodySHA256 of the body, appended to an existing query', () => {
    const signed = signWebhook({ kind: 'twilio' }, 'tok', JSON_BODY, { nowMs: NOW_MS, url: `${HOOK_URL}?plug=1`, contentType: 'application/json' });
    assert.equal(signed.url, `${HOOK_URL}?plug=1&bodySHA256=${createHash('sha256').update(JSON_BODY).digest('hex')}`);
    const bare = signWebhook({ kind: 'twilio' }, 'tok', JSON_BODY, { nowMs: NOW_MS, url: HOOK_URL, contentType: 'application/json' });
    assert.ok(bare.url.startsWith(`${HOOK_URL}?bodySHA256=`));
  });

  it('twilio needs the URL', () => {
    assert.throws(() => signWebhook({ kind: 'twilio' }, 'tok', 'A=1', { nowMs: NOW_MS }), /url/);
  });

  it('timestamped schemes stamp nowMs, so the same headers go stale 301 s later', () => {
    for (const [scheme, signWith, verifyWith] of [
      [{ kind: 'stripe' }, 'k', 'k'],
      [{ kind: 'slack' }, 'k', 'k'],
      [{ kind: 'sendgrid' }, privatePem, publicPem],
    ] as Array<[SignatureScheme, string, string]>) {
      const signed = signWebhook(scheme, signWith, JSON_BODY, { nowMs: NOW_MS });
      const genuine = request(JSON_BODY, signed.headers);
      assert.deepEqual(verifySignature(scheme, verifyWith, genuine, NOW_MS + 300_000), { ok: true }, scheme.kind);
      assert.equal(outcome(verifySignature(scheme, verifyWith, genuine, NOW_MS + 301_000)), 'timestamp_outside_tolerance', scheme.kind);
      assert.equal(outcome(verifySignature(scheme, verifyWith, genuine, NOW_MS - 301_000)), 'timestamp_outside_tolerance', scheme.kind);
    }
  });

  it('reproduces the published vectors', () => {
    assert.deepEqual(signWebhook({ kind: 'hub_sha256' }, "It's a Secret to Everybody", 'Hello, World!', { nowMs: NOW_MS }).headers, {
      'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    });
    const slackBody =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA' +
      '&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN' +
      '&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    assert.deepEqual(signWebhook({ kind: 'slack' }, '8f742231b10e8888abcd99yyyzzz85a5', slackBody, { nowMs: 1531420618_000 }).headers, {
      'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
      'x-slack-request-timestamp': '1531420618',
    });
    const twilioForm = 'CallSid=CA1234567890ABCDE&Caller=%2B14158675309&Digits=1234&From=%2B14158675309&To=%2B18005551212';
    assert.deepEqual(signWebhook({ kind: 'twilio' }, '12345', twilioForm, { nowMs: NOW_MS, url: 'https://mycompany.com/myapp.php?foo=1&bar=2' }), {
      headers: { 'x-twilio-signature': 'RSOYDt4T1cUTdK1PDd93/VVr8B8=' },
      url: 'https://mycompany.com/myapp.php?foo=1&bar=2',
    });
    assert.deepEqual(
      signWebhook({ kind: 'twilio' }, '12345', '{"property": "value", "boolean": true}', {
        nowMs: NOW_MS,
        url: 'https://mycompany.com/myapp.php?foo=1&bar=2',
        contentType: 'application/json',
      }),
      {
        headers: { 'x-twilio-signature': 'a9nBmqA0ju/hNViExpshrM61xv4=' },
        url: 'https://mycompany.com/myapp.php?foo=1&bar=2&bodySHA256=0a1ff7634d9ab3b95db5c9a2dfe9416e41502b283a80c7cf19632632f96e6620',
      },
    );
  });
});
