import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';

/**
 * The widget demo page (development profile, the demo workspace created at this start): every
 * load mints a working widget session for the demo subscription and hands it to both widgets.
 */
const apps: TestApp[] = [];
after(async () => {
  for (const a of apps) await a.close();
});

describe('GET /demo/account', () => {
  it('development profile: the account page with the widget in both modes, a fresh working session per load', async () => {
    const t = await createTestApp({ demo: true, config: { profile: 'development' } });
    apps.push(t);
    const res = await t.app.inject({ method: 'GET', url: '/demo/account' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.match(res.body, /<script src="\/widget\/v1\/tollgate-widget\.js"><\/script>/);
    const tags = [...res.body.matchAll(/<tollgate-upgrade-cancel mode="(\w+)"[^>]*token="(wst_test_[^"]+)"/g)];
    assert.deepEqual(
      tags.map((m) => m[1]),
      ['upgrade', 'cancel'],
    );
    assert.match(res.body, /render-mode="inline" default-apply-at="PERIOD_END"/, 'the cancel flow inline, PERIOD_END first');
    const token = tags[0]![2]!;
    const session = await t.seed.client(token).get('/v1/widget/session');
    assert.equal(session.status, 200, JSON.stringify(session.body));
    assert.equal(session.body.subscriptionId, t.demo!.environments.test.subscriptionId);
    const again = await t.app.inject({ method: 'GET', url: '/demo/account' });
    assert.notEqual(again.body.match(/token="(wst_[^"]+)"/)![1], token, 'a new session per load');
  });

  it('the demo subscription cancelled: a 409 page that says how to start again', async () => {
    const t = await createTestApp({ demo: true, config: { profile: 'development' } });
    apps.push(t);
    const env = t.demo!.environments.test;
    assert.equal((await t.seed.client(env.secretKey).post(`/api/v1/subscriptions/${env.subscriptionId}/cancel`, {})).status, 200);
    const res = await t.app.inject({ method: 'GET', url: '/demo/account' });
    assert.equal(res.statusCode, 409);
    assert.match(res.body, /npx tollgate demo/);
  });

  it('other profiles serve no demo page', async () => {
    const t = await createTestApp({ demo: true });
    apps.push(t);
    assert.equal((await t.app.inject({ method: 'GET', url: '/demo/account' })).statusCode, 404);
  });
});
