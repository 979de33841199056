import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readForwarderConfig } from './forwarder-config.js';
import { ForwarderError } from './types.js';

const base = { TOLLGATE_URL: 'https://tollgate.example.com', TOLLGATE_API_KEY: 'sk_live_0123456789abcdef0123456789abcdef' };

describe("the Lambda's configuration from its environment", () => {
  it('defaults: consumer field apiKeyId, metric api_calls', () => {
    assert.deepEqual(readForwarderConfig(base), {
      url: base.TOLLGATE_URL,
      apiKey: base.TOLLGATE_API_KEY,
      mapping: { consumerField: 'apiKeyId', metricName: 'api_calls' },
    });
  });
  it('TOLLGATE_CONSUMER_FIELD and TOLLGATE_METRIC_NAME override them', () => {
    const c = readForwarderConfig({ ...base, TOLLGATE_CONSUMER_FIELD: 'principalId', TOLLGATE_METRIC_NAME: 'requests' });
    assert.deepEqual(c.mapping, { consumerField: 'principalId', metricName: 'requests' });
  });
  const invalid: Array<[what: string, env: Record<string, string>, message: RegExp]> = [
    ['TOLLGATE_URL is required', { TOLLGATE_API_KEY: base.TOLLGATE_API_KEY }, /TOLLGATE_URL is not set/],
    ['TOLLGATE_URL must be a URL', { ...base, TOLLGATE_URL: 'tollgate' }, /TOLLGATE_URL is not a URL/],
    ['TOLLGATE_API_KEY is required', { TOLLGATE_URL: base.TOLLGATE_URL }, /TOLLGATE_API_KEY is not set/],
  ];
  for (const [rule, env, message] of invalid) {
    it(`INVALID_CONFIG: ${rule}`, () => {
      assert.throws(
        () => readForwarderConfig(env),
        (err: unknown) => err instanceof ForwarderError && err.code === 'INVALID_CONFIG' && message.test(err.message),
      );
    });
  }
});
