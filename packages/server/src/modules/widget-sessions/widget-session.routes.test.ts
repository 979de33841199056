import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sha256Hex } from '../../lib/crypto.js';
import { findCredentialBySecret } from '../authentication/find-credential.js';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const SHOP = 'https://shop.example.com';
const iso = (ms: number) => new Date(ms).toISOString();

const auditEvents = (workspaceId: string, eventType: string) =>
  t.deps.db.selectFrom('auditEvents').selectAll().where('workspaceId', '=', workspaceId).where('eventType', '=', eventType).execute();

async function tenant(): Promise<{ ws: TenantHandle; admin: Client; live: Client }> {
  const ws = await t.seed.workspace();
  return { ws, admin: t.seed.client(ws.test.secretKey), live: t.seed.client(ws.live.secretKey) };
}

/** A tenant with a subscription and a session minted for it through the API. */
async function minted(body: Record<string, unknown> = {}) {
  const { ws, admin } = await tenant();
  const { subscription, customer } = await t.seed.subscription(ws.test);
  const res = await admin.post('/api/v1/widget_sessions', { subscriptionId: subscription.id, ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const session = res.body as { id: string; token: string; expiresAt: string; subscriptionId: string; customerId: string };
  return { ws, admin, subscription, customer, session, widget: t.seed.client(session.token) };
}

describe('POST /api/v1/widget_sessions', () => {
  it('200 mints a wst_test_ token for one subscription, shown once and stored only as its SHA-256', async () => {
    const { ws, admin } = await tenant();
    const { subscription, customer } = await t.seed.subscription(ws.test);
    const res = await admin.post('/api/v1/widget_sessions', { subscriptionId: subscription.id });
    assert.equal(res.status, 200);
    assert.equal(res.body.object, 'widget_session');
    assert.match(res.body.id, /^wses_[0-9a-z]{26}$/);
    assert.match(res.body.token, /^wst_test_[0-9a-f]{64}$/);
    assert.equal(res.body.subscriptionId, subscription.id);
    assert.equal(res.body.customerId, customer.id);
    assert.deepEqual(res.body.allowedOrigins, []);
    assert.equal(res.body.createdAt, iso(t.clock.now()));
    assert.equal(res.body.expiresAt, iso(t.clock.now() + 900_000), 'default 900 s');
    assert.equal(res.body.revokedAt, null);

    const rows = await t.deps.db.selectFrom('widgetSessions').selectAll().where('workspaceId', '=', ws.workspaceId).execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.tokenHash, sha256Hex(res.body.token));
    assert.equal(rows[0]?.environment, 'test');
    const secret = res.body.token.slice('wst_test_'.length);
    for (const table of ['widgetSessions', 'auditEvents'] as const) {
      const all = (await t.deps.db.selectFrom(table).selectAll().execute()) as unknown as Record<string, unknown>[];
      for (const row of all) {
        for (const [column, value] of Object.entries(row)) {
          if (typeof value === 'string') assert.ok(!value.includes(secret), `${table}.${column} holds the token`);
        }
      }
    }
    const events = await auditEvents(ws.workspaceId, 'widget_session.created');
    assert.equal(events.length, 1);
    assert.equal(events[0]?.targetId, res.body.id);
    assert.equal(events[0]?.actorType, 'WORKSPACE_KEY');
  });

  it('200 an sk_live_ key mints a wst_live_ session for a live subscription', async () => {
    const { ws, live } = await tenant();
    const { subscription } = await t.seed.subscription(ws.live);
    const res = await live.post('/api/v1/widget_sessions', { subscriptionId: subscription.id });
    assert.equal(res.status, 200);
    assert.match(res.body.token, /^wst_live_[0-9a-f]{64}$/);
  });

  it('200 keeps expiresInSeconds and the allowed origins, each once', async () => {
    const { ws, admin } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test);
    const res = await admin.post('/api/v1/widget_sessions', {
      subscriptionId: subscription.id,
      expiresInSeconds: 60,
      allowedOrigins: [SHOP, 'http://localhost:3000', SHOP],
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.expiresAt, iso(t.clock.now() + 60_000));
    assert.deepEqual(res.body.allowedOrigins, [SHOP, 'http://localhost:3000']);
  });

  it('200 the Idempotency-Key replay returns the same session with token null', async () => {
    const { ws, admin } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test);
    const headers = { 'idempotency-key': 'wses-once' };
    const first = await admin.post('/api/v1/widget_sessions', { subscriptionId: subscription.id }, headers);
    const replay = await admin.post('/api/v1/widget_sessions', { subscriptionId: subscription.id }, headers);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body.id, first.body.id);
    assert.equal(replay.body.token, null);
    const stored = await t.deps.db.selectFrom('idempotencyKeys').select('responseBody').where('key', '=', 'wses-once').execute();
    assert.equal(stored.length, 1);
    assert.ok(!stored[0]?.responseBody.includes(first.body.token.slice(9)), 'the stored replay holds no token');
  });

  it('400 names body.expiresInSeconds outside 60..3600', async () => {
    const { ws, admin } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test);
    for (const expiresInSeconds of [59, 3601, 0, 90.5]) {
      const res = await admin.post('/api/v1/widget_sessions', { subscriptionId: subscription.id, expiresInSeconds });
      assert.equal(res.status, 400, String(expiresInSeconds));
      assert.equal(res.body.errors[0].code, 'VALIDATION_FAILED');
      assert.equal(res.body.errors[0].field, 'body.expiresInSeconds');
    }
  });

  it('400 names body.allowedOrigins with more than 10 origins', async () => {
    const { ws, admin } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test);
    const allowedOrigins = Array.from({ length: 11 }, (_, i) => `https://shop${i}.example.com`);
    const res = await admin.post('/api/v1/widget_sessions', { subscriptionId: subscription.id, allowedOrigins });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'body.allowedOrigins');
    assert.match(res.body.errors[0].message, /at most 10/);
  });

  it('400 names the origin that is not one: a path, a trailing slash, upper case, another scheme, no URL, too long', async () => {
    const { ws, admin } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test);
    const cases: Array<[string, RegExp]> = [
      ['https://shop.example.com/checkout', /'https:\/\/shop\.example\.com'/],
      ['https://shop.example.com/', /no path or trailing slash/],
      ['https://Shop.Example.com', /'https:\/\/shop\.example\.com'/],
      ['https://shop.example.com:443', /'https:\/\/shop\.example\.com'/],
      ['ftp://shop.example.com', /web origin/],
      ['shop.example.com', /web origin/],
      ['*', /web origin/],
    ];
    for (const [bad, message] of cases) {
      const res = await admin.post('/api/v1/widget_sessions', { subscriptionId: subscription.id, allowedOrigins: [SHOP, bad] });
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.errors[0].field, 'body.allowedOrigins.1', bad);
      assert.match(res.body.errors[0].message, message, bad);
    }
    const long = await admin.post('/api/v1/widget_sessions', { subscriptionId: subscription.id, allowedOrigins: [`https://${'a'.repeat(200)}.com`] });
    assert.equal(long.status, 400);
    assert.equal(long.body.errors[0].field, 'body.allowedOrigins.0');
    assert.equal(await t.deps.db.selectFrom('widgetSessions').select('id').where('workspaceId', '=', ws.workspaceId).executeTakeFirst(), undefined);
  });

  it('400 names body.subscriptionId when it is missing, and unknown fields', async () => {
    const { admin } = await tenant();
    const missing = await admin.post('/api/v1/widget_sessions', {});
    assert.equal(missing.status, 400);
    assert.equal(missing.body.errors[0].field, 'body.subscriptionId');
    const extra = await admin.post('/api/v1/widget_sessions', { subscriptionId: 'sub_x', customerId: 'cus_x' });
    assert.equal(extra.status, 400);
    assert.equal(extra.body.errors[0].field, 'body.customerId');
  });

  it("404 for another workspace's subscription, or one of the other environment", async () => {
    const { ws } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test);
    const { subscription: liveSub } = await t.seed.subscription(ws.live);
    const { admin: stranger } = await tenant();
    const res = await stranger.post('/api/v1/widget_sessions', { subscriptionId: subscription.id });
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
    assert.equal(res.body.errors[0].field, 'body.subscriptionId');
    const wrongEnv = await t.seed.client(ws.test.secretKey).post('/api/v1/widget_sessions', { subscriptionId: liveSub.id });
    assert.equal(wrongEnv.status, 404);
  });

  it('409 SUBSCRIPTION_NOT_ACTIVE for a cancelled subscription', async () => {
    const { ws, admin } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test);
    assert.equal((await admin.post(`/api/v1/subscriptions/${subscription.id}/cancel`)).status, 200);
    const res = await admin.post('/api/v1/widget_sessions', { subscriptionId: subscription.id });
    assert.equal(res.status, 409);
    assert.equal(res.body.errors[0].code, 'SUBSCRIPTION_NOT_ACTIVE');
    assert.equal(res.body.errors[0].field, 'body.subscriptionId');
  });

  it('403 for a workspace key without the admin scope', async () => {
    const { ws } = await tenant();
    const { subscription } = await t.seed.subscription(ws.test);
    const keys = await t.seed.workspaceKey(ws.test, ['keys:write']);
    const res = await t.seed.client(keys.token).post('/api/v1/widget_sessions', { subscriptionId: subscription.id });
    assert.equal(res.status, 403);
    assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
  });

  it('401 with a widget session token (403 with a product key): minting takes a workspace key with the admin scope', async () => {
    const { ws, subscription, widget } = await minted();
    const res = await widget.post('/api/v1/widget_sessions', { subscriptionId: subscription.id });
    assert.equal(res.status, 401);
    assert.equal(res.body.errors[0].code, 'UNAUTHENTICATED');
    const productKey = await t.seed.productKey(ws.test, subscription.id);
    const byProductKey = await t.seed.client(productKey.token).post('/api/v1/widget_sessions', { subscriptionId: subscription.id });
    assert.equal(byProductKey.status, 403);
  });
});

