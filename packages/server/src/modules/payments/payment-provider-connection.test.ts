import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hintOf, stripeSecretKeyProblem, stripeWebhookSecretProblem } from './payment-provider-connection.js';

const body = 'AbCdEf0123456789XyZ';

describe('stripeSecretKeyProblem: the key must be a secret key in the mode of the environment', () => {
  const cases: Array<[string, 'test' | 'live', RegExp | null]> = [
    [`sk_test_${body}`, 'test', null],
    [`rk_test_${body}`, 'test', null],
    [`sk_live_${body}`, 'live', null],
    [`rk_live_${body}`, 'live', null],
    [`sk_live_${body}`, 'test', /live-mode Stripe key; the test environment takes a test-mode key/],
    [`rk_live_${body}`, 'test', /live-mode/],
    [`sk_test_${body}`, 'live', /test-mode Stripe key; the live environment takes a live-mode key/],
    [`pk_test_${body}`, 'test', /publishable key/],
    [`pk_live_${body}`, 'live', /publishable key/],
    [`whsec_${body}`, 'test', /webhook signing secret \(whsec_…\); send it as webhookSecret/],
    ['sk_test_short', 'test', /reads sk_test_…/],
    [`sk_test_${body}!`, 'test', /reads sk_test_…/],
    [`sk_other_${body}`, 'test', /reads sk_test_…/],
    ['', 'test', /reads sk_test_…/],
  ];
  for (const [key, env, problem] of cases) {
    it(`${key.slice(0, 12) || '(empty)'}… in ${env}: ${problem ? 'refused' : 'accepted'}`, () => {
      const got = stripeSecretKeyProblem(key, env);
      if (problem === null) assert.equal(got, null);
      else assert.match(got ?? '', problem);
    });
  }
});

describe('stripeWebhookSecretProblem', () => {
  const cases: Array<[string, boolean]> = [
    [`whsec_${body}`, true],
    ['whsec_' + 'a'.repeat(240), true],
    ['whsec_' + 'a'.repeat(241), false],
    ['whsec_short', false],
    [`sk_test_${body}`, false],
    [`whsec_${body} `, false],
  ];
  for (const [secret, ok] of cases) {
    it(`${secret.slice(0, 14)}… (${secret.length} chars): ${ok ? 'accepted' : 'refused'}`, () => assert.equal(stripeWebhookSecretProblem(secret) === null, ok));
  }
});

describe('hintOf', () => {
  it('shows the last four characters only', () => assert.equal(hintOf(`sk_test_${body}`), '…9XyZ'));
});
