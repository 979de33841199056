// The operator API for outbound webhook endpoints (/api/v1/webhook-endpoints), through the real
// app, with the SSRF guard on and an injected resolver: hooks.example is public, evil.test points
// at 127.0.0.1.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';
import { ok, rejects } from '../../../test/helpers/expect.js';
import { transaction } from '../../db/transaction.js';
import type { HostResolver } from './resolve-destination.js';
import { emitWebhookEvents } from './emit-webhook-events.js';
import { listDeliveriesOfMessage, listTenantMessages } from './webhook-message.repository.js';
import { secretAssociatedData } from './webhook-endpoint.js';

const dns: Record<string, string[]> = { 'hooks.example': ['93.184.216.34'], 'evil.test': ['127.0.0.1'], 'v6evil.test': ['::1'] };
const resolver: HostResolver = async (name) => {
  const found = dns[name];
  if (!found) throw Object.assign(new Error(`ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return found;
};

let t: TestApp;
let ws: TenantHandle;
let api: Client;

before(async () => {
  t = await createTestApp({
    config: { rateLimitPerMinute: 1_000_000, outboundWebhookAllowPrivateAddresses: false, outboundWebhookAllowHttp: true },
    webhooks: { resolver },
  });
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
});
after(() => t.close());

const HOOK = 'https://hooks.example/tollgate';
const create = (body: Record<string, unknown> = {}, client: Client = api, headers?: Record<string, string>) =>
  client.post('/api/v1/webhook-endpoints', { url: HOOK, eventTypes: ['subscription.*'], ...body }, headers);
const iso = (ms: number) => new Date(ms).toISOString();

async function row(id: string) {
  return t.deps.db.selectFrom('webhookEndpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}
async function audits(targetId: string) {
  const rows = await t.deps.db.selectFrom('auditEvents').selectAll().where('targetId', '=', targetId).orderBy('seq').execute();
  return rows.map((r) => ({ eventType: r.eventType, payload: r.payload }));
}
async function emitUpgrade(subId: string) {
  await transaction(t.deps.db, (trx) =>
    emitWebhookEvents(trx, t.deps, [
      {
        origin: { workspaceId: ws.workspaceId, environment: 'test', correlationId: 'req_x' },
        event: { type: 'subscription.upgraded', orderingKey: subId, data: { object: { id: subId, object: 'subscription' } } },
      },
    ]),
  );
  const m = (await listTenantMessages(t.deps.db, ws.test)).find((x) => x.orderingKey === subId)!;
  return (endpointId: string) => listDeliveriesOfMessage(t.deps.db, ws.test, m.id).then((ds) => ds.find((d) => d.endpointId === endpointId)!);
}

describe('POST /api/v1/webhook-endpoints', () => {
  it('200 returns the endpoint and its whsec_ secret once; GET shows only the hint; the secret is sealed at rest', async () => {
    const created = await ok(create({ description: 'Billing backend', metadata: { team: 'billing' } }));
    assert.match(created.id, /^we_/);
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(
      { ...created, id: undefined, secret: undefined },
      {
        id: undefined,
        secret: undefined,
        object: 'webhook_endpoint',
        environment: 'test',
        url: HOOK,
        description: 'Billing backend',
        eventTypes: ['subscription.*'],
        status: 'enabled',
        disabledReason: null,
        disabledAt: null,
        failingSince: null,
        maxConcurrency: 16,
        secretHint: `whsec_…${created.secret.slice(-4)}`,
        previousSecretExpiresAt: null,
        metadata: { team: 'billing' },
        createdAt: iso(t.clock.now()),
        updatedAt: iso(t.clock.now()),
      },
    );
    const got = await ok(api.get(`/api/v1/webhook-endpoints/${created.id}`));
    assert.equal('secret' in got, false);
    const { secret: _shownOnce, ...shown } = created;
    assert.deepEqual(got, shown);
    const r = await row(created.id);
    assert.ok(!r.secretCiphertext.includes(created.secret.slice(6)));
    assert.equal(t.deps.secrets.open({ ciphertext: r.secretCiphertext, keyId: r.secretKeyId }, secretAssociatedData(created.id)), created.secret);
    const audit = await audits(created.id);
    assert.deepEqual(
      audit.map((a) => a.eventType),
      ['webhook_endpoint.created'],
    );
    assert.ok(!audit[0]!.payload.includes(created.secret.slice(6)), 'the audit event never holds the secret');
  });

  it('200 an Idempotency-Key replay answers the same endpoint with secret null', async () => {
    const headers = { 'idempotency-key': 'endpoint-once' };
    const first = await api.post('/api/v1/webhook-endpoints', { url: HOOK, eventTypes: ['invoice.paid'] }, headers);
    const again = await api.post('/api/v1/webhook-endpoints', { url: HOOK, eventTypes: ['invoice.paid'] }, headers);
    assert.equal(first.status, 200);
    assert.match(first.body.secret, /^whsec_/);
    assert.equal(again.status, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.body, { ...first.body, secret: null });
  });

  it('200 with a secret of your own, a concurrency, disabled, the URL in canonical form and "*" absorbing the rest', async () => {
    const secret = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
    const created = await ok(
      create({ url: 'https://HOOKS.example:443/a?b=1', secret, maxConcurrency: 4, enabled: false, eventTypes: ['invoice.paid', '*', 'invoice.paid'] }),
    );
    assert.deepEqual(
      [created.secret, created.url, created.maxConcurrency, created.status, created.disabledReason, created.disabledAt, created.eventTypes],
      [secret, 'https://hooks.example/a?b=1', 4, 'disabled', 'manual', iso(t.clock.now()), ['*']],
    );
  });

  it('400 names the unknown event type by index', async () => {
    const e = await rejects(create({ eventTypes: ['invoice.paid', 'invoice.exploded'] }), 'body.eventTypes[1]');
    assert.match(e.message, /invoice\.exploded/);
    await rejects(create({ eventTypes: ['webhook.test'] }), 'body.eventTypes[0]');
    await rejects(create({ eventTypes: [] }), 'body.eventTypes');
    await rejects(create({ eventTypes: Array.from({ length: 51 }, () => 'invoice.paid') }), 'body.eventTypes');
  });

  for (const [rule, url] of [
    ['a user name and password', 'https://user:pass@hooks.example/x'],
    ['a fragment', 'https://hooks.example/x#top'],
    ['ftp', 'ftp://hooks.example/x'],
    ['no URL at all', 'hooks.example/x'],
  ] as const) {
    it(`400 body.url: ${rule}`, async () => {
      await rejects(create({ url }), 'body.url');
    });
  }

  it('400 body.secret that is not whsec_ and 24-64 bytes of base64', async () => {
    await rejects(create({ secret: 'whsec_short' }), 'body.secret');
    await rejects(create({ secret: Buffer.alloc(32).toString('base64') }), 'body.secret');
  });

  it('400 an unknown field, a concurrency out of range, a description too long', async () => {
    await rejects(create({ colour: 'blue' }), 'body.colour');
    await rejects(create({ maxConcurrency: 257 }), 'body.maxConcurrency');
    await rejects(create({ description: 'x'.repeat(501) }), 'body.description');
  });

  const refused: Array<[string, string]> = [
    ['127.0.0.1', 'https://127.0.0.1/hook'],
    ['10.1.2.3', 'https://10.1.2.3/hook'],
    ['169.254.169.254 (metadata)', 'http://169.254.169.254/latest/meta-data'],
    ['[::1]', 'https://[::1]/hook'],
    ['[fe80::1]', 'https://[fe80::1]/hook'],
    ['[::ffff:127.0.0.1]', 'https://[::ffff:127.0.0.1]/hook'],
    ['[fd00:ec2::254] (metadata)', 'http://[fd00:ec2::254]/latest'],
    ['2130706433 (decimal)', 'https://2130706433/hook'],
    ['0177.0.0.1 (octal)', 'https://0177.0.0.1/hook'],
    ['0x7f.1 (hex)', 'https://0x7f.1/hook'],
    ['localhost', 'https://localhost:8443/hook'],
    ['evil.test, which resolves to 127.0.0.1', 'https://evil.test/hook'],
    ['v6evil.test, which resolves to ::1', 'https://v6evil.test/hook'],
  ];
  for (const [form, url] of refused) {
    it(`422 URL_NOT_ALLOWED: ${form}`, async () => {
      const res = await create({ url });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.deepEqual(
        res.body.errors.map((e: { code: string; field: string }) => [e.code, e.field]),
        [['URL_NOT_ALLOWED', 'body.url']],
      );
    });
  }

  it('401 without a key', async () => assert.equal((await create({}, t.seed.client(null))).status, 401));

  it('403 INSUFFICIENT_SCOPE for a key without admin, on every route', async () => {
    const { token } = await t.seed.workspaceKey(ws.test, ['keys:write', 'events:read']);
    const other = t.seed.client(token);
    const id = (await ok(create())).id;
    for (const res of [
      await create({}, other),
      await other.get('/api/v1/webhook-endpoints'),
      await other.get(`/api/v1/webhook-endpoints/${id}`),
      await other.patch(`/api/v1/webhook-endpoints/${id}`, { description: 'x' }),
      await other.delete(`/api/v1/webhook-endpoints/${id}`),
      await other.post(`/api/v1/webhook-endpoints/${id}/rotate-secret`, {}),
    ]) {
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
    }
  });
});

describe('POST /api/v1/webhook-endpoints: deployment policies', () => {
  it('422 URL_NOT_ALLOWED for http where OUTBOUND_WEBHOOK_ALLOW_HTTP is off (production), and TOO_MANY_ENDPOINTS past the limit', async () => {
    const strict = await createTestApp({ config: { outboundWebhookAllowHttp: false, outboundWebhookMaxEndpoints: 2 }, webhooks: { resolver } });
    try {
      const w = await strict.seed.workspace();
      const c = strict.seed.client(w.test.secretKey);
      const http = await c.post('/api/v1/webhook-endpoints', { url: 'http://hooks.example/x', eventTypes: ['*'] });
      assert.deepEqual([http.status, http.body.errors[0].code, http.body.errors[0].field], [422, 'URL_NOT_ALLOWED', 'body.url']);
      await ok(c.post('/api/v1/webhook-endpoints', { url: HOOK, eventTypes: ['*'] }));
      await ok(c.post('/api/v1/webhook-endpoints', { url: HOOK, eventTypes: ['*'] }));
      const third = await c.post('/api/v1/webhook-endpoints', { url: HOOK, eventTypes: ['*'] });
      assert.deepEqual([third.status, third.body.errors[0].code], [422, 'TOO_MANY_ENDPOINTS']);
      // The live environment has a limit of its own.
      await ok(strict.seed.client(w.live.secretKey).post('/api/v1/webhook-endpoints', { url: HOOK, eventTypes: ['*'] }));
    } finally {
      await strict.close();
    }
  });

  it('200 for private addresses where OUTBOUND_WEBHOOK_ALLOW_PRIVATE_ADDRESSES is on (development)', async () => {
    const dev = await createTestApp({ config: { outboundWebhookAllowPrivateAddresses: true, outboundWebhookAllowHttp: true } });
    try {
      const w = await dev.seed.workspace();
      const created = await ok(dev.seed.client(w.test.secretKey).post('/api/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', eventTypes: ['*'] }));
      assert.equal(created.url, 'http://127.0.0.1:9/hook');
    } finally {
      await dev.close();
    }
  });
});

describe('GET /api/v1/webhook-endpoints', () => {
  let w: TenantHandle;
  let c: Client;
  const made: string[] = [];
  before(async () => {
    w = await t.seed.workspace('Listing');
    c = t.seed.client(w.test.secretKey);
    for (let i = 0; i < 3; i++) made.push((await ok(c.post('/api/v1/webhook-endpoints', { url: `${HOOK}/${i}`, eventTypes: ['*'] }))).id);
    await ok(c.patch(`/api/v1/webhook-endpoints/${made[1]}`, { enabled: false }));
  });

  it('200 newest first, with paging', async () => {
    const first = await ok(c.get('/api/v1/webhook-endpoints?limit=2'));
    assert.deepEqual(
      first.data.map((e: { id: string }) => e.id),
      [made[2], made[1]],
    );
    assert.equal(first.hasMore, true);
    assert.ok(first.data.every((e: Record<string, unknown>) => !('secret' in e)));
    const next = await ok(c.get(`/api/v1/webhook-endpoints?limit=2&startingAfter=${made[1]}`));
    assert.deepEqual([next.data.map((e: { id: string }) => e.id), next.hasMore], [[made[0]], false]);
  });

  it('200 status=disabled lists the disabled ones, with their reason', async () => {
    const disabled = await ok(c.get('/api/v1/webhook-endpoints?status=disabled'));
    assert.deepEqual(
      disabled.data.map((e: { id: string; disabledReason: string }) => [e.id, e.disabledReason]),
      [[made[1], 'manual']],
    );
  });

  it('200 only the key’s workspace and environment', async () => {
    assert.deepEqual((await ok(t.seed.client(w.live.secretKey).get('/api/v1/webhook-endpoints'))).data, []);
  });

  it('400 query.status outside the enumeration', async () => {
    await rejects(c.get('/api/v1/webhook-endpoints?status=broken'), 'query.status');
  });
});

describe('GET, PATCH, DELETE /api/v1/webhook-endpoints/{id}', () => {
  it('200 PATCH changes the URL, filters and description; audited', async () => {
    const { id } = await ok(create());
    const patched = await ok(
      api.patch(`/api/v1/webhook-endpoints/${id}`, { url: `${HOOK}/v2`, eventTypes: ['invoice.*', 'api_key.revoked'], description: 'v2' }),
    );
    assert.deepEqual([patched.url, patched.eventTypes, patched.description], [`${HOOK}/v2`, ['invoice.*', 'api_key.revoked'], 'v2']);
    assert.deepEqual(await ok(api.get(`/api/v1/webhook-endpoints/${id}`)), patched);
    assert.deepEqual(
      (await audits(id)).map((a) => a.eventType),
      ['webhook_endpoint.created', 'webhook_endpoint.updated'],
    );
  });

  it('200 PATCH enabled: false disables (manual) and fails its pending deliveries; true enables again and clears the notice', async () => {
    const { id } = await ok(create());
    const delivery = await emitUpgrade('sub_disable_me');
    assert.equal((await delivery(id)).status, 'pending');
    const disabled = await ok(api.patch(`/api/v1/webhook-endpoints/${id}`, { enabled: false }));
    assert.deepEqual([disabled.status, disabled.disabledReason, disabled.disabledAt], ['disabled', 'manual', iso(t.clock.now())]);
    assert.deepEqual([(await delivery(id)).status, (await delivery(id)).lastError], ['failed', 'endpoint_disabled']);
    const enabled = await ok(api.patch(`/api/v1/webhook-endpoints/${id}`, { enabled: true }));
    assert.deepEqual([enabled.status, enabled.disabledReason, enabled.disabledAt, enabled.failingSince], ['enabled', null, null, null]);
    assert.deepEqual(
      (await audits(id)).map((a) => a.eventType),
      ['webhook_endpoint.created', 'webhook_endpoint.disabled', 'webhook_endpoint.enabled'],
    );
  });

  it('200 DELETE: then 404, and its pending deliveries fail', async () => {
    const { id } = await ok(create());
    const delivery = await emitUpgrade('sub_delete_me');
    assert.deepEqual(await ok(api.delete(`/api/v1/webhook-endpoints/${id}`)), { id, object: 'webhook_endpoint', deleted: true });
    assert.equal((await api.get(`/api/v1/webhook-endpoints/${id}`)).status, 404);
    assert.deepEqual([(await delivery(id)).status, (await delivery(id)).lastError], ['failed', 'endpoint_deleted']);
    assert.equal((await api.delete(`/api/v1/webhook-endpoints/${id}`)).status, 404);
  });

  it('400 PATCH names the bad field; an empty body is refused', async () => {
    const { id } = await ok(create());
    await rejects(api.patch(`/api/v1/webhook-endpoints/${id}`, { eventTypes: ['*', 'nope'] }), 'body.eventTypes[1]');
    await rejects(api.patch(`/api/v1/webhook-endpoints/${id}`, { url: 'https://hooks.example/#x' }), 'body.url');
    await rejects(api.patch(`/api/v1/webhook-endpoints/${id}`, { secret: 'whsec_x' }), 'body.secret');
    assert.equal((await api.patch(`/api/v1/webhook-endpoints/${id}`, {})).status, 400);
  });

  it('422 PATCH to a URL the guard refuses', async () => {
    const { id } = await ok(create());
    const res = await api.patch(`/api/v1/webhook-endpoints/${id}`, { url: 'https://evil.test/x' });
    assert.deepEqual([res.status, res.body.errors[0].code, res.body.errors[0].field], [422, 'URL_NOT_ALLOWED', 'body.url']);
    assert.equal((await ok(api.get(`/api/v1/webhook-endpoints/${id}`))).url, HOOK);
  });

  it('404 for another workspace’s endpoint, or the other environment’s, on every route', async () => {
    const { id } = await ok(create());
    const other = await t.seed.workspace('Other');
    for (const c of [t.seed.client(other.test.secretKey), t.seed.client(ws.live.secretKey)]) {
      for (const res of [
        await c.get(`/api/v1/webhook-endpoints/${id}`),
        await c.patch(`/api/v1/webhook-endpoints/${id}`, { description: 'mine now' }),
        await c.delete(`/api/v1/webhook-endpoints/${id}`),
        await c.post(`/api/v1/webhook-endpoints/${id}/rotate-secret`, {}),
      ]) {
        assert.equal(res.status, 404, JSON.stringify(res.body));
        assert.equal(res.body.errors[0].code, 'NOT_FOUND');
      }
    }
    assert.equal((await ok(api.get(`/api/v1/webhook-endpoints/${id}`))).description, '');
  });
});

describe('POST /api/v1/webhook-endpoints/{id}/rotate-secret', () => {
  it('200 a new secret, once; the old one is kept for the grace (default 1 day); a second rotation drops the oldest', async () => {
    const created = await ok(create());
    const rotated = await ok(api.post(`/api/v1/webhook-endpoints/${created.id}/rotate-secret`, {}));
    assert.match(rotated.secret, /^whsec_/);
    assert.notEqual(rotated.secret, created.secret);
    assert.deepEqual(
      { ...rotated, secret: undefined },
      { object: 'webhook_endpoint_secret', endpointId: created.id, secret: undefined, previousSecretExpiresAt: iso(t.clock.now() + 86_400_000) },
    );
    const got = await ok(api.get(`/api/v1/webhook-endpoints/${created.id}`));
    assert.deepEqual([got.secretHint, got.previousSecretExpiresAt], [`whsec_…${rotated.secret.slice(-4)}`, rotated.previousSecretExpiresAt]);
    const open = async () => {
      const r = await row(created.id);
      const aad = secretAssociatedData(created.id);
      return [
        t.deps.secrets.open({ ciphertext: r.secretCiphertext, keyId: r.secretKeyId }, aad),
        r.previousSecretCiphertext === null ? null : t.deps.secrets.open({ ciphertext: r.previousSecretCiphertext, keyId: r.previousSecretKeyId! }, aad),
      ];
    };
    assert.deepEqual(await open(), [rotated.secret, created.secret]);

    const own = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    const again = await ok(api.post(`/api/v1/webhook-endpoints/${created.id}/rotate-secret`, { secret: own, gracePeriodSeconds: 60 }));
    assert.deepEqual([again.secret, again.previousSecretExpiresAt], [own, iso(t.clock.now() + 60_000)]);
    assert.deepEqual(await open(), [own, rotated.secret], 'at most two secrets: the first one is gone');
    const audit = await audits(created.id);
    assert.deepEqual(
      audit.map((a) => a.eventType),
      ['webhook_endpoint.created', 'webhook_endpoint.secret_rotated', 'webhook_endpoint.secret_rotated'],
    );
    assert.ok(audit.every((a) => !a.payload.includes(own.slice(6)) && !a.payload.includes(rotated.secret.slice(6))));
  });

  it('200 the grace ends on the clock: previousSecretExpiresAt is null after it', async () => {
    const { id } = await ok(create());
    await ok(api.post(`/api/v1/webhook-endpoints/${id}/rotate-secret`, { gracePeriodSeconds: 30 }));
    t.clock.advance(30_000);
    assert.equal((await ok(api.get(`/api/v1/webhook-endpoints/${id}`))).previousSecretExpiresAt, null);
  });

  it('200 gracePeriodSeconds 0 drops the old secret at once', async () => {
    const { id } = await ok(create());
    const rotated = await ok(api.post(`/api/v1/webhook-endpoints/${id}/rotate-secret`, { gracePeriodSeconds: 0 }));
    assert.equal(rotated.previousSecretExpiresAt, null);
    assert.equal((await row(id)).previousSecretCiphertext, null);
  });

  it('400 gracePeriodSeconds out of range, or a malformed secret', async () => {
    const { id } = await ok(create());
    await rejects(api.post(`/api/v1/webhook-endpoints/${id}/rotate-secret`, { gracePeriodSeconds: 604_801 }), 'body.gracePeriodSeconds');
    await rejects(api.post(`/api/v1/webhook-endpoints/${id}/rotate-secret`, { gracePeriodSeconds: -1 }), 'body.gracePeriodSeconds');
    await rejects(api.post(`/api/v1/webhook-endpoints/${id}/rotate-secret`, { secret: 'nope' }), 'body.secret');
  });
});