describe('GET /v1/widget/session', () => {
  it('200 with the session token: its subscription, customer and expiry, never the token', async () => {
    const { session, widget, subscription, customer } = await minted();
    const res = await widget.get('/v1/widget/session', { origin: SHOP });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      id: session.id,
      object: 'widget_session',
      subscriptionId: subscription.id,
      customerId: customer.id,
      expiresAt: session.expiresAt,
    });
    assert.ok(!res.raw.body.includes(session.token.slice(9)));
    assert.equal(res.headers['access-control-allow-origin'], SHOP, 'no allowed origins: any page may call');
    assert.equal(res.headers.vary, 'Origin');
    assert.ok(res.headers['x-ratelimit-limit'], 'rate-limited');
  });

  it('200 until the last millisecond of its lifetime, 401 SESSION_EXPIRED from expiresAt on (test clock frozen, then moved)', async () => {
    const { widget } = await minted({ expiresInSeconds: 60 });
    t.clock.advance(59_999);
    assert.equal((await widget.get('/v1/widget/session')).status, 200);
    t.clock.advance(1);
    const res = await widget.get('/v1/widget/session', { origin: SHOP });
    assert.equal(res.status, 401);
    assert.equal(res.body.errors[0].code, 'SESSION_EXPIRED');
    assert.match(res.body.errors[0].message, /^This widget session has expired; the seller's page must start a new one/);
    assert.equal(res.headers['www-authenticate'], 'Bearer');
    assert.equal(res.headers['access-control-allow-origin'], SHOP, 'the widget can read why');
  });

  it('200 still when its subscription has been cancelled since: the widget shows the outcome', async () => {
    const { admin, subscription, widget } = await minted();
    assert.equal((await admin.post(`/api/v1/subscriptions/${subscription.id}/cancel`)).status, 200);
    assert.equal((await widget.get('/v1/widget/session')).status, 200);
  });

  it('401 SESSION_EXPIRED once revoked, at once, saying the page must start a new session', async () => {
    const { admin, session, widget, ws } = await minted();
    assert.equal((await widget.get('/v1/widget/session')).status, 200, 'resolved and cached before the revocation');
    assert.equal((await admin.delete(`/api/v1/widget_sessions/${session.id}`)).status, 200);
    const res = await widget.get('/v1/widget/session');
    assert.equal(res.status, 401);
    assert.equal(res.body.errors[0].code, 'SESSION_EXPIRED');
    assert.match(res.body.errors[0].message, /^This widget session has expired \(it was revoked\); the seller's page must start a new one/);
    const failed = (await auditEvents(ws.workspaceId, 'auth.failed'))[0]!;
    assert.equal(failed.actorType, 'WIDGET_SESSION');
    assert.equal(failed.actorId, session.id);
    assert.equal(failed.source, 'widget');
  });

  it('401 "This route takes a widget session token" for a workspace key, a product key, a storefront key or an access-token-like secret', async () => {
    const { ws, subscription } = await minted();
    const productKey = await t.seed.productKey(ws.test, subscription.id);
    const sf = await t.seed.client(ws.test.secretKey).post('/api/v1/storefronts', { name: 'Site' });
    const pk = await t.seed.client(ws.test.secretKey).post('/api/v1/storefront-keys', { name: 'site', storefrontId: sf.body.id });
    for (const key of [ws.test.secretKey, productKey.token, pk.body.fullToken, `sk_test_${'0'.repeat(32)}`, 'not-a-key']) {
      const res = await t.seed.client(key).get('/v1/widget/session', { origin: SHOP });
      assert.equal(res.status, 401, key);
      assert.equal(res.body.errors[0].code, 'UNAUTHENTICATED');
      assert.match(res.body.errors[0].message, /^This route takes a widget session token/);
      assert.equal(res.headers['access-control-allow-origin'], SHOP);
    }
    const failed = await auditEvents(ws.workspaceId, 'auth.failed');
    assert.ok(
      failed.some((e) => e.actorType === 'WORKSPACE_KEY' && e.actorId === ws.test.keyId),
      'a secret key sent to a browser route is on its workspace’s log',
    );
  });

  it('401 UNAUTHENTICATED, never SESSION_EXPIRED, without Authorization, with an unknown token, or with its environment prefix altered', async () => {
    const { session } = await minted();
    const none = await t.seed.client(null).get('/v1/widget/session');
    assert.deepEqual([none.status, none.body.errors[0].code], [401, 'UNAUTHENTICATED']);
    assert.match(none.body.errors[0].message, /Authorization: Bearer wst_/);
    for (const token of [`wst_test_${'0'.repeat(64)}`, session.token.replace('wst_test_', 'wst_live_')]) {
      const res = await t.seed.client(token).get('/v1/widget/session');
      assert.deepEqual([res.status, res.body.errors[0].code], [401, 'UNAUTHENTICATED'], 'nothing says whether it ever existed');
      assert.equal(res.body.errors[0].message, 'The widget session token is not valid.');
    }
  });

  it('200 from an allowed origin with it echoed; 403 ORIGIN_NOT_ALLOWED naming another origin or none', async () => {
    const { widget } = await minted({ allowedOrigins: [SHOP, 'http://localhost:3000'] });
    const ok = await widget.get('/v1/widget/session', { origin: 'http://localhost:3000' });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['access-control-allow-origin'], 'http://localhost:3000');
    assert.equal(ok.headers.vary, 'Origin');
    const other = await widget.get('/v1/widget/session', { origin: 'https://evil.example' });
    assert.equal(other.status, 403);
    assert.equal(other.body.errors[0].code, 'ORIGIN_NOT_ALLOWED');
    assert.equal(other.body.errors[0].field, 'headers.origin');
    assert.match(other.body.errors[0].message, /origin 'https:\/\/evil\.example'/);
    assert.match(other.body.errors[0].message, /https:\/\/shop\.example\.com, http:\/\/localhost:3000/);
    const none = await widget.get('/v1/widget/session');
    assert.equal(none.status, 403);
    assert.match(none.body.errors[0].message, /no Origin header/);
  });

  it('429 per session: one session over the limit does not slow another of the same workspace', async () => {
    const limited = await createTestApp({ config: { rateLimitPerMinute: 3 } });
    try {
      const ws = await limited.seed.workspace();
      const { subscription } = await limited.seed.subscription(ws.test);
      const admin = limited.seed.client(ws.test.secretKey);
      const a = (await admin.post('/api/v1/widget_sessions', { subscriptionId: subscription.id })).body.token as string;
      const b = (await admin.post('/api/v1/widget_sessions', { subscriptionId: subscription.id })).body.token as string;
      for (let i = 0; i < 3; i++) assert.equal((await limited.seed.client(a).get('/v1/widget/session')).status, 200);
      const over = await limited.seed.client(a).get('/v1/widget/session', { origin: SHOP });
      assert.equal(over.status, 429);
      assert.match(over.body.errors[0].message, /per widget session/);
      assert.equal(over.headers['access-control-allow-origin'], SHOP);
      assert.equal((await limited.seed.client(b).get('/v1/widget/session')).status, 200);
    } finally {
      await limited.close();
    }
  });
});

