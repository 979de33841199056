// The outbound delivery log, replays, the test event and the event types, through the real app.
// Messages are written by the outbox write (emitWebhookEvents, in a transaction), and attempts
// by inserting rows as the sender does; the sender itself is off, so nothing changes behind the
// tests' backs and every due time is the frozen clock's.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, EnvHandle, Response, TenantHandle } from '../../../test/helpers/seed.js';
import { ok, rejects } from '../../../test/helpers/expect.js';
import { transaction } from '../../db/transaction.js';
import { createIdGenerator, idTime } from '../../lib/ids.js';
import type { WebhookAttemptTable } from '../../db/tables/outbound-webhook.table.js';
import { emitWebhookEvents } from './emit-webhook-events.js';
import { catalogTypes, eventCatalog, exampleOf, subscribableTypes, type CatalogType } from './event-catalog.js';
import type { HostResolver } from './resolve-destination.js';

const resolver: HostResolver = async () => ['93.184.216.34'];
const HOOK = 'https://hooks.example/tollgate';
const MINUTE = 60_000;
const DAY = 86_400_000;

let t: TestApp;

before(async () => {
  t = await createTestApp({ config: { rateLimitPerMinute: 1_000_000, outboundWebhookSender: false }, webhooks: { resolver } });
});
after(() => t.close());

const iso = (ms: number) => new Date(ms).toISOString();
const ids = (list: { data: Array<{ id: string }> }) => list.data.map((x) => x.id);

/** A 202; returns its body. */
async function accepted(p: Promise<Response>) {
  const res = await p;
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body;
}

/** The status and error code of a refusal. */
async function refused(p: Promise<Response>): Promise<[number, string, string | undefined]> {
  const res = await p;
  assert.deepEqual(Object.keys(res.body), ['success', 'errors'], JSON.stringify(res.body));
  return [res.status, res.body.errors[0].code, res.body.errors[0].field];
}

interface Tenant {
  ws: TenantHandle;
  env: EnvHandle;
  api: Client;
}

async function tenant(name: string): Promise<Tenant> {
  const ws = await t.seed.workspace(name);
  return { ws, env: ws.test, api: t.seed.client(ws.test.secretKey) };
}

async function endpoint(c: Tenant, eventTypes: string[], path = ''): Promise<string> {
  return (await ok(c.api.post('/api/v1/webhook-endpoints', { url: `${HOOK}${path}`, eventTypes }))).id;
}

