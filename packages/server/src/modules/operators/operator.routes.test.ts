import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sha256Hex } from '../../lib/crypto.js';
import type { OperatorRole } from '../../lib/principal.js';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Response, TenantHandle } from '../../../test/helpers/seed.js';
import { createOperator } from './create-operator.js';

let t: TestApp;

before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const PASSWORD = 'correct horse battery staple';
let ipCounter = 0;
/** Each test signs in from its own address, so the per-IP limits of one test never touch another. */
const nextIp = () => `198.51.100.${++ipCounter}`;

const auditEvents = (workspaceId: string | null, eventType: string) =>
  t.deps.db
    .selectFrom('auditEvents')
    .selectAll()
    .where('eventType', '=', eventType)
    .$call((q) => (workspaceId === null ? q.where('workspaceId', 'is', null) : q.where('workspaceId', '=', workspaceId)))
    .execute();

async function operator(ws: TenantHandle, role: OperatorRole = 'admin', email = `${role}-${ipCounter}-${Math.random().toString(36).slice(2, 8)}@example.com`) {
  const op = await createOperator(
    t.deps,
    { workspaceId: ws.workspaceId, email, name: 'Ada', role, password: PASSWORD },
    { actor: { type: 'SYSTEM', id: 'test' }, correlationId: 'c', source: 'system' },
  );
  return op;
}

/** A browser: keeps the console cookie it is given and sends it, with the CSRF token when asked. */
class Browser {
  cookie: string | null = null;
  csrf: string | null = null;
  constructor(readonly ip = nextIp()) {}

  async request(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const h: Record<string, string> = { ...headers };
    if (this.cookie) h.cookie = this.cookie;
    if (body !== undefined) h['content-type'] = 'application/json';
    const res = await t.app.inject({ method, url, headers: h, payload: body === undefined ? undefined : JSON.stringify(body), remoteAddress: this.ip });
    const setCookie = res.headers['set-cookie'];
    if (typeof setCookie === 'string') {
      const [pair] = setCookie.split(';');
      this.cookie = /Max-Age=0\b/.test(setCookie) ? null : (pair ?? null);
    }
    let parsed: unknown = res.body;
    if (String(res.headers['content-type'] ?? '').includes('json') && res.body !== '') parsed = JSON.parse(res.body);
    return { status: res.statusCode, headers: res.headers, body: parsed, raw: res };
  }

  /** With the session's CSRF token, as the console sends every change. */
  change(method: 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}) {
    return this.request(method, url, body, { 'x-csrf-token': this.csrf ?? '', ...headers });
  }

  async signIn(email: string, password = PASSWORD, extra: Record<string, unknown> = {}): Promise<Response> {
    const res = await this.request('POST', '/api/v1/operator_sessions', { email, password, ...extra });
    if (res.status === 200) this.csrf = res.body.csrfToken;
    return res;
  }
}

async function signedIn(role: OperatorRole = 'admin') {
  const ws = await t.seed.workspace();
  const op = await operator(ws, role);
  const browser = new Browser();
  const res = await browser.signIn(op.email);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { ws, op, browser };
}

