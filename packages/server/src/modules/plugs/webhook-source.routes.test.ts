// The operator API for webhook sources (/api/v1/webhook-sources) and the ingestion log
// (/api/v1/webhook-log), through the real app. Deliveries to the receiver are signed with
// node:crypto for the custom template (X-Signature-256: hex HMAC-SHA256 of the body).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import Stripe from 'stripe';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, Response, TenantHandle } from '../../../test/helpers/seed.js';
import { ok, rejects } from '../../../test/helpers/expect.js';

let t: TestApp;
let ws: TenantHandle;
let api: Client;
let metricId: string;
let altMetricId: string;

/** Operator calls and verified webhooks share the workspace's per-minute budget; the clock is frozen. */
before(async () => {
  t = await createTestApp({ config: { rateLimitPerMinute: 1_000_000 } });
  ws = await t.seed.workspace();
  api = t.seed.client(ws.test.secretKey);
  metricId = (await ok(api.post('/api/v1/metrics', { name: 'webhook_units' }))).id;
  altMetricId = (await ok(api.post('/api/v1/metrics', { name: 'alt_units' }))).id;
  await t.seed.customer(ws.test, { externalId: 'acme' });
});
after(() => t.close());

const now = () => new Date(t.clock.now()).toISOString();
const ids = (res: Response) => (res.body.data as { id: string }[]).map((x) => x.id);

const create = (body: Record<string, unknown>, client: Client = api, headers?: Record<string, string>) =>
  client.post('/api/v1/webhook-sources', { displayName: 'Source', metricName: 'webhook_units', ...body }, headers);

async function sourceCount(): Promise<number> {
  const rows = await t.deps.db.selectFrom('webhookSources').select('id').where('workspaceId', '=', ws.workspaceId).execute();
  return rows.length;
}

async function audits(eventType: string, targetId: string) {
  const rows = await t.deps.db.selectFrom('auditEvents').selectAll().where('eventType', '=', eventType).where('targetId', '=', targetId).execute();
  return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, unknown> }));
}

