/**
 * Spec, Authentication 8: "the key is passed explicitly at client initialisation; the client does
 * not read it from the environment. The SDK adds the Authorization header on every request."
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Tollgate, TollgateError } from '../src/index.js';
import { serverBehindProxy } from './helpers/fault-proxy.js';

const env = serverBehindProxy();

describe('Authentication 8: the key is passed explicitly, never read from the environment', () => {
  const names = ['TOLLGATE_API_KEY', 'TOLLGATE_KEY', 'TOLLGATE_SECRET_KEY', 'API_KEY'];

  it('a missing key throws, even with a valid key in every likely environment variable', () => {
    for (const name of names) process.env[name] = env.server.key;
    try {
      assert.throws(
        () => new Tollgate({ baseUrl: env.server.baseUrl } as never),
        (e: unknown) => e instanceof TypeError && /apiKey is required/.test(e.message),
      );
      assert.throws(() => new Tollgate({ apiKey: '', baseUrl: env.server.baseUrl }), /apiKey is required/);
      assert.throws(() => new Tollgate({ apiKey: undefined as never, baseUrl: env.server.baseUrl }), /never reads it from the environment/);
    } finally {
      for (const name of names) delete process.env[name];
    }
  });

  it('the explicit key is used, not the environment’s: a wrong key is refused with 401 though a valid one is in the environment', async () => {
    process.env.TOLLGATE_API_KEY = env.server.key;
    try {
      const tg = new Tollgate({ apiKey: 'sk_test_00000000000000000000000000000000', baseUrl: env.server.baseUrl, flushOnExit: false });
      const err = await tg.customers.list().catch((e: unknown) => e);
      assert.ok(err instanceof TollgateError);
      assert.equal(err.status, 401);
    } finally {
      delete process.env.TOLLGATE_API_KEY;
    }
  });

  it('every request carries Authorization: Bearer <key>: ingestion, entitlement check and operator calls', async () => {
    const tg = new Tollgate({ apiKey: env.server.key, baseUrl: env.proxy.baseUrl, now: env.server.now, flushOnExit: false });
    const s = await env.server.subscribed();
    tg.track({ customerId: s.customerId, metricName: 'api_calls', quantity: 1 });
    await tg.flush();
    await tg.check(s.customerId, s.productId);
    await tg.customers.get(s.customerId);
    await tg.subscriptions.get(s.subscriptionId);
    assert.equal(env.proxy.seen.length, 4);
    for (const seen of env.proxy.seen) assert.equal(seen.headers.authorization, `Bearer ${env.server.key}`, seen.url);
  });
});