describe('POST /api/v1/operator_sessions (sign in)', () => {
  it('200 sets a __Host- cookie (HttpOnly, Secure, SameSite=Strict) and answers who, where and the CSRF token', async () => {
    const ws = await t.seed.workspace();
    const op = await operator(ws, 'admin', 'Ada@Example.com');
    const browser = new Browser();
    const res = await browser.signIn('ada@EXAMPLE.com');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const setCookie = String(res.headers['set-cookie']);
    assert.match(setCookie, /^__Host-tollgate_console=tgc_[0-9a-f]{64}; Path=\/; Max-Age=43200; HttpOnly; Secure; SameSite=Strict$/);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.body.object, 'operator_session');
    assert.match(res.body.id, /^opses_/);
    assert.deepEqual(res.body.operator, {
      id: op.id,
      object: 'operator',
      email: 'ada@example.com',
      name: 'Ada',
      role: 'admin',
      createdAt: new Date(t.clock.now()).toISOString(),
    });
    assert.deepEqual(res.body.workspace, { id: ws.workspaceId, name: 'Test workspace' });
    assert.match(res.body.csrfToken, /^[0-9a-f]{64}$/);
    assert.equal(res.body.expiresAt, new Date(t.clock.now() + 12 * 3600_000).toISOString());

    const secret = (browser.cookie ?? '').split('=')[1] ?? '';
    const row = await t.deps.db.selectFrom('operatorSessions').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow();
    assert.equal(row.tokenHash, sha256Hex(secret), 'kept only as its SHA-256');
    assert.equal(row.ip, browser.ip);
    const user = await t.deps.db.selectFrom('operatorUsers').selectAll().where('id', '=', op.id).executeTakeFirstOrThrow();
    assert.ok(!user.passwordHash.includes(PASSWORD) && user.passwordHash.startsWith('scrypt$'));

    const [event] = await auditEvents(ws.workspaceId, 'operator.signed_in');
    assert.equal(event?.actorType, 'OPERATOR');
    assert.equal(event?.actorId, op.id);
    assert.equal(event?.source, 'console');
    assert.equal(event?.environment, 'test');
  });

  it('401 for a wrong password and for an unknown e-mail alike, each audited with its reason', async () => {
    const ws = await t.seed.workspace();
    const op = await operator(ws);
    const wrong = await new Browser().signIn(op.email, 'not the password at all');
    const unknown = await new Browser().signIn('nobody-here@example.com');
    for (const res of [wrong, unknown]) {
      assert.equal(res.status, 401);
      assert.equal(res.headers['set-cookie'], undefined);
      assert.deepEqual(res.body.errors, [{ code: 'UNAUTHENTICATED', message: 'The e-mail or the password is not right.', field: 'body.password' }]);
    }
    const [failed] = await auditEvents(ws.workspaceId, 'operator.sign_in_failed');
    assert.equal(failed?.severity, 'WARN');
    assert.equal(failed?.targetId, op.id);
    assert.equal(JSON.parse(failed?.payload ?? '{}').reason, 'wrong_password');
    const anonymous = (await auditEvents(null, 'operator.sign_in_failed')).map((e) => JSON.parse(e.payload) as { email: string; reason: string });
    assert.ok(anonymous.some((p) => p.email === 'nobody-here@example.com' && p.reason === 'unknown_email'));
  });

  it('400 names the field that is missing or malformed', async () => {
    const browser = new Browser();
    const missing = await browser.request('POST', '/api/v1/operator_sessions', { password: PASSWORD });
    assert.equal(missing.status, 400);
    assert.ok(
      missing.body.errors.some((e: { field?: string }) => e.field === 'body.email'),
      JSON.stringify(missing.body),
    );
    const bad = await browser.request('POST', '/api/v1/operator_sessions', { email: 'not an email', password: PASSWORD });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.errors.some((e: { field?: string }) => e.field === 'body.email'));
  });

  it('an e-mail that is an operator of several workspaces gets the same 401 as an unknown one for a wrong password, audited in each', async () => {
    const [a, b] = [await t.seed.workspace(), await t.seed.workspace()];
    const email = `two-wrong-${Date.now()}@example.com`;
    const [opA, opB] = [await operator(a, 'admin', email), await operator(b, 'viewer', email)];
    const several = await new Browser().signIn(email, 'not the password at all');
    const unknown = await new Browser().signIn(`nobody-${Date.now()}@example.com`, 'not the password at all');
    for (const res of [several, unknown]) {
      assert.equal(res.status, 401);
      assert.deepEqual(res.body.errors, [{ code: 'UNAUTHENTICATED', message: 'The e-mail or the password is not right.', field: 'body.password' }]);
    }
    for (const [ws, op] of [
      [a, opA],
      [b, opB],
    ] as const) {
      const events = await auditEvents(ws.workspaceId, 'operator.sign_in_failed');
      assert.deepEqual(
        events.map((e) => [e.targetId, (JSON.parse(e.payload) as { reason: string }).reason]),
        [[op.id, 'wrong_password']],
      );
    }
  });

  it('an e-mail of several workspaces whose password fits only one signs in to that one without workspaceId', async () => {
    const [a, b] = [await t.seed.workspace(), await t.seed.workspace()];
    const email = `two-passwords-${Date.now()}@example.com`;
    await operator(a, 'admin', email);
    await createOperator(
      t.deps,
      { workspaceId: b.workspaceId, email, name: 'Ada', role: 'viewer', password: 'another password, long enough' },
      { actor: { type: 'SYSTEM', id: 'test' }, correlationId: 'c', source: 'system' },
    );
    const res = await new Browser().signIn(email, 'another password, long enough');
    assert.equal(res.status, 200);
    assert.equal(res.body.workspace.id, b.workspaceId);
    assert.equal(res.body.operator.role, 'viewer');
  });

  it('400 asks which workspace when the right password fits several, and signs in to the one named', async () => {
    const [a, b] = [await t.seed.workspace(), await t.seed.workspace()];
    const email = `two-${Date.now()}@example.com`;
    await operator(a, 'admin', email);
    await operator(b, 'viewer', email);
    const browser = new Browser();
    const ambiguous = await browser.signIn(email);
    assert.equal(ambiguous.status, 400);
    assert.equal(ambiguous.body.errors[0].field, 'body.workspaceId');
    const chosen = await browser.signIn(email, PASSWORD, { workspaceId: b.workspaceId });
    assert.equal(chosen.status, 200);
    assert.equal(chosen.body.workspace.id, b.workspaceId);
    assert.equal(chosen.body.operator.role, 'viewer');
  });

  it('429 after 5 attempts per IP address and e-mail in 15 minutes, with Retry-After; audited; the window passes', async () => {
    const ws = await t.seed.workspace();
    const op = await operator(ws);
    const browser = new Browser();
    for (let i = 0; i < 5; i++) assert.equal((await browser.signIn(op.email, 'wrong password here')).status, 401);
    const limited = await browser.signIn(op.email);
    assert.equal(limited.status, 429, 'even the right password is refused while limited');
    assert.equal(limited.headers['retry-after'], '900');
    assert.equal(limited.body.errors[0].code, 'RATE_LIMITED');
    const events = (await auditEvents(ws.workspaceId, 'operator.sign_in_failed')).map((e) => JSON.parse(e.payload).reason as string);
    assert.deepEqual(events.filter((r) => r === 'rate_limited').length, 1);
    // Another e-mail from the same address is its own bucket; the same e-mail from elsewhere too.
    assert.equal((await new Browser(browser.ip).signIn('someone-else@example.com')).status, 401);
    assert.equal((await new Browser().signIn(op.email)).status, 200);
    t.clock.advance(15 * 60_000);
    assert.equal((await browser.signIn(op.email)).status, 200);
  });
});