/** A delivery to a custom source (default signature: X-Signature-256, hex HMAC-SHA256 of the body). */
async function deliver(sourceId: string, secret: string, payload: string | Buffer, extraHeaders: Record<string, string> = {}) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/ingest/webhook/${sourceId}`,
    payload,
    headers: { 'content-type': 'application/json', 'x-signature-256': createHmac('sha256', secret).update(payload).digest('hex'), ...extraHeaders },
  });
  return { status: res.statusCode, body: JSON.parse(res.body), logId: String(res.headers['x-webhook-log-id']) };
}

let seq = 0;
const event = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({ id: `evt_${++seq}`, type: 'job.completed', tenant_id: 'acme', quantity: 1, ...fields });

const emailKeys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const EMAIL_KEY = emailKeys.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');

// ---------------------------------------------------------------------------------------------

describe('POST /api/v1/webhook-sources: provider templates', () => {
  /** What each provider starts from (spec: signature header per provider; templates' defaults). */
  const templates: Record<string, { secret: string; signature: unknown; eventTypeFrom: unknown; eventFilter: string[]; fieldMappings: unknown }> = {
    payment: {
      secret: 'whsec_template_payment_0001',
      signature: { scheme: 'stripe', header: 'Stripe-Signature', algorithm: 'sha256', encoding: 'hex', prefix: 't=<timestamp>,v1=' },
      eventTypeFrom: '$.type',
      eventFilter: ['payment_intent.succeeded'],
      fieldMappings: {
        quantity: '$.data.object.amount',
        tenant_id: '$.data.object.customer',
        event_id: '$.id',
        timestamp: '$.created',
        properties: { currency: '$.data.object.currency' },
      },
    },
    messaging: {
      secret: 'twilio_auth_token_template_0002',
      signature: { scheme: 'twilio', header: 'X-Twilio-Signature', algorithm: 'sha1', encoding: 'base64', prefix: '' },
      eventTypeFrom: '$.MessageStatus',
      eventFilter: ['delivered'],
      fieldMappings: { quantity: 1, tenant_id: '$.AccountSid', event_id: '$.MessageSid' },
    },
    email: {
      secret: EMAIL_KEY,
      signature: { scheme: 'sendgrid', header: 'X-Twilio-Email-Event-Webhook-Signature', algorithm: 'ecdsa-p256-sha256', encoding: 'base64', prefix: '' },
      eventTypeFrom: '$.event',
      eventFilter: ['delivered'],
      fieldMappings: {
        quantity: 1,
        tenant_id: '$.tenant_id',
        event_id: '$.sg_event_id',
        timestamp: '$.timestamp',
        properties: { message_id: '$.sg_message_id' },
      },
    },
    code_hosting: {
      secret: 'github-template-secret-0004',
      signature: { scheme: 'hub_sha256', header: 'X-Hub-Signature-256', algorithm: 'sha256', encoding: 'hex', prefix: 'sha256=' },
      eventTypeFrom: { header: 'X-GitHub-Event' },
      eventFilter: ['push'],
      fieldMappings: {
        quantity: 1,
        tenant_id: '$.repository.owner.login',
        event_id: { header: 'X-GitHub-Delivery' },
        properties: { repository: '$.repository.full_name' },
      },
    },
    chat: {
      secret: 'slack-template-secret-0005',
      signature: { scheme: 'slack', header: 'X-Slack-Signature', algorithm: 'sha256', encoding: 'hex', prefix: 'v0=' },
      eventTypeFrom: '$.event.type',
      eventFilter: ['message'],
      fieldMappings: { quantity: 1, tenant_id: '$.team_id', event_id: '$.event_id', timestamp: '$.event_time', properties: { channel: '$.event.channel' } },
    },
    custom: {
      secret: 'custom-template-secret-0006',
      signature: { scheme: 'custom', header: 'X-Signature-256', algorithm: 'sha256', encoding: 'hex', prefix: '' },
      eventTypeFrom: '$.type',
      eventFilter: [],
      fieldMappings: { quantity: '$.quantity', tenant_id: '$.tenant_id', event_id: '$.id', timestamp: '$.timestamp' },
    },
  };

  for (const [provider, tpl] of Object.entries(templates)) {
    it(`200 ${provider}: the template's filter, mappings and signature, the webhook URL, a 72 h window; the secret only as a hint`, async () => {
      const res = await create({ provider, displayName: `My ${provider} source`, signingSecret: tpl.secret });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const { id, createdAt, updatedAt, ...rest } = res.body;
      assert.match(id, /^wsrc_[0-9a-z]{26}$/);
      assert.equal(createdAt, now());
      assert.equal(updatedAt, createdAt);
      assert.deepEqual(rest, {
        object: 'webhook_source',
        environment: 'test',
        provider,
        displayName: `My ${provider} source`,
        metricId,
        metricName: 'webhook_units',
        url: `/v1/ingest/webhook/${id}`,
        signature: tpl.signature,
        hasSigningSecret: true,
        signingSecretHint: tpl.secret.slice(-4),
        eventTypeFrom: tpl.eventTypeFrom,
        eventFilter: tpl.eventFilter,
        fieldMappings: tpl.fieldMappings,
        dedupWindowHours: 72,
      });
      assert.deepEqual(await ok(api.get(`/api/v1/webhook-sources/${id}`)), res.body);
      const audit = await audits('webhook_source.created', id);
      assert.equal(audit.length, 1);
      assert.deepEqual(audit[0]!.payload, { provider, displayName: `My ${provider} source`, metricId, hasSigningSecret: true });
    });
  }

  it('200 without a signing secret: hasSigningSecret false, hint null', async () => {
    const s = await ok(create({ provider: 'custom' }));
    assert.equal(s.hasSigningSecret, false);
    assert.equal(s.signingSecretHint, null);
  });

  it('200 by metricId as well as by metricName', async () => {
    const s = await ok(api.post('/api/v1/webhook-sources', { provider: 'custom', displayName: 'By id', metricId: altMetricId }));
    assert.equal(s.metricId, altMetricId);
    assert.equal(s.metricName, 'alt_units');
  });

  it('overrides merge over the template: given mappings replace theirs, the others stay; a comma-separated filter becomes a list', async () => {
    const s = await ok(
      create({
        provider: 'payment',
        eventFilter: 'payment_intent.succeeded, charge.succeeded',
        fieldMappings: { quantity: '$.data.object.amount_received', properties: { country: '$.data.object.shipping.address.country' } },
        eventTypeFrom: '$.kind',
        dedupWindowHours: 24,
      }),
    );
    assert.deepEqual(s.eventFilter, ['payment_intent.succeeded', 'charge.succeeded']);
    assert.deepEqual(s.fieldMappings, {
      quantity: '$.data.object.amount_received',
      tenant_id: '$.data.object.customer',
      event_id: '$.id',
      timestamp: '$.created',
      properties: { country: '$.data.object.shipping.address.country' },
    });
    assert.equal(s.eventTypeFrom, '$.kind');
    assert.equal(s.dedupWindowHours, 24);
  });

  it("200 with the spec's snake_case event_filter and field_mappings", async () => {
    const s = await ok(
      create({
        provider: 'custom',
        event_filter: ['usage.recorded', 'usage.adjusted'],
        field_mappings: { quantity: '$.usage.units', event_id: { header: 'X-Event-Id' } },
      }),
    );
    assert.deepEqual(s.eventFilter, ['usage.recorded', 'usage.adjusted']);
    assert.deepEqual(s.fieldMappings, { quantity: '$.usage.units', tenant_id: '$.tenant_id', event_id: { header: 'X-Event-Id' }, timestamp: '$.timestamp' });
    const csv = await ok(create({ provider: 'custom', event_filter: 'a.b,c.d' }));
    assert.deepEqual(csv.eventFilter, ['a.b', 'c.d']);
  });

  it('400 naming the snake_case field when both spellings are given', async () => {
    const count = await sourceCount();
    await rejects(create({ provider: 'custom', fieldMappings: { quantity: 1 }, field_mappings: { quantity: 2 } }), 'body.field_mappings');
    await rejects(create({ provider: 'custom', eventFilter: ['a'], event_filter: ['b'] }), 'body.event_filter');
    assert.equal(await sourceCount(), count, 'nothing is created');
  });

  it('Idempotency-Key: a retried create returns the same source and creates one', async () => {
    const count = await sourceCount();
    const body = { provider: 'custom', displayName: 'Retried', signingSecret: 'idem-secret-value-1234' };
    const first = await create(body, api, { 'idempotency-key': 'create-source-1' });
    const second = await create(body, api, { 'idempotency-key': 'create-source-1' });
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(second.body.id, first.body.id);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(await sourceCount(), count + 1);
    const kept = await t.deps.db.selectFrom('idempotencyKeys').selectAll().where('key', 'like', '%create-source-1%').execute();
    assert.ok(kept.length >= 1);
    assert.equal(JSON.stringify(kept).includes('idem-secret-value-1234'), false, 'the secret is not kept with the idempotency key');
  });
});

