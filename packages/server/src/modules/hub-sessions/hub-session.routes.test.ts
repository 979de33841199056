import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sha256Hex } from '../../lib/crypto.js';
import { findCredentialBySecret } from '../authentication/find-credential.js';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { hubBrowser, openedHubSession, type HubBrowser } from '../../../test/helpers/hub.js';

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const iso = (ms: number) => new Date(ms).toISOString();
const LINK = /\/hub#(hbl_test_[0-9a-f]{64})$/;

const auditEvents = (workspaceId: string, eventType: string) =>
  t.deps.db.selectFrom('auditEvents').selectAll().where('workspaceId', '=', workspaceId).where('eventType', '=', eventType).execute();

/** A tenant with a customer and a hub session minted for it through the API (not yet opened). */
async function minted(body: Record<string, unknown> = {}) {
  const ws = await t.seed.workspace();
  const admin = t.seed.client(ws.test.secretKey);
  const customer = await t.seed.customer(ws.test, { name: 'Ada' });
  const res = await admin.post('/api/v1/hub_sessions', { customerId: customer.id, ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const link = LINK.exec(res.body.url)?.[1] as string;
  return { ws, admin, customer, session: res.body as { id: string; expiresAt: string; url: string }, link };
}

const open = (token: string) => t.seed.client(null).post('/api/v1/hub/session', { token });

/** Minted and opened: a browser holding the cookie and the CSRF token. */
async function opened(body: Record<string, unknown> = {}): Promise<Awaited<ReturnType<typeof minted>> & { browser: HubBrowser }> {
  const m = await minted(body);
  return { ...m, browser: await openedHubSession(t.app, m.link) };
}

describe('POST /api/v1/hub_sessions', () => {
  it('200 mints a session for one customer with a single-use hbl_test_ link, shown once and stored only as its SHA-256', async () => {
    const ws = await t.seed.workspace();
    const customer = await t.seed.customer(ws.test);
    const res = await t.seed.client(ws.test.secretKey).post('/api/v1/hub_sessions', { customerId: customer.id });
    assert.equal(res.status, 200);
    assert.match(res.body.id, /^hses_[0-9a-z]{26}$/);
    assert.equal(res.body.object, 'hub_session');
    assert.equal(res.body.customerId, customer.id);
    assert.match(res.body.url, /^http:\/\/localhost(:80)?\/hub#hbl_test_[0-9a-f]{64}$/, 'the request’s own origin without PUBLIC_URL');
    assert.equal(res.body.expiresAt, iso(t.clock.now() + 3_600_000), 'default 3,600 s');
    assert.equal(res.body.createdAt, iso(t.clock.now()));
    assert.deepEqual([res.body.returnUrl, res.body.theme, res.body.openedAt, res.body.revokedAt], [null, {}, null, null]);

    const link = LINK.exec(res.body.url)![1]!;
    const rows = await t.deps.db.selectFrom('hubSessions').selectAll().where('workspaceId', '=', ws.workspaceId).execute();
    assert.equal(rows.length, 1);
    assert.deepEqual([rows[0]?.linkTokenHash, rows[0]?.tokenHash, rows[0]?.csrfHash], [sha256Hex(link), null, null]);
    for (const table of ['hubSessions', 'auditEvents'] as const) {
      for (const row of (await t.deps.db.selectFrom(table).selectAll().execute()) as unknown as Record<string, unknown>[]) {
        for (const [column, value] of Object.entries(row)) {
          if (typeof value === 'string') assert.ok(!value.includes(link.slice(9)), `${table}.${column} holds the link token`);
        }
      }
    }
    const events = await auditEvents(ws.workspaceId, 'hub_session.created');
    assert.equal(events.length, 1);
    assert.deepEqual([events[0]?.targetId, events[0]?.actorType], [res.body.id, 'WORKSPACE_KEY']);
  });

  it('200 keeps expiresInSeconds, returnUrl and the theme; an sk_live_ key mints an hbl_live_ link', async () => {
    const ws = await t.seed.workspace();
    const customer = await t.seed.customer(ws.live);
    const theme = { accentColor: '#12AB9f', logoUrl: 'https://shop.example.com/logo.svg', title: 'Acme developers' };
    const res = await t.seed
      .client(ws.live.secretKey)
      .post('/api/v1/hub_sessions', { customerId: customer.id, expiresInSeconds: 86_400, returnUrl: 'https://shop.example.com/account', theme });
    assert.equal(res.status, 200);
    assert.match(res.body.url, /#hbl_live_[0-9a-f]{64}$/);
    assert.equal(res.body.expiresAt, iso(t.clock.now() + 86_400_000));
    assert.equal(res.body.returnUrl, 'https://shop.example.com/account');
    assert.deepEqual(res.body.theme, theme);
  });

  it('200 builds the link on PUBLIC_URL when it is set', async () => {
    const other = await createTestApp({ config: { publicUrl: 'https://billing.example.com/tollgate' } });
    try {
      const ws = await other.seed.workspace();
      const customer = await other.seed.customer(ws.test);
      const res = await other.seed.client(ws.test.secretKey).post('/api/v1/hub_sessions', { customerId: customer.id });
      assert.match(res.body.url, /^https:\/\/billing\.example\.com\/tollgate\/hub#hbl_test_/);
    } finally {
      await other.close();
    }
  });

  it('200 the Idempotency-Key replay returns the same session with url null', async () => {
    const ws = await t.seed.workspace();
    const customer = await t.seed.customer(ws.test);
    const admin = t.seed.client(ws.test.secretKey);
    const headers = { 'idempotency-key': 'hses-once' };
    const first = await admin.post('/api/v1/hub_sessions', { customerId: customer.id }, headers);
    const replay = await admin.post('/api/v1/hub_sessions', { customerId: customer.id }, headers);
    assert.equal(replay.status, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body.id, first.body.id);
    assert.equal(replay.body.url, null);
    const stored = await t.deps.db.selectFrom('idempotencyKeys').select('responseBody').where('key', '=', 'hses-once').execute();
    assert.ok(!stored[0]?.responseBody.includes(LINK.exec(first.body.url)![1]!.slice(9)), 'the stored replay holds no link');
  });

  it('400 names the bad field: lifetime outside 300..86,400, a return URL or logo that is not one, a colour, a long title, unknown fields', async () => {
    const ws = await t.seed.workspace();
    const customer = await t.seed.customer(ws.test);
    const admin = t.seed.client(ws.test.secretKey);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ expiresInSeconds: 299 }, 'body.expiresInSeconds'],
      [{ expiresInSeconds: 86_401 }, 'body.expiresInSeconds'],
      [{ expiresInSeconds: 600.5 }, 'body.expiresInSeconds'],
      [{ returnUrl: 'ftp://shop.example.com' }, 'body.returnUrl'],
      [{ returnUrl: 'javascript:alert(1)' }, 'body.returnUrl'],
      [{ returnUrl: `https://shop.example.com/${'a'.repeat(2048)}` }, 'body.returnUrl'],
      [{ theme: { accentColor: 'red' } }, 'body.theme.accentColor'],
      [{ theme: { accentColor: '#12345' } }, 'body.theme.accentColor'],
      [{ theme: { logoUrl: 'http://shop.example.com/logo.png' } }, 'body.theme.logoUrl'],
      [{ theme: { title: 'x'.repeat(81) } }, 'body.theme.title'],
      [{ theme: { font: 'Comic Sans' } }, 'body.theme.font'],
      [{ subscriptionId: 'sub_x' }, 'body.subscriptionId'],
    ];
    for (const [body, field] of cases) {
      const res = await admin.post('/api/v1/hub_sessions', { customerId: customer.id, ...body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.errors[0].field, field, JSON.stringify(body));
    }
    assert.equal((await admin.post('/api/v1/hub_sessions', {})).body.errors[0].field, 'body.customerId');
    assert.equal(await t.deps.db.selectFrom('hubSessions').select('id').where('workspaceId', '=', ws.workspaceId).executeTakeFirst(), undefined);
  });

  it('403 for a workspace key without the admin scope, or a product key', async () => {
    const ws = await t.seed.workspace();
    const { customer, subscription } = await t.seed.subscription(ws.test);
    const keysOnly = await t.seed.workspaceKey(ws.test, ['keys:write']);
    const productKey = await t.seed.productKey(ws.test, subscription.id);
    for (const key of [keysOnly.token, productKey.token]) {
      const res = await t.seed.client(key).post('/api/v1/hub_sessions', { customerId: customer.id });
      assert.equal(res.status, 403);
      assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
    }
  });

  it("200 takes the customer's externalId as ingestion does (up to its 255 characters); the session is the customer's, by its cus_ id", async () => {
    const ws = await t.seed.workspace();
    const acme = await t.seed.customer(ws.test, { externalId: 'acme', name: 'Acme' });
    const long = await t.seed.customer(ws.test, { externalId: 'x'.repeat(255) });
    const admin = t.seed.client(ws.test.secretKey);
    // Ingestion names the customer by its externalId; so may the hub session.
    const metric = await admin.post('/api/v1/metrics', { name: 'api_calls' });
    assert.equal(metric.status, 200, JSON.stringify(metric.body));
    const ingested = await admin.post('/v1/ingest/batch', {
      events: [{ customerId: 'acme', metricName: 'api_calls', quantity: 1, occurredAt: iso(t.clock.now()) }],
    });
    assert.equal(ingested.status, 200, JSON.stringify(ingested.body));

    for (const [ref, customer] of [
      ['acme', acme],
      [acme.id, acme],
      ['x'.repeat(255), long],
    ] as const) {
      const res = await admin.post('/api/v1/hub_sessions', { customerId: ref });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.customerId, customer.id, 'the session names the cus_ id');
      const browser = await openedHubSession(t.app, LINK.exec(res.body.url)![1]!);
      assert.equal((await browser.get('/api/v1/hub/session')).body.customer.id, customer.id);
    }
    const [event] = await auditEvents(ws.workspaceId, 'hub_session.created');
    assert.equal(JSON.parse(event!.payload).customerId, acme.id);
  });

  it('404 for an externalId that names no customer here, in words that say both were tried', async () => {
    const ws = await t.seed.workspace();
    await t.seed.customer(ws.live, { externalId: 'acme' });
    const stranger = await t.seed.workspace();
    await t.seed.customer(stranger.test, { externalId: 'acme' });
    const res = await t.seed.client(ws.test.secretKey).post('/api/v1/hub_sessions', { customerId: 'acme' });
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].field, 'body.customerId');
    assert.equal(res.body.errors[0].message, "No customer with id or externalId 'acme' exists in this workspace and environment.");
  });

  it("404 for another workspace's customer, or one of the other environment", async () => {
    const ws = await t.seed.workspace();
    const customer = await t.seed.customer(ws.test);
    const liveCustomer = await t.seed.customer(ws.live);
    const stranger = await t.seed.workspace();
    for (const [key, id] of [
      [stranger.test.secretKey, customer.id],
      [ws.test.secretKey, liveCustomer.id],
    ] as const) {
      const res = await t.seed.client(key).post('/api/v1/hub_sessions', { customerId: id });
      assert.equal(res.status, 404);
      assert.equal(res.body.errors[0].code, 'NOT_FOUND');
      assert.equal(res.body.errors[0].field, 'body.customerId');
    }
  });
});