describe('the console cookie on the operator routes', () => {
  it('200 reads with the cookie instead of an API key, in test by default and in live when asked', async () => {
    const { ws, browser } = await signedIn('viewer');
    await t.seed.client(ws.test.secretKey).post('/api/v1/customers', { name: 'Test customer' });
    await t.seed.client(ws.live.secretKey).post('/api/v1/customers', { name: 'Live customer' });
    const test = await browser.request('GET', '/api/v1/customers');
    assert.equal(test.status, 200, JSON.stringify(test.body));
    assert.deepEqual(
      test.body.data.map((c: { name: string }) => c.name),
      ['Test customer'],
    );
    const live = await browser.request('GET', '/api/v1/customers', undefined, { 'x-tollgate-environment': 'live' });
    assert.deepEqual(
      live.body.data.map((c: { name: string }) => c.name),
      ['Live customer'],
    );
  });

  it('400 for an environment header that is neither test nor live', async () => {
    const { browser } = await signedIn();
    const res = await browser.request('GET', '/api/v1/customers', undefined, { 'x-tollgate-environment': 'prod' });
    assert.equal(res.status, 400);
    assert.equal(res.body.errors[0].field, 'headers.x-tollgate-environment');
  });

  it('200 an admin changes with the CSRF token, audited as the operator from the console', async () => {
    const { ws, op, browser } = await signedIn('admin');
    const res = await browser.change('POST', '/api/v1/customers', { name: 'Made in the console' }, { 'x-tollgate-environment': 'live' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [event] = await auditEvents(ws.workspaceId, 'customer.created');
    assert.equal(event?.environment, 'live');
    assert.equal(event?.actorType, 'OPERATOR');
    assert.equal(event?.actorId, op.id);
    assert.equal(event?.source, 'console');
  });

  it('403 CSRF_FAILED for a change without the token or with another session’s', async () => {
    const { browser } = await signedIn('admin');
    const other = await signedIn('admin');
    const none = await browser.request('POST', '/api/v1/customers', { name: 'x' });
    assert.equal(none.status, 403);
    assert.equal(none.body.errors[0].code, 'CSRF_FAILED');
    const foreign = await browser.request('POST', '/api/v1/customers', { name: 'x' }, { 'x-csrf-token': other.browser.csrf ?? '' });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.errors[0].code, 'CSRF_FAILED');
  });

  it('403 a viewer who tries a change, whatever the page sends; reads still work', async () => {
    const { browser } = await signedIn('viewer');
    for (const [method, url, body] of [
      ['POST', '/api/v1/customers', { name: 'x' }],
      ['POST', '/api/v1/api-keys', { kind: 'WORKSPACE', name: 'k', scopes: ['admin'] }],
      ['POST', '/api/v1/operator_invitations', { email: 'new@example.com', role: 'admin' }],
    ] as const) {
      const res = await browser.change(method, url, body);
      assert.equal(res.status, 403, `${method} ${url}`);
      assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
      assert.match(res.body.errors[0].message, /viewer/);
    }
    assert.equal((await browser.request('GET', '/api/v1/operators')).status, 200);
  });

  it('an Authorization header wins over the cookie: a bad key is 401 even with a good cookie', async () => {
    const { browser } = await signedIn();
    const res = await browser.request('GET', '/api/v1/customers', undefined, { authorization: 'Bearer sk_test_00000000000000000000000000000000' });
    assert.equal(res.status, 401);
  });

  it('401 the cookie is not a credential on storefront or widget routes', async () => {
    const { browser } = await signedIn();
    assert.equal((await browser.request('GET', '/api/v1/portal/headless/config')).status, 401);
    assert.equal((await browser.request('GET', '/v1/widget/session')).status, 401);
  });

  it('404 another workspace’s resources are not there', async () => {
    const { browser } = await signedIn();
    const other = await t.seed.workspace();
    const created = await t.seed.client(other.test.secretKey).post('/api/v1/customers', { name: 'Theirs' });
    assert.equal((await browser.request('GET', `/api/v1/customers/${created.body.id}`)).status, 404);
  });
});

describe('GET and DELETE /api/v1/operator_sessions/current', () => {
  it('200 answers the session with the same CSRF token; DELETE signs out at once and clears the cookie', async () => {
    const { ws, browser } = await signedIn('viewer');
    const current = await browser.request('GET', '/api/v1/operator_sessions/current');
    assert.equal(current.status, 200);
    assert.equal(current.body.csrfToken, browser.csrf);
    const cookie = browser.cookie;
    const out = await browser.change('DELETE', '/api/v1/operator_sessions/current');
    assert.equal(out.status, 200, 'a viewer may sign out');
    assert.equal(out.body.deleted, true);
    assert.match(String(out.headers['set-cookie']), /^__Host-tollgate_console=; Path=\/; Max-Age=0/);
    browser.cookie = cookie;
    const after = await browser.request('GET', '/api/v1/operator_sessions/current');
    assert.equal(after.status, 401);
    assert.equal((await auditEvents(ws.workspaceId, 'operator.signed_out')).length, 1);
  });

  it('401 without a cookie, with an API key, or after the 12 hours', async () => {
    const { ws, browser } = await signedIn();
    assert.equal((await new Browser().request('GET', '/api/v1/operator_sessions/current')).status, 401);
    assert.equal((await t.seed.client(ws.test.secretKey).get('/api/v1/operator_sessions/current')).status, 401);
    t.clock.advance(12 * 3600_000 - 1);
    assert.equal((await browser.request('GET', '/api/v1/customers')).status, 200);
    t.clock.advance(1);
    const expired = await browser.request('GET', '/api/v1/customers');
    assert.equal(expired.status, 401);
    assert.match(expired.body.errors[0].message, /sign in again/);
  });

  it('403 signing out needs the CSRF token too', async () => {
    const { browser } = await signedIn();
    assert.equal((await browser.request('DELETE', '/api/v1/operator_sessions/current')).status, 403);
  });
});

describe('operators and invitations', () => {
  it('200 an admin invites; the link works once, signs the new operator in with the invited role', async () => {
    const { ws, op, browser } = await signedIn('admin');
    const invite = await browser.change('POST', '/api/v1/operator_invitations', { email: 'New.Person@example.com', role: 'viewer' });
    assert.equal(invite.status, 200, JSON.stringify(invite.body));
    assert.equal(invite.body.email, 'new.person@example.com');
    assert.equal(invite.body.invitedBy, op.id);
    assert.match(invite.body.token, /^tgi_[0-9a-f]{64}$/);
    assert.equal(invite.body.url, `http://localhost:80/console/accept#${invite.body.token}`, "the request's own origin without PUBLIC_URL");

    const weak = await new Browser().request('POST', '/api/v1/operator_invitations/accept', { token: invite.body.token, name: 'New', password: 'short' });
    assert.equal(weak.status, 400);
    assert.equal(weak.body.errors[0].field, 'body.password');

    const newcomer = new Browser();
    const accepted = await newcomer.request('POST', '/api/v1/operator_invitations/accept', {
      token: invite.body.token,
      name: 'New Person',
      password: PASSWORD,
    });
    assert.equal(accepted.status, 200, 'a weak password did not use the link up');
    assert.equal(accepted.body.operator.role, 'viewer');
    assert.equal(accepted.body.workspace.id, ws.workspaceId);
    assert.ok(newcomer.cookie);
    const again = await new Browser().request('POST', '/api/v1/operator_invitations/accept', { token: invite.body.token, name: 'Again', password: PASSWORD });
    assert.equal(again.status, 401);
    assert.equal(again.body.errors[0].field, 'body.token');

    const list = await browser.request('GET', '/api/v1/operators');
    assert.deepEqual(list.body.data.map((o: { email: string }) => o.email).sort(), [op.email, 'new.person@example.com'].sort());
    for (const type of ['operator.invited', 'operator.invitation_accepted', 'operator.created']) {
      assert.ok((await auditEvents(ws.workspaceId, type)).length >= 1, type);
    }
  });

  it('401 an expired invitation; 409 inviting a current operator', async () => {
    const { op, browser } = await signedIn('admin');
    assert.equal((await browser.change('POST', '/api/v1/operator_invitations', { email: op.email, role: 'admin' })).status, 409);
    const invite = await browser.change('POST', '/api/v1/operator_invitations', { email: 'late@example.com', role: 'admin' });
    t.clock.advance(7 * 24 * 3600_000);
    const late = await new Browser().request('POST', '/api/v1/operator_invitations/accept', { token: invite.body.token, name: 'Late', password: PASSWORD });
    assert.equal(late.status, 401);
  });

  it('200 an API key with the admin scope may invite too', async () => {
    const ws = await t.seed.workspace();
    const res = await t.seed.client(ws.test.secretKey).post('/api/v1/operator_invitations', { email: 'by-key@example.com', role: 'admin' });
    assert.equal(res.status, 200);
    assert.equal(res.body.invitedBy, ws.test.keyId);
  });

  it('200 removing an operator ends their sessions at once; 409 for the last admin; 404 for an unknown one', async () => {
    const { ws, op, browser } = await signedIn('admin');
    const viewer = await operator(ws, 'viewer');
    const viewerBrowser = new Browser();
    await viewerBrowser.signIn(viewer.email);
    assert.equal((await viewerBrowser.request('GET', '/api/v1/customers')).status, 200);
    const removed = await browser.change('DELETE', `/api/v1/operators/${viewer.id}`);
    assert.equal(removed.status, 200);
    assert.equal((await viewerBrowser.request('GET', '/api/v1/customers')).status, 401, 'at once');
    assert.equal((await new Browser().signIn(viewer.email)).status, 401, 'cannot sign in again');
    const last = await browser.change('DELETE', `/api/v1/operators/${op.id}`);
    assert.equal(last.status, 409);
    assert.match(last.body.errors[0].message, /last admin/);
    assert.equal((await browser.change('DELETE', '/api/v1/operators/op_unknown')).status, 404);
    // The removed e-mail may be invited again.
    assert.equal((await browser.change('POST', '/api/v1/operator_invitations', { email: viewer.email, role: 'viewer' })).status, 200);
  });
});