// ---------------------------------------------------------------------------------------------

describe('POST /api/v1/webhook-sources: 400 naming the field', () => {
  it('an invalid JSONPath: body.fieldMappings.quantity', async () => {
    const e = await rejects(create({ provider: 'custom', fieldMappings: { quantity: '$.data[' } }), 'body.fieldMappings.quantity');
    assert.match(e.message, /JSONPath/);
  });

  it('a mapping that is not a JSONPath ($…), a header or a number: body.fieldMappings.tenant_id', async () => {
    await rejects(create({ provider: 'custom', fieldMappings: { tenant_id: 'data.customer' } }), 'body.fieldMappings.tenant_id');
    await rejects(create({ provider: 'custom', fieldMappings: { tenant_id: 7 } }), 'body.fieldMappings.tenant_id');
  });

  it('match() and search() are refused in mappings (a regular expression per webhook)', async () => {
    const e = await rejects(create({ provider: 'custom', fieldMappings: { quantity: '$.items[?match(@.name, "(a+)+")].qty' } }), 'body.fieldMappings.quantity');
    assert.match(e.message, /match\(\)/);
    await rejects(create({ provider: 'custom', fieldMappings: { tenant_id: '$[?search(@.t, "x")].id' } }), 'body.fieldMappings.tenant_id');
  });

  it('an unknown mapping key: body.fieldMappings.<key>', async () => {
    await rejects(create({ provider: 'custom', fieldMappings: { amount: '$.amount' } }), 'body.fieldMappings.amount');
  });

  it('signature options for a provider whose signature is fixed: body.signature.header', async () => {
    await rejects(create({ provider: 'payment', signature: { header: 'X-My-Signature' } }), 'body.signature.header');
    await rejects(create({ provider: 'code_hosting', signature: { header: 'X-Hub-Signature' } }), 'body.signature.header');
  });

  it('a custom signature header that is not a header name: body.signature.header', async () => {
    await rejects(create({ provider: 'custom', signature: { header: 'X Signature' } }), 'body.signature.header');
  });

  it('an email source whose key is not a P-256 public key: body.signingSecret', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey.export({ format: 'pem', type: 'spki' }).toString();
    for (const key of [rsa, p384, 'not-a-key', EMAIL_KEY.slice(0, 40)]) {
      await rejects(create({ provider: 'email', signingSecret: key }), 'body.signingSecret');
    }
  });

  it('an email source given the P-256 PRIVATE key by mistake: body.signingSecret (it could never verify)', async () => {
    const privatePem = emailKeys.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    await rejects(create({ provider: 'email', signingSecret: privatePem }), 'body.signingSecret');
  });

  it('200 for an email key as PEM as well as the dashboard base64', async () => {
    const pem = emailKeys.publicKey.export({ format: 'pem', type: 'spki' }).toString();
    assert.equal((await ok(create({ provider: 'email', signingSecret: pem }))).hasSigningSecret, true);
  });

  it('an empty signingSecret: body.signingSecret', async () => {
    await rejects(create({ provider: 'custom', signingSecret: '' }), 'body.signingSecret');
  });

  it('an unknown metric: body.metricName or body.metricId; neither given: body.metricId', async () => {
    await rejects(create({ provider: 'custom', metricName: 'no_such_metric' }), 'body.metricName');
    await rejects(api.post('/api/v1/webhook-sources', { provider: 'custom', displayName: 'x', metricId: 'mtr_00000000000000000000000000' }), 'body.metricId');
    await rejects(api.post('/api/v1/webhook-sources', { provider: 'custom', displayName: 'x' }), 'body.metricId');
  });

  it('a dedup window outside 1 to 720 hours: body.dedupWindowHours', async () => {
    await rejects(create({ provider: 'custom', dedupWindowHours: 0 }), 'body.dedupWindowHours');
    await rejects(create({ provider: 'custom', dedupWindowHours: 721 }), 'body.dedupWindowHours');
  });

  it('an unknown provider: body.provider', async () => {
    await rejects(create({ provider: 'fax' }), 'body.provider');
  });

  it('nothing is created by a refused request', async () => {
    const count = await sourceCount();
    await rejects(create({ provider: 'custom', fieldMappings: { quantity: '$[' } }), 'body.fieldMappings.quantity');
    assert.equal(await sourceCount(), count);
  });
});