describe('POST /api/v1/hub/session', () => {
  it('200 exchanges the link for the __Host- cookie and a CSRF token, and writes hub_session.opened', async () => {
    const { ws, customer, session, link } = await minted({ returnUrl: 'https://shop.example.com/account', theme: { title: 'Acme' } });
    t.clock.advance(600_000);
    const res = await open(link);
    assert.equal(res.status, 200);
    const cookie = String(res.headers['set-cookie']);
    const secret = /^__Host-tollgate_hub=(hst_test_[0-9a-f]{64}); Path=\/; Max-Age=3000; HttpOnly; Secure; SameSite=Strict$/.exec(cookie)?.[1];
    assert.ok(secret, cookie);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.match(res.body.csrfToken, /^[0-9a-f]{64}$/);
    assert.deepEqual(res.body, {
      id: session.id,
      object: 'hub_session',
      expiresAt: session.expiresAt,
      returnUrl: 'https://shop.example.com/account',
      theme: { title: 'Acme' },
      customer: { id: customer.id, name: 'Ada', email: null },
      csrfToken: res.body.csrfToken,
    });
    const row = await t.deps.db.selectFrom('hubSessions').selectAll().where('id', '=', session.id).executeTakeFirstOrThrow();
    assert.deepEqual([row.tokenHash, row.csrfHash, row.linkUsedAt], [sha256Hex(secret), sha256Hex(res.body.csrfToken), t.clock.now()]);
    const events = await auditEvents(ws.workspaceId, 'hub_session.opened');
    assert.equal(events.length, 1);
    assert.deepEqual([events[0]?.actorType, events[0]?.actorId, events[0]?.source], ['HUB_SESSION', session.id, 'hub']);
  });

  it('401 the second time: the link works once, and the first browser keeps its session', async () => {
    const { link } = await minted();
    const first = await openedHubSession(t.app, link);
    const again = await open(link);
    assert.equal(again.status, 401);
    assert.equal(again.body.errors[0].code, 'UNAUTHENTICATED');
    assert.match(again.body.errors[0].message, /expired or has already been used\. Go back to the site you came from and open the developer hub again/);
    assert.equal(again.headers['set-cookie'], undefined);
    assert.equal((await first.get('/api/v1/hub/session')).status, 200);
  });

  it('401 for a link that expired or was revoked before it was opened, an unknown or malformed one, or one with the other environment’s prefix', async () => {
    const expired = await minted({ expiresInSeconds: 300 });
    const revoked = await minted();
    assert.equal((await revoked.admin.delete(`/api/v1/hub_sessions/${revoked.session.id}`)).status, 200);
    const live = await minted();
    t.clock.advance(300_000);
    for (const token of [expired.link, revoked.link, `hbl_test_${'0'.repeat(64)}`, 'hbl_test_short', live.link.replace('hbl_test_', 'hbl_live_')]) {
      const res = await open(token);
      assert.equal(res.status, 401, token);
      assert.match(res.body.errors[0].message, /open the developer hub again/);
    }
    assert.equal((await open(live.link)).status, 200, 'the environment check used up nothing');
  });

  it('400 without a token', async () => {
    const res = await t.seed.client(null).post('/api/v1/hub/session', {});
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'body.token');
  });
});

