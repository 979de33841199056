import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { checkFieldMappings } from './field-mapping.js';
import { providers, signatureSchemeOf, templates } from './provider-templates.js';
import { checkSourceSettings, secretHint, templateSettings } from './webhook-source.js';

const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const publicBase64 = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const rsaPublic = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();

describe('plugs.templates', () => {
  for (const p of providers) {
    it(`${p}: its default field mappings are valid`, () => {
      assert.equal(checkFieldMappings(templates[p].fieldMappings, 'fieldMappings').ok, true);
    });
  }
  const schemes: Array<[Parameters<typeof signatureSchemeOf>[0], Parameters<typeof signatureSchemeOf>[1], string]> = [
    ['payment', {}, 'stripe'],
    ['messaging', {}, 'twilio'],
    ['email', {}, 'sendgrid'],
    ['chat', {}, 'slack'],
    ['code_hosting', {}, 'hub_sha256'],
    ['code_hosting', { algorithm: 'sha1' }, 'hub_sha1'],
    ['custom', {}, 'custom'],
  ];
  for (const [provider, options, kind] of schemes) {
    it(`${provider} ${JSON.stringify(options)} verifies with ${kind}`, () => assert.equal(signatureSchemeOf(provider, options).kind, kind));
  }
  it('custom defaults to X-Signature-256, HMAC-SHA256, hex, no prefix', () => {
    assert.deepEqual(signatureSchemeOf('custom', {}), { kind: 'custom', header: 'X-Signature-256', algorithm: 'sha256', encoding: 'hex', prefix: '' });
  });
});

describe('plugs.checkSourceSettings', () => {
  const base = (p: (typeof providers)[number]) => templateSettings(p, 'Source');
  type Case = [string, (typeof providers)[number], Record<string, unknown>, string[] | ((v: any) => void)];
  const cases: Case[] = [
    ['the template alone is valid', 'payment', {}, (v) => assert.deepEqual(v.eventFilter, ['payment_intent.succeeded'])],
    ['a comma-separated filter is split and trimmed', 'payment', { eventFilter: 'a, b ,,c' }, (v) => assert.deepEqual(v.eventFilter, ['a', 'b', 'c'])],
    ["the spec's event_filter spelling is accepted", 'payment', { event_filter: ['x'] }, (v) => assert.deepEqual(v.eventFilter, ['x'])],
    ['both spellings of the filter are refused', 'payment', { eventFilter: ['x'], event_filter: ['y'] }, ['body.event_filter']],
    [
      'mappings merge over the template',
      'payment',
      { fieldMappings: { tenant_id: '$.data.object.metadata.tenant' } },
      (v) => {
        assert.equal(v.fieldMappings.tenant_id, '$.data.object.metadata.tenant');
        assert.equal(v.fieldMappings.quantity, '$.data.object.amount');
      },
    ],
    ["the spec's field_mappings spelling is accepted", 'custom', { field_mappings: { quantity: 2 } }, (v) => assert.equal(v.fieldMappings.quantity, 2)],
    ['a null timestamp mapping removes it', 'payment', { fieldMappings: { timestamp: null } }, (v) => assert.equal(v.fieldMappings.timestamp, undefined)],
    ['an invalid JSONPath names its field', 'payment', { fieldMappings: { quantity: '$.a[' } }, ['body.fieldMappings.quantity']],
    ['match() is refused in mappings', 'custom', { fieldMappings: { quantity: "$[?match(@.a, 'x')].n" } }, ['body.fieldMappings.quantity']],
    ['eventTypeFrom takes a header', 'custom', { eventTypeFrom: { header: 'X-Event' } }, (v) => assert.deepEqual(v.eventTypeFrom, { header: 'X-Event' })],
    ['eventTypeFrom refuses a number', 'custom', { eventTypeFrom: 3 }, ['body.eventTypeFrom']],
    [
      'custom signature options are kept',
      'custom',
      { signature: { header: 'X-Sig', algorithm: 'sha1', encoding: 'base64', prefix: 'sha1=' } },
      (v) => assert.deepEqual(v.signatureOptions, { header: 'X-Sig', algorithm: 'sha1', encoding: 'base64', prefix: 'sha1=' }),
    ],
    ['a custom header name must be a token', 'custom', { signature: { header: 'X Sig' } }, ['body.signature.header']],
    ['code hosting may choose sha1', 'code_hosting', { signature: { algorithm: 'sha1' } }, (v) => assert.deepEqual(v.signatureOptions, { algorithm: 'sha1' })],
    ['code hosting may not move the header', 'code_hosting', { signature: { header: 'X-Other' } }, ['body.signature.header']],
    ["the payment provider's signature is fixed", 'payment', { signature: { algorithm: 'sha1' } }, ['body.signature.algorithm']],
    ['an empty secret is refused', 'payment', { signingSecret: '' }, ['body.signingSecret']],
    ['an email source takes a P-256 public key in PEM', 'email', { signingSecret: publicPem }, (v) => assert.equal(v.signingSecret, publicPem)],
    ["an email source takes the dashboard's base64 key", 'email', { signingSecret: publicBase64 }, (v) => assert.equal(v.signingSecret, publicBase64)],
    ['an email source refuses a private key', 'email', { signingSecret: privatePem }, ['body.signingSecret']],
    ['an email source refuses an RSA key', 'email', { signingSecret: rsaPublic }, ['body.signingSecret']],
    ['an email source refuses garbage', 'email', { signingSecret: 'not a key' }, ['body.signingSecret']],
    [
      'every problem is reported at once',
      'payment',
      { signingSecret: '', fieldMappings: { event_id: '$[' }, signature: { prefix: 'x' } },
      ['body.signature.prefix', 'body.fieldMappings.event_id', 'body.signingSecret'],
    ],
  ];
  for (const [name, provider, input, expected] of cases) {
    it(name, () => {
      const r = checkSourceSettings(provider, input, base(provider));
      if (typeof expected === 'function') {
        assert.equal(r.ok, true, JSON.stringify(r));
        if (r.ok) expected(r.value);
      } else {
        assert.equal(r.ok, false);
        if (!r.ok)
          assert.deepEqual(
            r.errors.map((e) => e.field),
            expected,
          );
      }
    });
  }
});

describe('plugs.secretHint', () => {
  const cases: Array<[string, string]> = [
    ['whsec_abcd1234', '1234'],
    [
      publicPem,
      publicPem
        .replace(/-----[A-Z ]+-----/g, '')
        .replace(/\s+/g, '')
        .slice(-4),
    ],
    ['ab', 'ab'],
  ];
  for (const [secret, hint] of cases) it(`hints ${JSON.stringify(secret.slice(0, 12))}… as ${hint}`, () => assert.equal(secretHint(secret), hint));
});