// ---------------------------------------------------------------------------------------------

describe('scopes and tenancy', () => {
  let source: any;
  let entryId: string;

  before(async () => {
    source = await ok(create({ provider: 'custom', displayName: 'Scoped', signingSecret: 'scoped-secret' }));
    entryId = (await deliver(source.id, 'scoped-secret', event())).logId;
  });

  it('403 INSUFFICIENT_SCOPE for a key without admin, on every operator route', async () => {
    const ingestOnly = t.seed.client((await t.seed.workspaceKey(ws.test, ['ingest', 'events:read'])).token);
    const calls: Array<Promise<Response>> = [
      create({ provider: 'custom' }, ingestOnly),
      ingestOnly.get('/api/v1/webhook-sources'),
      ingestOnly.get(`/api/v1/webhook-sources/${source.id}`),
      ingestOnly.patch(`/api/v1/webhook-sources/${source.id}`, { displayName: 'x' }),
      ingestOnly.delete(`/api/v1/webhook-sources/${source.id}`),
      ingestOnly.get('/api/v1/webhook-log'),
      ingestOnly.get(`/api/v1/webhook-log/${entryId}`),
      ingestOnly.post(`/api/v1/webhook-log/${entryId}/replay`),
    ];
    for (const res of await Promise.all(calls)) {
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.equal(res.body.errors[0].code, 'INSUFFICIENT_SCOPE');
    }
    assert.equal((await ok(api.get(`/api/v1/webhook-sources/${source.id}`))).displayName, 'Scoped', 'unchanged');
  });

  it('401 without a key', async () => {
    const res = await t.seed.client(null).get('/api/v1/webhook-sources');
    assert.equal(res.status, 401);
  });

  it("404 for another workspace's source, and for the live environment's view of a test source", async () => {
    const other = await t.seed.workspace('Other');
    for (const client of [t.seed.client(other.test.secretKey), t.seed.client(ws.live.secretKey)]) {
      assert.equal((await client.get(`/api/v1/webhook-sources/${source.id}`)).status, 404);
      assert.equal((await client.patch(`/api/v1/webhook-sources/${source.id}`, { displayName: 'taken' })).status, 404);
      assert.equal((await client.delete(`/api/v1/webhook-sources/${source.id}`)).status, 404);
      assert.equal(ids(await client.get('/api/v1/webhook-sources?limit=100')).includes(source.id), false);
    }
    assert.equal((await ok(api.get(`/api/v1/webhook-sources/${source.id}`))).displayName, 'Scoped');
  });
});