describe('GET /api/v1/hub/session', () => {
  it('200 with the cookie: the same view and the same CSRF token as when it was opened, never the secret', async () => {
    const { browser, session, customer } = await opened();
    const res = await browser.get('/api/v1/hub/session');
    assert.equal(res.status, 200);
    assert.equal(res.body.id, session.id);
    assert.equal(res.body.customer.id, customer.id);
    assert.equal(res.body.csrfToken, browser.csrfToken);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.ok(!res.raw.body.includes(browser.secret.slice(9)));
    assert.ok(res.headers['x-ratelimit-limit'], 'rate-limited');
  });

  it('200 until the last millisecond of its lifetime, 401 from expiresAt on, written to the log as the session’s auth.failed', async () => {
    const { browser, ws, session } = await opened({ expiresInSeconds: 300 });
    t.clock.advance(299_999);
    assert.equal((await browser.get('/api/v1/hub/session')).status, 200);
    t.clock.advance(1);
    const res = await browser.get('/api/v1/hub/session');
    assert.equal(res.status, 401);
    assert.equal(res.body.errors[0].code, 'UNAUTHENTICATED');
    assert.match(res.body.errors[0].message, /^This developer hub session has expired; go back to the seller's site and open the developer hub again\.$/);
    const failed = (await auditEvents(ws.workspaceId, 'auth.failed'))[0]!;
    assert.deepEqual([failed.actorType, failed.actorId, failed.source], ['HUB_SESSION', session.id, 'hub']);
  });

  it('401 at once when the seller revokes it, though it was cached', async () => {
    const { browser, admin, session } = await opened();
    assert.equal((await browser.get('/api/v1/hub/session')).status, 200);
    assert.equal((await admin.delete(`/api/v1/hub_sessions/${session.id}`)).status, 200);
    const res = await browser.get('/api/v1/hub/session');
    assert.equal(res.status, 401);
    assert.match(res.body.errors[0].message, /^This developer hub session has ended \(it was revoked\)/);
  });

  it('401 without the cookie, with an API key instead, or with a cookie that holds no hub session', async () => {
    const { ws, browser } = await opened();
    const none = await t.seed.client(null).get('/api/v1/hub/session');
    assert.equal(none.status, 401);
    assert.match(none.body.errors[0].message, /^No developer hub session/);
    const key = await t.seed.client(ws.test.secretKey).get('/api/v1/hub/session');
    assert.equal(key.status, 401);
    assert.match(key.body.errors[0].message, /API keys are not accepted here/);
    for (const value of [`hst_test_${'0'.repeat(64)}`, browser.secret.replace('hst_test_', 'hst_live_'), ws.test.secretKey, 'x']) {
      const res = await hubBrowser(t.app, value, browser.csrfToken).get('/api/v1/hub/session');
      assert.equal(res.status, 401, value);
      assert.match(res.body.errors[0].message, /^This developer hub session is not valid/);
    }
  });

  it('429 per session: one session over the limit does not slow another of the same workspace', async () => {
    const limited = await createTestApp({ config: { rateLimitPerMinute: 3 } });
    try {
      const ws = await limited.seed.workspace();
      const customer = await limited.seed.customer(ws.test);
      const admin = limited.seed.client(ws.test.secretKey);
      const links = [];
      for (let i = 0; i < 2; i++) links.push(LINK.exec((await admin.post('/api/v1/hub_sessions', { customerId: customer.id })).body.url)![1]!);
      const a = await openedHubSession(limited.app, links[0]!);
      const b = await openedHubSession(limited.app, links[1]!);
      for (let i = 0; i < 3; i++) assert.equal((await a.get('/api/v1/hub/session')).status, 200);
      const over = await a.get('/api/v1/hub/session');
      assert.equal(over.status, 429);
      assert.match(over.body.errors[0].message, /per hub session/);
      assert.equal((await b.get('/api/v1/hub/session')).status, 200);
    } finally {
      await limited.close();
    }
  });
});

describe('DELETE /api/v1/hub/session', () => {
  it('200 signs out: revoked at once, the cookie cleared', async () => {
    const { browser, ws, session } = await opened();
    const res = await browser.delete('/api/v1/hub/session');
    assert.equal(res.status, 200);
    assert.equal(res.body.revokedAt, iso(t.clock.now()));
    assert.match(String(res.headers['set-cookie']), /^__Host-tollgate_hub=; Path=\/; Max-Age=0; HttpOnly; Secure; SameSite=Strict$/);
    assert.equal((await browser.get('/api/v1/hub/session')).status, 401);
    const events = await auditEvents(ws.workspaceId, 'hub_session.revoked');
    assert.deepEqual([events[0]?.actorType, events[0]?.actorId, events[0]?.source], ['HUB_SESSION', session.id, 'hub']);
  });

  it('403 CSRF_FAILED without X-CSRF-Token, or with another session’s, and the session lives on', async () => {
    const { browser } = await opened();
    const other = await opened();
    for (const csrf of [null, other.browser.csrfToken, '', browser.secret]) {
      const res = await hubBrowser(t.app, browser.secret, csrf).delete('/api/v1/hub/session');
      assert.equal(res.status, 403, String(csrf));
      assert.equal(res.body.errors[0].code, 'CSRF_FAILED');
      assert.equal(res.body.errors[0].field, 'headers.x-csrf-token');
    }
    assert.equal((await browser.get('/api/v1/hub/session')).status, 200);
  });
});

describe('hub session secrets elsewhere', () => {
  it('401 as a Bearer key on the operator API, as a widget token, as a storefront key: unknown there', async () => {
    const { browser } = await opened();
    const asKey = await t.seed.client(browser.secret).get('/api/v1/customers');
    assert.equal(asKey.status, 401);
    assert.equal(asKey.body.errors[0].message, 'The API key is not valid.');
    assert.equal((await t.seed.client(browser.secret).get('/v1/widget/session')).status, 401);
    const headless = await t.seed.client(null).get('/api/v1/portal/headless/config', { 'x-storefront-key': browser.secret });
    assert.equal(headless.status, 401);
  });

  it('401 the hub cookie does not authenticate the operator API', async () => {
    const { browser } = await opened();
    const res = await browser.get('/api/v1/customers');
    assert.equal(res.status, 401);
  });

  it('POST /v1/keys/verify answers NOT_FOUND for a hub session secret', async () => {
    const { ws, browser } = await opened();
    const res = await t.seed.client(ws.test.secretKey).post('/v1/keys/verify', { key: browser.secret });
    assert.equal(res.status, 200);
    assert.deepEqual([res.body.valid, res.body.code], [false, 'NOT_FOUND']);
  });
});

describe('DELETE /api/v1/hub_sessions/:id', () => {
  it('200 revokes at once and writes hub_session.revoked; twice returns it unchanged with one event', async () => {
    const { ws, admin, session, browser } = await opened();
    t.clock.advance(1000);
    const first = await admin.delete(`/api/v1/hub_sessions/${session.id}`);
    assert.equal(first.status, 200);
    assert.equal(first.body.revokedAt, iso(t.clock.now()));
    assert.equal(first.body.url, undefined, 'never the link again');
    assert.equal((await findCredentialBySecret(t.deps, browser.secret))?.status, 'REVOKED');
    t.clock.advance(1000);
    const second = await admin.delete(`/api/v1/hub_sessions/${session.id}`);
    assert.deepEqual(second.body, first.body);
    const events = await auditEvents(ws.workspaceId, 'hub_session.revoked');
    assert.equal(events.length, 1);
    assert.equal(events[0]?.actorType, 'WORKSPACE_KEY');
  });

  it("404 for another workspace's session, which keeps working", async () => {
    const { session, browser } = await opened();
    const stranger = await t.seed.workspace();
    const res = await t.seed.client(stranger.test.secretKey).delete(`/api/v1/hub_sessions/${session.id}`);
    assert.equal(res.status, 404);
    assert.equal((await browser.get('/api/v1/hub/session')).status, 200);
  });
});