/** One event through the outbox write, in a transaction of its own; returns its message's id. */
async function emit(c: Tenant, type: CatalogType, id: string): Promise<string> {
  const object = { id, object: eventCatalog[type].resource };
  const written = await transaction(t.deps.db, (trx) =>
    emitWebhookEvents(trx, t.deps, [
      { origin: { workspaceId: c.env.workspaceId, environment: 'test', correlationId: `req_${id}` }, event: { type, orderingKey: id, data: { object } } },
    ]),
  );
  assert.equal(written, 1);
  const m = await t.deps.db
    .selectFrom('webhookMessages')
    .select('id')
    .where('workspaceId', '=', c.env.workspaceId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  return m.id;
}

async function delivery(messageId: string, endpointId: string) {
  const r = await t.deps.db
    .selectFrom('webhookDeliveries')
    .selectAll()
    .where('messageId', '=', messageId)
    .where('endpointId', '=', endpointId)
    .executeTakeFirstOrThrow();
  return {
    status: r.status,
    attempts: Number(r.attempts),
    scheduleStep: Number(r.scheduleStep),
    nextAttemptAt: r.nextAttemptAt === null ? null : Number(r.nextAttemptAt),
    nextAttemptTrigger: r.nextAttemptTrigger,
    lastError: r.lastError,
    updatedAt: Number(r.updatedAt),
  };
}

/** What the sender writes when a delivery ends: a failure after `attempts` attempts, or a success. */
async function settle(messageId: string, endpointId: string, status: 'failed' | 'succeeded', attempts = 1) {
  await t.deps.db
    .updateTable('webhookDeliveries')
    .set({
      status,
      attempts,
      scheduleStep: attempts,
      nextAttemptAt: null,
      lastAttemptAt: t.clock.now(),
      lastResponseStatus: status === 'failed' ? 500 : 204,
      lastError: status === 'failed' ? 'http_500' : null,
      updatedAt: t.clock.now(),
    })
    .where('messageId', '=', messageId)
    .where('endpointId', '=', endpointId)
    .execute();
}

/** An attempt row as the sender writes it. */
async function attempt(c: Tenant, messageId: string, endpointId: string, row: Partial<WebhookAttemptTable> = {}): Promise<string> {
  const m = await t.deps.db.selectFrom('webhookMessages').select('eventType').where('id', '=', messageId).executeTakeFirstOrThrow();
  const id = t.deps.ids.next('webhookAttempt');
  await t.deps.db
    .insertInto('webhookAttempts')
    .values({
      id,
      workspaceId: c.env.workspaceId,
      environment: 'test',
      messageId,
      endpointId,
      eventType: m.eventType,
      attemptNumber: 1,
      trigger: 'scheduled',
      url: HOOK,
      nodeId: 'node-1',
      status: 'succeeded',
      responseStatus: 204,
      responseBody: '',
      responseTruncated: 0,
      errorCode: null,
      errorMessage: null,
      latencyMs: 12,
      attemptedAt: t.clock.now(),
      nextAttemptAt: null,
      ...row,
    })
    .execute();
  return id;
}

async function audits(targetId: string) {
  const rows = await t.deps.db.selectFrom('auditEvents').selectAll().where('targetId', '=', targetId).orderBy('seq').execute();
  return rows.map((r) => ({ eventType: r.eventType, payload: JSON.parse(r.payload) as Record<string, unknown> }));
}

async function messageCount(c: Tenant) {
  const r = await t.deps.db
    .selectFrom('webhookMessages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspaceId', '=', c.env.workspaceId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Two endpoints, A (subscription.*) and B (*), and three messages a minute apart:
 * m1 subscription.upgraded (A succeeded, B failed), m2 invoice.paid (B pending),
 * m3 subscription.cancelled (A failed, B pending).
 */
async function scenario(name: string) {
  const c = await tenant(name);
  const a = await endpoint(c, ['subscription.*'], '/a');
  const b = await endpoint(c, ['*'], '/b');
  const t1 = t.clock.now();
  const m1 = await emit(c, 'subscription.upgraded', 'sub_1');
  t.clock.advance(MINUTE);
  const m2 = await emit(c, 'invoice.paid', 'inv_1');
  t.clock.advance(MINUTE);
  const m3 = await emit(c, 'subscription.cancelled', 'sub_1');
  await settle(m1, a, 'succeeded');
  await settle(m1, b, 'failed', 8);
  await settle(m3, a, 'failed', 8);
  t.clock.advance(MINUTE);
  return { c, a, b, m1, m2, m3, t1 };
}

describe('GET /api/v1/webhook-event-types', () => {
  it('200 lists every catalog type with its category, description and example; webhook.test is not subscribable', async () => {
    const c = await tenant('Event types');
    const list = await ok(c.api.get('/api/v1/webhook-event-types'));
    assert.deepEqual([list.object, list.hasMore], ['list', false]);
    assert.deepEqual(
      list.data.map((e: { type: string }) => e.type),
      catalogTypes,
    );
    assert.deepEqual(
      list.data.filter((e: { subscribable: boolean }) => e.subscribable).map((e: { type: string }) => e.type),
      subscribableTypes,
    );
    const upgraded = list.data.find((e: { type: string }) => e.type === 'subscription.upgraded');
    assert.deepEqual(upgraded, {
      object: 'webhook_event_type',
      type: 'subscription.upgraded',
      category: 'subscription',
      description: eventCatalog['subscription.upgraded'].description,
      subscribable: true,
      example: exampleOf('subscription.upgraded'),
    });
    const test = list.data.find((e: { type: string }) => e.type === 'webhook.test');
    assert.deepEqual([test.category, test.subscribable], ['webhook', false]);
  });

  it('400 an unknown query parameter', async () => {
    const c = await tenant('Event types 400');
    await rejects(c.api.get('/api/v1/webhook-event-types?colour=blue'), 'query.colour');
  });
});

describe('GET /api/v1/webhook-messages', () => {
  let s: Awaited<ReturnType<typeof scenario>>;
  const list = async (query = '') => ok(s.c.api.get(`/api/v1/webhook-messages${query}`));
  before(async () => {
    s = await scenario('Message log');
  });

  it('200 newest first, each with its payload (the body sent) and its deliveries by endpoint', async () => {
    const page = await list();
    assert.deepEqual([page.object, ids(page), page.hasMore], ['list', [s.m3, s.m2, s.m1], false]);
    const m1 = page.data[2];
    const body = await t.deps.db.selectFrom('webhookMessages').select('body').where('id', '=', s.m1).executeTakeFirstOrThrow();
    const [first, second] = [s.a, s.b].sort();
    const delivered = (endpointId: string) =>
      endpointId === s.a
        ? { status: 'succeeded', lastResponseStatus: 204, lastError: null }
        : { status: 'failed', lastResponseStatus: 500, lastError: 'http_500' };
    assert.deepEqual(m1, {
      id: s.m1,
      object: 'webhook_message',
      environment: 'test',
      eventType: 'subscription.upgraded',
      source: 'event',
      correlationId: 'req_sub_1',
      createdAt: iso(s.t1),
      payload: JSON.parse(body.body),
      deliveries: [first!, second!].map((endpointId) => ({
        object: 'webhook_delivery',
        messageId: s.m1,
        endpointId,
        attempts: endpointId === s.a ? 1 : 8,
        nextAttemptAt: null,
        lastAttemptAt: iso(s.t1 + 2 * MINUTE),
        createdAt: iso(s.t1),
        updatedAt: iso(s.t1 + 2 * MINUTE),
        ...delivered(endpointId),
      })),
    });
    assert.deepEqual(m1.payload, { type: 'subscription.upgraded', timestamp: iso(s.t1), data: { object: { id: 'sub_1', object: 'subscription' } } });
    const m2 = page.data[1];
    assert.deepEqual(
      m2.deliveries.map((d: { endpointId: string; status: string; nextAttemptAt: string }) => [d.endpointId, d.status, d.nextAttemptAt]),
      [[s.b, 'pending', iso(s.t1 + MINUTE)]],
      'invoice.paid went to B only',
    );
  });

  it('200 pages with limit, startingAfter and endingBefore', async () => {
    const first = await list('?limit=2');
    assert.deepEqual([ids(first), first.hasMore], [[s.m3, s.m2], true]);
    const next = await list(`?limit=2&startingAfter=${s.m2}`);
    assert.deepEqual([ids(next), next.hasMore], [[s.m1], false]);
    const back = await list(`?limit=1&endingBefore=${s.m1}`);
    assert.deepEqual([ids(back), back.hasMore], [[s.m2], true]);
  });

  it('200 eventType: an exact type, or a category.*', async () => {
    assert.deepEqual(ids(await list('?eventType=invoice.paid')), [s.m2]);
    assert.deepEqual(ids(await list('?eventType=subscription.*')), [s.m3, s.m1]);
    assert.deepEqual(ids(await list('?eventType=api_key.*')), []);
  });

  it('200 endpointId and status: messages with a delivery to that endpoint, in that state', async () => {
    assert.deepEqual(ids(await list(`?endpointId=${s.a}`)), [s.m3, s.m1]);
    assert.deepEqual(ids(await list('?status=failed')), [s.m3, s.m1]);
    assert.deepEqual(ids(await list('?status=pending')), [s.m3, s.m2]);
    assert.deepEqual(ids(await list('?status=succeeded')), [s.m1]);
    assert.deepEqual(ids(await list(`?status=failed&endpointId=${s.a}`)), [s.m3]);
    assert.deepEqual(ids(await list(`?status=failed&endpointId=${s.b}`)), [s.m1]);
    assert.deepEqual(ids(await list(`?status=pending&endpointId=${s.b}&eventType=invoice.*`)), [s.m2]);
    assert.deepEqual(ids(await list('?endpointId=we_nobody')), []);
  });

  it('200 createdFrom is inclusive, createdTo exclusive, to the millisecond', async () => {
    assert.deepEqual(ids(await list(`?createdFrom=${iso(s.t1 + MINUTE)}`)), [s.m3, s.m2]);
    assert.deepEqual(ids(await list(`?createdTo=${iso(s.t1 + MINUTE)}`)), [s.m1]);
    assert.deepEqual(ids(await list(`?createdFrom=${iso(s.t1 + MINUTE)}&createdTo=${iso(s.t1 + MINUTE + 1)}`)), [s.m2]);
    assert.deepEqual(ids(await list(`?createdFrom=${encodeURIComponent('2026-01-15T13:01:00+01:00')}`)), [s.m3, s.m2], 'an offset is a zone');
  });

  it('200 the range is on createdAt exactly, though a message’s id is made after it', async () => {
    const c = await tenant('Message log, ticking clock');
    await endpoint(c, ['*']);
    // A clock that moves a millisecond each time it is read: the id's instant passes createdAt.
    let now = t.clock.now();
    const clock = { now: () => now++ };
    await transaction(t.deps.db, (trx) =>
      emitWebhookEvents(trx, { clock, ids: createIdGenerator(clock) }, [
        {
          origin: { workspaceId: c.env.workspaceId, environment: 'test', correlationId: 'req_tick' },
          event: { type: 'invoice.paid', orderingKey: null, data: { object: { id: 'inv_tick', object: 'invoice' } } },
        },
      ]),
    );
    const [m] = (await ok(c.api.get('/api/v1/webhook-messages'))).data;
    const created = Date.parse(m.createdAt);
    assert.ok(idTime(m.id) > created, 'the id was made later than createdAt');
    assert.deepEqual(ids(await ok(c.api.get(`/api/v1/webhook-messages?createdFrom=${iso(created + 1)}`))), []);
    assert.deepEqual(ids(await ok(c.api.get(`/api/v1/webhook-messages?createdTo=${iso(created + 1)}`))), [m.id]);
  });

  it('200 only the key’s workspace and environment', async () => {
    assert.deepEqual((await ok(t.seed.client(s.c.ws.live.secretKey).get('/api/v1/webhook-messages'))).data, []);
    const other = await tenant('Message log, other');
    assert.deepEqual((await ok(other.api.get('/api/v1/webhook-messages'))).data, []);
  });

  it('400 names the bad query parameter', async () => {
    const bad = async (query: string, field: string) => rejects(s.c.api.get(`/api/v1/webhook-messages?${query}`), field);
    assert.match((await bad('eventType=invoice.exploded', 'query.eventType')).message, /invoice\.exploded/);
    await bad('eventType=nothing.*', 'query.eventType');
    await bad('eventType=*', 'query.eventType');
    await bad('status=lost', 'query.status');
    await bad('createdFrom=yesterday', 'query.createdFrom');
    await bad('createdTo=2026-01-15T12:00:00', 'query.createdTo');
    await bad('createdFrom=2026-01-15T12:00:00Z&createdTo=2026-01-15T12:00:00Z', 'query.createdTo');
    await bad('limit=101', 'query.limit');
    await bad('limit=0', 'query.limit');
    await bad('colour=blue', 'query.colour');
    await bad(`endpointId=${'x'.repeat(101)}`, 'query.endpointId');
  });
});

describe('GET /api/v1/webhook-messages/{id}', () => {
  it('200 the message with its deliveries; the same object as in the list', async () => {
    const s = await scenario('Message get');
    const got = await ok(s.c.api.get(`/api/v1/webhook-messages/${s.m3}`));
    assert.deepEqual(got, (await ok(s.c.api.get('/api/v1/webhook-messages?limit=1'))).data[0]);
    assert.deepEqual(
      got.deliveries.map((d: { endpointId: string; status: string }) => [d.endpointId, d.status]),
      [
        [s.a, 'failed'],
        [s.b, 'pending'],
      ].sort(),
    );
  });

  it('404 an unknown id, another workspace’s message, the other environment’s', async () => {
    const s = await scenario('Message get 404');
    const other = await tenant('Message get, other');
    for (const [client, id] of [
      [s.c.api, 'msg_nothing'],
      [other.api, s.m1],
      [t.seed.client(s.c.ws.live.secretKey), s.m1],
    ] as const) {
      assert.deepEqual(await refused(client.get(`/api/v1/webhook-messages/${id}`)), [404, 'NOT_FOUND', 'id']);
    }
  });
});

describe('GET /api/v1/webhook-attempts', () => {
  let s: Awaited<ReturnType<typeof scenario>>;
  const at: Record<string, string> = {};
  let t0 = 0;
  const list = async (query = '') => ok(s.c.api.get(`/api/v1/webhook-attempts${query}`));
  before(async () => {
    s = await scenario('Attempt log');
    t0 = t.clock.now();
    at.a1 = await attempt(s.c, s.m1, s.a);
    t.clock.advance(1_000);
    at.b1 = await attempt(s.c, s.m1, s.b, {
      status: 'failed',
      responseStatus: 500,
      responseBody: 'x'.repeat(1024),
      responseTruncated: 1,
      errorCode: 'http_500',
      errorMessage: 'The endpoint answered 500.',
      latencyMs: 85,
      nextAttemptAt: t.clock.now() + 5_000,
    });
    t.clock.advance(5_000);
    at.b2 = await attempt(s.c, s.m1, s.b, {
      attemptNumber: 2,
      status: 'failed',
      responseStatus: null,
      responseBody: null,
      errorCode: 'timeout',
      errorMessage: 'No answer within 15 s.',
      latencyMs: 15_000,
    });
    t.clock.advance(MINUTE);
    at.a3 = await attempt(s.c, s.m3, s.a, { trigger: 'replay', attemptNumber: 9 });
  });

  it('200 every attempt, newest first, with its outcome, answer, error, latency and trigger', async () => {
    const page = await list();
    assert.deepEqual([ids(page), page.hasMore], [[at.a3, at.b2, at.b1, at.a1], false]);
    assert.deepEqual(page.data[2], {
      id: at.b1,
      object: 'webhook_attempt',
      messageId: s.m1,
      endpointId: s.b,
      eventType: 'subscription.upgraded',
      attemptNumber: 1,
      trigger: 'scheduled',
      url: HOOK,
      status: 'failed',
      responseStatus: 500,
      responseBody: 'x'.repeat(1024),
      responseTruncated: true,
      errorCode: 'http_500',
      errorMessage: 'The endpoint answered 500.',
      latencyMs: 85,
      attemptedAt: iso(t0 + 1_000),
      nextAttemptAt: iso(t0 + 6_000),
    });
    assert.deepEqual([page.data[1].responseStatus, page.data[1].responseBody, page.data[1].errorCode], [null, null, 'timeout']);
    assert.equal(page.data[3].responseTruncated, false);
  });

  it('200 filters by endpoint, message, event type, status and trigger, combined', async () => {
    assert.deepEqual(ids(await list(`?endpointId=${s.b}`)), [at.b2, at.b1]);
    assert.deepEqual(ids(await list(`?messageId=${s.m3}`)), [at.a3]);
    assert.deepEqual(ids(await list('?eventType=subscription.cancelled')), [at.a3]);
    assert.deepEqual(ids(await list('?eventType=subscription.*')), [at.a3, at.b2, at.b1, at.a1]);
    assert.deepEqual(ids(await list('?eventType=invoice.*')), []);
    assert.deepEqual(ids(await list('?status=failed')), [at.b2, at.b1]);
    assert.deepEqual(ids(await list('?trigger=replay')), [at.a3]);
    assert.deepEqual(ids(await list(`?status=succeeded&endpointId=${s.a}&messageId=${s.m1}`)), [at.a1]);
  });

  it('200 attemptedFrom is inclusive, attemptedTo exclusive', async () => {
    assert.deepEqual(ids(await list(`?attemptedFrom=${iso(t0 + 1_000)}&attemptedTo=${iso(t0 + 6_000)}`)), [at.b1]);
    assert.deepEqual(ids(await list(`?attemptedFrom=${iso(t0 + 6_000)}`)), [at.a3, at.b2]);
  });

  it('200 pages with limit, startingAfter and endingBefore', async () => {
    const first = await list('?limit=3');
    assert.deepEqual([ids(first), first.hasMore], [[at.a3, at.b2, at.b1], true]);
    const next = await list(`?limit=3&startingAfter=${at.b1}`);
    assert.deepEqual([ids(next), next.hasMore], [[at.a1], false]);
    const back = await list(`?limit=2&endingBefore=${at.a1}`);
    assert.deepEqual([ids(back), back.hasMore], [[at.b2, at.b1], true]);
  });

  it('200 only the key’s workspace and environment', async () => {
    const other = await tenant('Attempt log, other');
    assert.deepEqual((await ok(other.api.get(`/api/v1/webhook-attempts?messageId=${s.m1}`))).data, []);
    assert.deepEqual((await ok(t.seed.client(s.c.ws.live.secretKey).get('/api/v1/webhook-attempts'))).data, []);
  });

  it('400 names the bad query parameter', async () => {
    const bad = async (query: string, field: string) => rejects(s.c.api.get(`/api/v1/webhook-attempts?${query}`), field);
    await bad('status=pending', 'query.status');
    await bad('trigger=manual', 'query.trigger');
    await bad('eventType=subscription', 'query.eventType');
    await bad('attemptedFrom=2026-02-30T00:00:00Z', 'query.attemptedFrom');
    await bad('attemptedFrom=2026-01-15T12:00:00Z&attemptedTo=2026-01-15T11:00:00Z', 'query.attemptedTo');
    await bad(`messageId=${'m'.repeat(101)}`, 'query.messageId');
    await bad('limit=1000', 'query.limit');
  });
});

describe('POST /api/v1/webhook-messages/{id}/replay', () => {
  const replay = (c: Tenant, id: string, body?: unknown, headers?: Record<string, string>) =>
    c.api.post(`/api/v1/webhook-messages/${id}/replay`, body, headers);

  it('202 to every endpoint it was delivered to: pending, due now, the schedule from its start, trigger replay; audited', async () => {
    const s = await scenario('Replay all');
    const now = t.clock.now();
    const body = await accepted(replay(s.c, s.m1));
    assert.deepEqual([body.object, body.messageId], ['webhook_message_replay', s.m1]);
    assert.deepEqual(
      body.deliveries.map((d: { endpointId: string; status: string; nextAttemptAt: string; attempts: number }) => [
        d.endpointId,
        d.status,
        d.nextAttemptAt,
        d.attempts,
      ]),
      [
        [s.a, 'pending', iso(now), 1],
        [s.b, 'pending', iso(now), 8],
      ].sort(),
    );
    for (const e of [s.a, s.b]) {
      const d = await delivery(s.m1, e);
      assert.deepEqual([d.status, d.nextAttemptAt, d.scheduleStep, d.nextAttemptTrigger, d.updatedAt], ['pending', now, 0, 'replay', now]);
    }
    assert.deepEqual(await audits(s.m1), [
      { eventType: 'webhook_message.replayed', payload: { eventType: 'subscription.upgraded', endpointIds: [s.a, s.b].sort() } },
    ]);
    assert.deepEqual((await ok(s.c.api.get(`/api/v1/webhook-messages/${s.m1}`))).deliveries, body.deliveries);
  });

  it('202 to one endpoint: only that delivery changes', async () => {
    const s = await scenario('Replay one');
    const before = await delivery(s.m3, s.b);
    const body = await accepted(replay(s.c, s.m3, { endpointId: s.a }));
    assert.deepEqual(
      body.deliveries.map((d: { endpointId: string }) => d.endpointId),
      [s.a],
    );
    assert.deepEqual([(await delivery(s.m3, s.a)).status, (await delivery(s.m3, s.a)).nextAttemptTrigger], ['pending', 'replay']);
    assert.deepEqual(await delivery(s.m3, s.b), before);
  });

  it('202 with no body at all, and every endpoint but a deleted one', async () => {
    const s = await scenario('Replay deleted');
    await ok(s.c.api.delete(`/api/v1/webhook-endpoints/${s.b}`));
    const res = await s.c.api.request('POST', `/api/v1/webhook-messages/${s.m1}/replay`);
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.deliveries.map((d: { endpointId: string }) => d.endpointId),
      [s.a],
    );
    assert.equal((await delivery(s.m1, s.b)).status, 'failed');
  });

  it('202 an Idempotency-Key replay answers the first response and replays nothing more', async () => {
    const s = await scenario('Replay idempotent');
    const headers = { 'idempotency-key': 'replay-once' };
    const first = await accepted(replay(s.c, s.m1, { endpointId: s.b }, headers));
    const firstState = await delivery(s.m1, s.b);
    t.clock.advance(MINUTE);
    const again = await replay(s.c, s.m1, { endpointId: s.b }, headers);
    assert.deepEqual([again.status, again.headers['idempotent-replayed'], again.body], [202, 'true', first]);
    assert.deepEqual(await delivery(s.m1, s.b), firstState, 'the delivery was not touched again');
    assert.equal((await audits(s.m1)).length, 1);
    assert.equal((await replay(s.c, s.m1, { endpointId: s.a }, headers)).status, 422, 'the same key with another body');
  });

  it('400 an unknown field, an endpointId too long', async () => {
    const s = await scenario('Replay 400');
    await rejects(replay(s.c, s.m1, { endpoint: s.a }), 'body.endpoint');
    await rejects(replay(s.c, s.m1, { endpointId: 'x'.repeat(101) }), 'body.endpointId');
    await rejects(replay(s.c, s.m1, { endpointId: 7 }), 'body.endpointId');
  });

  it('404 an unknown message, another workspace’s, or an endpoint the message never went to', async () => {
    const s = await scenario('Replay 404');
    const other = await tenant('Replay 404, other');
    assert.deepEqual(await refused(replay(s.c, 'msg_nothing')), [404, 'NOT_FOUND', 'id']);
    assert.deepEqual(await refused(replay(other, s.m1)), [404, 'NOT_FOUND', 'id']);
    assert.deepEqual(await refused(replay(s.c, s.m2, { endpointId: s.a })), [404, 'NOT_FOUND', 'body.endpointId']);
    assert.equal((await delivery(s.m1, s.b)).status, 'failed', 'another workspace’s replay changed nothing');
  });

  it('409 a disabled endpoint, named, whether given or among every endpoint; a deleted one given; nothing is written', async () => {
    const s = await scenario('Replay 409');
    await ok(s.c.api.patch(`/api/v1/webhook-endpoints/${s.a}`, { enabled: false }));
    const before = [await delivery(s.m1, s.a), await delivery(s.m1, s.b)];
    const one = await replay(s.c, s.m1, { endpointId: s.a });
    assert.deepEqual([one.status, one.body.errors[0].code, one.body.errors[0].field], [409, 'ENDPOINT_DISABLED', 'body.endpointId']);
    assert.match(one.body.errors[0].message, new RegExp(s.a));
    const all = await replay(s.c, s.m1);
    assert.deepEqual([all.status, all.body.errors[0].code], [409, 'ENDPOINT_DISABLED']);
    assert.match(all.body.errors[0].message, new RegExp(s.a));
    assert.deepEqual([await delivery(s.m1, s.a), await delivery(s.m1, s.b)], before, 'B was not replayed either');
    await ok(s.c.api.delete(`/api/v1/webhook-endpoints/${s.b}`));
    const deleted = await replay(s.c, s.m1, { endpointId: s.b });
    assert.deepEqual([deleted.status, deleted.body.errors[0].code, deleted.body.errors[0].field], [409, 'CONFLICT', 'body.endpointId']);
    assert.match(deleted.body.errors[0].message, new RegExp(s.b));
    assert.deepEqual(await audits(s.m1), []);
  });
});

describe('POST /api/v1/webhook-endpoints/{id}/replay-failed', () => {
  const replayFailed = (c: Tenant, id: string, body: unknown, headers?: Record<string, string>) =>
    c.api.post(`/api/v1/webhook-endpoints/${id}/replay-failed`, body, headers);

  it('202 every failed delivery of the endpoint since the instant is pending again, due now; the rest is untouched; audited', async () => {
    const s = await scenario('Replay failed');
    // m1's and m3's to A: m1 is older than `since`, m3 newer; B's failure (m1) is another endpoint's.
    await settle(s.m1, s.a, 'failed', 8);
    const untouched = [await delivery(s.m1, s.a), await delivery(s.m1, s.b), await delivery(s.m3, s.b)];
    const since = s.t1 + MINUTE;
    const now = t.clock.now();
    const body = await accepted(replayFailed(s.c, s.a, { since: iso(since) }));
    assert.deepEqual(body, { object: 'webhook_endpoint_replay', endpointId: s.a, since: iso(since), replayed: 1 });
    const d = await delivery(s.m3, s.a);
    assert.deepEqual([d.status, d.nextAttemptAt, d.scheduleStep, d.nextAttemptTrigger, d.attempts], ['pending', now, 0, 'replay', 8]);
    assert.deepEqual([await delivery(s.m1, s.a), await delivery(s.m1, s.b), await delivery(s.m3, s.b)], untouched);
    assert.deepEqual((await audits(s.a)).at(-1), { eventType: 'webhook_endpoint.failed_replayed', payload: { since: iso(since), count: 1 } });
    // Nothing failed is left since then: a second replay finds nothing.
    assert.equal((await accepted(replayFailed(s.c, s.a, { since: iso(since) }))).replayed, 0);
  });

  it('202 the deliveries failed while the endpoint was disabled are sent after re-enabling it', async () => {
    const c = await tenant('Replay failed, disabled');
    const e = await endpoint(c, ['invoice.*']);
    await ok(c.api.patch(`/api/v1/webhook-endpoints/${e}`, { enabled: false }));
    const since = t.clock.now();
    const m = await emit(c, 'invoice.finalized', 'inv_2');
    assert.deepEqual([(await delivery(m, e)).status, (await delivery(m, e)).lastError], ['failed', 'endpoint_disabled']);
    await ok(c.api.patch(`/api/v1/webhook-endpoints/${e}`, { enabled: true }));
    assert.equal((await accepted(replayFailed(c, e, { since: iso(since) }))).replayed, 1);
    assert.deepEqual([(await delivery(m, e)).status, (await delivery(m, e)).nextAttemptAt], ['pending', t.clock.now()]);
  });

  it('202 an Idempotency-Key replay answers the first count and replays nothing more', async () => {
    const s = await scenario('Replay failed idempotent');
    const headers = { 'idempotency-key': 'replay-failed-once' };
    const first = await accepted(replayFailed(s.c, s.b, { since: iso(s.t1) }, headers));
    assert.equal(first.replayed, 1);
    await settle(s.m1, s.b, 'failed', 9);
    const again = await replayFailed(s.c, s.b, { since: iso(s.t1) }, headers);
    assert.deepEqual([again.status, again.headers['idempotent-replayed'], again.body], [202, 'true', first]);
    assert.equal((await delivery(s.m1, s.b)).status, 'failed', 'the stored answer, not a second replay');
  });

  it('400 since missing, malformed, past the log’s retention or in the future', async () => {
    const s = await scenario('Replay failed 400');
    const now = t.clock.now();
    await rejects(replayFailed(s.c, s.a, {}), 'body.since');
    await rejects(replayFailed(s.c, s.a, { since: 'last tuesday' }), 'body.since');
    const old = await rejects(replayFailed(s.c, s.a, { since: iso(now - 30 * DAY - 1) }), 'body.since');
    assert.match(old.message, /30 days/);
    await accepted(replayFailed(s.c, s.a, { since: iso(now - 30 * DAY) }));
    await rejects(replayFailed(s.c, s.a, { since: iso(now + 1) }), 'body.since');
    await rejects(replayFailed(s.c, s.a, { since: iso(now), more: 1 }), 'body.more');
  });

  it('404 an unknown, deleted or other workspace’s endpoint', async () => {
    const s = await scenario('Replay failed 404');
    const other = await tenant('Replay failed 404, other');
    const since = iso(s.t1);
    assert.deepEqual(await refused(replayFailed(other, s.a, { since })), [404, 'NOT_FOUND', 'id']);
    assert.deepEqual(await refused(replayFailed(s.c, 'we_nothing', { since })), [404, 'NOT_FOUND', 'id']);
    await ok(s.c.api.delete(`/api/v1/webhook-endpoints/${s.a}`));
    assert.deepEqual(await refused(replayFailed(s.c, s.a, { since })), [404, 'NOT_FOUND', 'id']);
    assert.equal((await delivery(s.m3, s.a)).status, 'failed');
  });

  it('409 ENDPOINT_DISABLED for a disabled endpoint; nothing is replayed', async () => {
    const s = await scenario('Replay failed 409');
    await ok(s.c.api.patch(`/api/v1/webhook-endpoints/${s.a}`, { enabled: false }));
    const [status, code] = await refused(replayFailed(s.c, s.a, { since: iso(s.t1) }));
    assert.deepEqual([status, code], [409, 'ENDPOINT_DISABLED']);
    assert.equal((await delivery(s.m3, s.a)).status, 'failed');
  });
});

describe('POST /api/v1/webhook-endpoints/{id}/test', () => {
  const test = (c: Tenant, id: string, body?: unknown, headers?: Record<string, string>) => c.api.post(`/api/v1/webhook-endpoints/${id}/test`, body, headers);

  it('202 writes one webhook.test message with one pending delivery, to this endpoint only, whatever its filters; audited', async () => {
    const c = await tenant('Test event');
    const target = await endpoint(c, ['invoice.paid']);
    const bystander = await endpoint(c, ['*']);
    const now = t.clock.now();
    const message = await accepted(test(c, target));
    assert.match(message.id, /^msg_/);
    assert.deepEqual(
      { ...message, id: undefined },
      {
        id: undefined,
        object: 'webhook_message',
        environment: 'test',
        eventType: 'webhook.test',
        source: 'test',
        correlationId: message.correlationId,
        createdAt: iso(now),
        payload: { type: 'webhook.test', timestamp: iso(now), data: exampleOf('webhook.test').data },
        deliveries: [
          {
            object: 'webhook_delivery',
            messageId: message.id,
            endpointId: target,
            status: 'pending',
            attempts: 0,
            nextAttemptAt: iso(now),
            lastAttemptAt: null,
            lastResponseStatus: null,
            lastError: null,
            createdAt: iso(now),
            updatedAt: iso(now),
          },
        ],
      },
    );
    assert.match(message.correlationId, /^req_/);
    assert.equal(await messageCount(c), 1);
    const rows = await t.deps.db.selectFrom('webhookDeliveries').selectAll().where('workspaceId', '=', c.env.workspaceId).execute();
    assert.deepEqual(
      rows.map((r) => [r.messageId, r.endpointId, r.status, r.nextAttemptTrigger]),
      [[message.id, target, 'pending', 'test']],
    );
    assert.ok(!rows.some((r) => r.endpointId === bystander));
    assert.deepEqual((await audits(target)).at(-1), { eventType: 'webhook_endpoint.test_sent', payload: { messageId: message.id } });
    assert.deepEqual(await ok(c.api.get(`/api/v1/webhook-messages/${message.id}`)), message);
  });

  it('202 with no body, or with eventType webhook.test', async () => {
    const c = await tenant('Test event bodies');
    const e = await endpoint(c, ['*']);
    const res = await c.api.request('POST', `/api/v1/webhook-endpoints/${e}/test`);
    assert.equal(res.status, 202, JSON.stringify(res.body));
    await accepted(test(c, e, { eventType: 'webhook.test' }));
    assert.equal(await messageCount(c), 2);
  });

  it('202 an Idempotency-Key replay answers the same message and writes no other', async () => {
    const c = await tenant('Test event idempotent');
    const e = await endpoint(c, ['*']);
    const headers = { 'idempotency-key': 'test-once' };
    const first = await accepted(test(c, e, {}, headers));
    const again = await test(c, e, {}, headers);
    assert.deepEqual([again.status, again.headers['idempotent-replayed'], again.body], [202, 'true', first]);
    assert.equal(await messageCount(c), 1);
  });

  it('400 an eventType other than webhook.test, an unknown field', async () => {
    const c = await tenant('Test event 400');
    const e = await endpoint(c, ['*']);
    const err = await rejects(test(c, e, { eventType: 'invoice.paid' }), 'body.eventType');
    assert.match(err.message, /webhook\.test/);
    await rejects(test(c, e, { payload: {} }), 'body.payload');
    assert.equal(await messageCount(c), 0);
  });

  it('404 an unknown, deleted or other workspace’s endpoint', async () => {
    const c = await tenant('Test event 404');
    const other = await tenant('Test event 404, other');
    const e = await endpoint(c, ['*']);
    assert.deepEqual(await refused(test(other, e)), [404, 'NOT_FOUND', 'id']);
    assert.deepEqual(await refused(test(c, 'we_nothing')), [404, 'NOT_FOUND', 'id']);
    await ok(c.api.delete(`/api/v1/webhook-endpoints/${e}`));
    assert.deepEqual(await refused(test(c, e)), [404, 'NOT_FOUND', 'id']);
    assert.equal(await messageCount(c), 0);
    assert.equal(await messageCount(other), 0);
  });

  it('409 ENDPOINT_DISABLED for a disabled endpoint; nothing is written', async () => {
    const c = await tenant('Test event 409');
    const e = await endpoint(c, ['*']);
    await ok(c.api.patch(`/api/v1/webhook-endpoints/${e}`, { enabled: false }));
    const [status, code] = await refused(test(c, e));
    assert.deepEqual([status, code], [409, 'ENDPOINT_DISABLED']);
    assert.equal(await messageCount(c), 0);
  });
});

describe('every delivery log route', () => {
  it('401 without a key; 403 INSUFFICIENT_SCOPE without admin; nothing is written', async () => {
    const s = await scenario('Scopes');
    const { token } = await t.seed.workspaceKey(s.c.env, ['keys:write', 'events:read']);
    for (const [client, status, code] of [
      [t.seed.client(null), 401, 'UNAUTHENTICATED'],
      [t.seed.client(token), 403, 'INSUFFICIENT_SCOPE'],
    ] as const) {
      for (const res of [
        await client.get('/api/v1/webhook-event-types'),
        await client.get('/api/v1/webhook-messages'),
        await client.get(`/api/v1/webhook-messages/${s.m1}`),
        await client.post(`/api/v1/webhook-messages/${s.m1}/replay`, {}),
        await client.get('/api/v1/webhook-attempts'),
        await client.post(`/api/v1/webhook-endpoints/${s.a}/replay-failed`, { since: iso(s.t1) }),
        await client.post(`/api/v1/webhook-endpoints/${s.a}/test`, {}),
      ]) {
        assert.deepEqual([res.status, res.body.errors[0].code], [status, code], JSON.stringify(res.body));
      }
    }
    assert.deepEqual([(await delivery(s.m1, s.b)).status, await messageCount(s.c)], ['failed', 3]);
  });
});