// ---------------------------------------------------------------------------------------------

describe('GET /api/v1/webhook-sources', () => {
  it('pages newest first with limit, startingAfter and endingBefore', async () => {
    const own = await t.seed.workspace('Paging');
    const client = t.seed.client(own.test.secretKey);
    await ok(client.post('/api/v1/metrics', { name: 'webhook_units' }));
    const made: string[] = [];
    for (const name of ['a', 'b', 'c']) made.push((await ok(create({ provider: 'custom', displayName: name }, client))).id);
    const [a, b, c] = made;
    const first = await ok(client.get('/api/v1/webhook-sources?limit=2'));
    assert.equal(first.object, 'list');
    assert.deepEqual(
      first.data.map((s: any) => s.id),
      [c, b],
    );
    assert.equal(first.hasMore, true);
    const second = await ok(client.get(`/api/v1/webhook-sources?limit=2&startingAfter=${b}`));
    assert.deepEqual(
      second.data.map((s: any) => s.id),
      [a],
    );
    assert.equal(second.hasMore, false);
    const back = await ok(client.get(`/api/v1/webhook-sources?limit=2&endingBefore=${a}`));
    assert.deepEqual(
      back.data.map((s: any) => s.id),
      [c, b],
    );
  });

  it('404 NOT_FOUND for an unknown id', async () => {
    const res = await api.get('/api/v1/webhook-sources/wsrc_00000000000000000000000000');
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
  });
});

// ---------------------------------------------------------------------------------------------