describe('OPTIONS /v1/widget/*', () => {
  it('204 answers the preflight of any widget route without credentials, echoing the origin', async () => {
    for (const url of ['/v1/widget/session', '/v1/widget/preview-change', '/v1/widget/upgrade']) {
      const res = await t.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: SHOP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      assert.equal(res.statusCode, 204, url);
      assert.equal(res.headers['access-control-allow-origin'], SHOP);
      assert.equal(res.headers['access-control-allow-methods'], 'GET, POST');
      assert.equal(res.headers['access-control-allow-headers'], 'Authorization, Content-Type, Idempotency-Key, X-Correlation-Id');
      assert.equal(res.headers['access-control-max-age'], '600');
      assert.equal(res.headers.vary, 'Origin');
      assert.equal(res.body, '');
    }
  });

  it('204 with no Access-Control-Allow-Origin for an Origin that is not a web origin', async () => {
    const res = await t.app.inject({ method: 'OPTIONS', url: '/v1/widget/session', headers: { origin: 'null' } });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
  });
});

describe('widget session tokens elsewhere', () => {
  it('401 on the operator API, on the headless configuration and as an operator key: unknown there', async () => {
    const { widget, session } = await minted();
    const res = await widget.get('/api/v1/customers');
    assert.equal(res.status, 401);
    assert.equal(res.body.errors[0].message, 'The API key is not valid.');
    const headless = await t.seed.client(null).get('/api/v1/portal/headless/config', { 'x-storefront-key': session.token });
    assert.equal(headless.status, 401);
  });

  it('POST /v1/keys/verify answers NOT_FOUND for a widget session token', async () => {
    const { ws, session } = await minted();
    const res = await t.seed.client(ws.test.secretKey).post('/v1/keys/verify', { key: session.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.valid, false);
    assert.equal(res.body.code, 'NOT_FOUND');
  });
});

describe('DELETE /api/v1/widget_sessions/:id', () => {
  it('200 revokes at once and writes widget_session.revoked; twice returns it unchanged with one event', async () => {
    const { ws, admin, session } = await minted();
    t.clock.advance(1000);
    const first = await admin.delete(`/api/v1/widget_sessions/${session.id}`);
    assert.equal(first.status, 200);
    assert.equal(first.body.revokedAt, iso(t.clock.now()));
    assert.equal(first.body.token, undefined, 'never the token again');
    assert.equal((await findCredentialBySecret(t.deps, session.token))?.status, 'REVOKED');
    t.clock.advance(1000);
    const second = await admin.delete(`/api/v1/widget_sessions/${session.id}`);
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);
    const events = await auditEvents(ws.workspaceId, 'widget_session.revoked');
    assert.equal(events.length, 1);
    assert.equal(events[0]?.targetId, session.id);
  });

  it("404 for another workspace's session, which keeps working", async () => {
    const { session, widget } = await minted();
    const { admin: stranger } = await tenant();
    const res = await stranger.delete(`/api/v1/widget_sessions/${session.id}`);
    assert.equal(res.status, 404);
    assert.equal((await widget.get('/v1/widget/session')).status, 200);
  });
});