describe('PATCH /api/v1/webhook-sources/{id}', () => {
  it('200 merges fieldMappings over the current ones; a null timestamp removes that mapping; audited as updated', async () => {
    const s = await ok(create({ provider: 'custom', fieldMappings: { properties: { region: '$.region' } } }));
    t.clock.advance(1000);
    const u = await ok(api.patch(`/api/v1/webhook-sources/${s.id}`, { displayName: 'Renamed', fieldMappings: { quantity: '$.units', timestamp: null } }));
    assert.equal(u.displayName, 'Renamed');
    assert.deepEqual(u.fieldMappings, { quantity: '$.units', tenant_id: '$.tenant_id', event_id: '$.id', properties: { region: '$.region' } });
    assert.equal(u.createdAt, s.createdAt);
    assert.equal(u.updatedAt, now());
    assert.deepEqual(await ok(api.get(`/api/v1/webhook-sources/${s.id}`)), u);
    const audit = await audits('webhook_source.updated', s.id);
    assert.equal(audit.length, 1);
    assert.deepEqual(audit[0]!.payload, { changed: ['displayName', 'fieldMappings'], signingSecretChanged: false });
  });

  it('200 moves the source to another metric by name', async () => {
    const s = await ok(create({ provider: 'custom' }));
    const u = await ok(api.patch(`/api/v1/webhook-sources/${s.id}`, { metricName: 'alt_units' }));
    assert.equal(u.metricId, altMetricId);
    assert.equal(u.metricName, 'alt_units');
  });

  it('400 for the provider (it cannot change), an empty body, or an invalid mapping', async () => {
    const s = await ok(create({ provider: 'custom' }));
    assert.equal((await api.patch(`/api/v1/webhook-sources/${s.id}`, { provider: 'payment' })).status, 400);
    assert.equal((await api.patch(`/api/v1/webhook-sources/${s.id}`, {})).status, 400);
    await rejects(api.patch(`/api/v1/webhook-sources/${s.id}`, { fieldMappings: { event_id: '$..[' } }), 'body.fieldMappings.event_id');
    assert.equal((await ok(api.get(`/api/v1/webhook-sources/${s.id}`))).provider, 'custom');
  });

  it('404 for an unknown id', async () => {
    assert.equal((await api.patch('/api/v1/webhook-sources/wsrc_00000000000000000000000000', { displayName: 'x' })).status, 404);
  });

  it('a rotated secret applies at once: the old secret fails, the new one passes, even with the source cached', async () => {
    const OLD = 'rotate-old-secret-1111';
    const NEW = 'rotate-new-secret-2222';
    const s = await ok(create({ provider: 'custom', signingSecret: OLD }));
    assert.equal((await deliver(s.id, OLD, event())).status, 200, 'warms the receiver cache');
    const rotated = await ok(api.patch(`/api/v1/webhook-sources/${s.id}`, { signingSecret: NEW }));
    assert.equal(rotated.signingSecretHint, NEW.slice(-4));
    assert.equal(JSON.stringify(rotated).includes(NEW), false);
    const old = await deliver(s.id, OLD, event());
    assert.equal(old.status, 401, JSON.stringify(old.body));
    assert.equal(old.body.errors[0].code, 'WEBHOOK_SIGNATURE_INVALID');
    const fresh = await deliver(s.id, NEW, event());
    assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
    assert.equal(fresh.body.status, 'accepted');
  });

  it('a rotation is audited as webhook_source.secret_rotated, whose payload holds neither secret', async () => {
    const OLD = 'audit-old-secret-3333';
    const NEW = 'audit-new-secret-4444';
    const s = await ok(create({ provider: 'custom', signingSecret: OLD }));
    await ok(api.patch(`/api/v1/webhook-sources/${s.id}`, { signingSecret: NEW }));
    const audit = await audits('webhook_source.secret_rotated', s.id);
    assert.equal(audit.length, 1);
    assert.deepEqual(audit[0]!.payload, { changed: [], signingSecretChanged: true });
    const all = await t.deps.db.selectFrom('auditEvents').selectAll().where('targetId', '=', s.id).execute();
    assert.equal(JSON.stringify(all).includes(NEW), false);
    assert.equal(JSON.stringify(all).includes(OLD), false);
  });

  it('a new event filter applies at once to a cached source', async () => {
    const SECRET = 'filter-change-secret';
    const s = await ok(create({ provider: 'custom', signingSecret: SECRET, eventFilter: ['job.completed'] }));
    assert.equal((await deliver(s.id, SECRET, event())).body.status, 'accepted');
    assert.equal((await deliver(s.id, SECRET, event({ type: 'job.retried' }))).body.status, 'discarded');
    await ok(api.patch(`/api/v1/webhook-sources/${s.id}`, { eventFilter: 'job.completed,job.retried' }));
    assert.equal((await deliver(s.id, SECRET, event({ type: 'job.retried' }))).body.status, 'accepted');
  });
});

// ---------------------------------------------------------------------------------------------

describe('DELETE /api/v1/webhook-sources/{id}', () => {
  it('200 deleted: its URL answers 404 at once, GET/PATCH/DELETE 404, it leaves the list; its log entries stay', async () => {
    const SECRET = 'delete-secret';
    const s = await ok(create({ provider: 'custom', signingSecret: SECRET }));
    const entry = await deliver(s.id, SECRET, event());
    assert.equal(entry.status, 200);
    const res = await ok(api.delete(`/api/v1/webhook-sources/${s.id}`));
    assert.deepEqual(res, { id: s.id, object: 'webhook_source', deleted: true });
    const after = await deliver(s.id, SECRET, event());
    assert.equal(after.status, 404, JSON.stringify(after.body));
    assert.equal(after.body.errors[0].code, 'NOT_FOUND');
    assert.equal((await api.get(`/api/v1/webhook-sources/${s.id}`)).status, 404);
    assert.equal((await api.patch(`/api/v1/webhook-sources/${s.id}`, { displayName: 'back' })).status, 404);
    assert.equal((await api.delete(`/api/v1/webhook-sources/${s.id}`)).status, 404);
    assert.equal(ids(await api.get('/api/v1/webhook-sources?limit=100')).includes(s.id), false);
    assert.equal((await ok(api.get(`/api/v1/webhook-log/${entry.logId}`))).sourceId, s.id);
    assert.equal((await audits('webhook_source.deleted', s.id)).length, 1);
  });

  it('409 replaying an entry of a deleted source', async () => {
    const SECRET = 'delete-replay-secret';
    const s = await ok(create({ provider: 'custom', signingSecret: SECRET }));
    const entry = await deliver(s.id, SECRET, event());
    await ok(api.delete(`/api/v1/webhook-sources/${s.id}`));
    const res = await api.post(`/api/v1/webhook-log/${entry.logId}/replay`);
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.equal(res.body.errors[0].code, 'CONFLICT');
  });
});

// ---------------------------------------------------------------------------------------------
// The clock moves forward here (receivedFrom/receivedTo); nothing later depends on it.

describe('GET /api/v1/webhook-log', () => {
  const SECRET = 'log-secret';
  let one: any;
  let two: any;
  const at: number[] = [];
  const entries: Record<string, string> = {};

  before(async () => {
    one = await ok(create({ provider: 'custom', displayName: 'Log one', signingSecret: SECRET, eventFilter: ['job.completed'] }));
    two = await ok(create({ provider: 'custom', displayName: 'Log two', signingSecret: SECRET }));
    t.clock.advance(60_000);
    at.push(t.clock.now());
    entries.accepted = (await deliver(one.id, SECRET, event())).logId;
    t.clock.advance(60_000);
    at.push(t.clock.now());
    entries.discarded = (await deliver(one.id, SECRET, event({ type: 'job.retried' }))).logId;
    entries.rejected = (await deliver(one.id, 'wrong-secret', event())).logId;
    t.clock.advance(60_000);
    at.push(t.clock.now());
    entries.other = (await deliver(two.id, SECRET, event())).logId;
  });

  const list = async (query: string) => ids(await api.get(`/api/v1/webhook-log?limit=100&${query}`));

  it('by sourceId, newest first; summaries carry no body', async () => {
    const res = await ok(api.get(`/api/v1/webhook-log?sourceId=${one.id}`));
    assert.deepEqual(
      res.data.map((e: any) => e.id),
      [entries.rejected, entries.discarded, entries.accepted],
    );
    for (const e of res.data) {
      assert.equal(e.object, 'webhook_log_entry');
      assert.equal(e.sourceId, one.id);
      assert.equal('body' in e, false);
      assert.equal(typeof e.bodyBytes, 'number');
    }
    assert.deepEqual(await list(`sourceId=${two.id}`), [entries.other]);
  });

  it('by status', async () => {
    assert.deepEqual(await list(`sourceId=${one.id}&status=accepted`), [entries.accepted]);
    assert.deepEqual(await list(`sourceId=${one.id}&status=discarded`), [entries.discarded]);
    assert.deepEqual(await list(`sourceId=${one.id}&status=rejected`), [entries.rejected]);
    assert.deepEqual(await list(`sourceId=${one.id}&status=duplicate`), []);
  });

  it('by receivedFrom (inclusive) and receivedTo (exclusive)', async () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    assert.deepEqual(await list(`receivedFrom=${iso(at[1]!)}&receivedTo=${iso(at[2]!)}`), [entries.rejected, entries.discarded]);
    assert.deepEqual(await list(`receivedFrom=${iso(at[2]!)}`), [entries.other]);
    assert.deepEqual(await list(`sourceId=${one.id}&receivedTo=${iso(at[1]!)}`), [entries.accepted]);
    const received = (await ok(api.get(`/api/v1/webhook-log/${entries.discarded}`))).receivedAt;
    assert.equal(received, iso(at[1]!));
  });

  it('400 for a receivedFrom that is not a timestamp, or an unknown status', async () => {
    await rejects(api.get('/api/v1/webhook-log?receivedFrom=yesterday'), 'query.receivedFrom');
    assert.equal((await api.get('/api/v1/webhook-log?status=lost')).status, 400);
  });

  it('GET /{id}: the raw body as utf8, signature redacted, credentials a sender added not kept', async () => {
    const body = event({ note: 'naïve café ✓' });
    const sent = await deliver(two.id, SECRET, body, { authorization: 'Bearer sk_should_not_be_kept', cookie: 'session=abc', 'x-request-id': 'req-42' });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const e = await ok(api.get(`/api/v1/webhook-log/${sent.logId}`));
    assert.equal(e.body, body);
    assert.equal(e.bodyEncoding, 'utf8');
    assert.equal(e.bodyBytes, Buffer.byteLength(body));
    assert.equal(e.headers['x-signature-256'], '[redacted]');
    assert.equal(e.headers['x-request-id'], 'req-42');
    assert.equal(e.headers.authorization, undefined);
    assert.equal(e.headers.cookie, undefined);
  });

  it('GET /{id}: a body that is not UTF-8 comes back as base64', async () => {
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x80, 0x7d]);
    const sent = await deliver(two.id, SECRET, bytes);
    assert.equal(sent.status, 400, 'verified, but not JSON');
    const e = await ok(api.get(`/api/v1/webhook-log/${sent.logId}`));
    assert.equal(e.bodyEncoding, 'base64');
    assert.equal(e.body, bytes.toString('base64'));
    assert.deepEqual(Buffer.from(e.body, 'base64'), bytes);
    assert.equal(e.bodyBytes, bytes.length);
    assert.equal(e.verification, 'passed');
  });

  it('404 for an unknown entry', async () => {
    const res = await api.get('/api/v1/webhook-log/whl_00000000000000000000000000');
    assert.equal(res.status, 404);
    assert.equal(res.body.errors[0].code, 'NOT_FOUND');
  });

  it('a payment source signed by stripe: the log entry redacts Stripe-Signature', async () => {
    const secret = 'whsec_log_payment_5555';
    const s = await ok(create({ provider: 'payment', signingSecret: secret }));
    const payload = JSON.stringify({
      id: 'evt_log_1',
      type: 'charge.refunded',
      created: Math.floor(t.clock.now() / 1000),
      data: { object: { amount: 5, customer: 'acme' } },
    });
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: Math.floor(t.clock.now() / 1000) });
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/ingest/webhook/${s.id}`,
      payload,
      headers: { 'content-type': 'application/json', 'stripe-signature': header },
    });
    assert.equal(res.statusCode, 200, res.body);
    const e = await ok(api.get(`/api/v1/webhook-log/${String(res.headers['x-webhook-log-id'])}`));
    assert.equal(e.status, 'discarded');
    assert.equal(e.headers['stripe-signature'], '[redacted]');
    assert.equal(JSON.stringify(e).includes(header), false);
  });
});
