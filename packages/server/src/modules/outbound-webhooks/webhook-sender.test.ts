// The outbound webhook sender through a real app: messages written by the outbox
// (emitWebhookEvents, in a transaction, as the emitting modules do), endpoints made through the
// API, deliveries to real receivers on 127.0.0.1, every one verified with the standardwebhooks
// package. Time is a frozen clock: a retry becomes due when the test advances it, and
// `sender.drain()` sends what is due and waits for every answer, so nothing sleeps. The tests
// share one app (a PostgreSQL schema costs ~0.4 s to make and as much to drop): each has a
// workspace of its own and starts at a time of its own, 200 hours after the last one's, so the
// clock only moves forward; before it starts, the sender is idle and what an earlier test left
// pending is failed, so a drain sends only this test's deliveries. A test that closes the sender
// has an app of its own.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import type { Client, TenantHandle } from '../../../test/helpers/seed.js';
import { ok } from '../../../test/helpers/expect.js';
import { answers, verifyDelivery, WebhookReceiver, type Answer, type Answering } from '../../../test/helpers/webhook-receiver.js';
import { FrozenClock } from '../../lib/clock.js';
import { transaction } from '../../db/transaction.js';
import { emitWebhookEvents } from './emit-webhook-events.js';
import type { CatalogType } from './event-catalog.js';
import { systemResolver, type HostResolver } from './resolve-destination.js';
import type { Config } from '../../lib/config.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from './retry-schedule.js';
import { RESPONSE_KEEP_BYTES, USER_AGENT } from './send-attempt.js';
import { buildWebhookBody } from './webhook-payload.js';
import { insertDeliveries, insertMessages, listTenantMessages } from './webhook-message.repository.js';
import { WebhookSender } from './webhook-sender.js';

const HOUR = 3_600_000;
/** The first test's start; each test's own is `START` (set by world()), 200 hours after the last one's. */
const FIRST_START = Date.UTC(2026, 0, 15, 12, 0, 0);
/** Longer than any test advances its clock (the longest, about 27.6 h of retries and 30 h more). */
const TEST_SPAN_MS = 200 * HOUR;
let START = FIRST_START;

interface World {
  t: TestApp;
  sender: WebhookSender;
  ws: TenantHandle;
  api: Client;
  receiver(answering?: Answering): Promise<WebhookReceiver>;
  endpoint(url: string, body?: Record<string, unknown>): Promise<{ id: string; secret: string }>;
  /** Writes one message per event, in one transaction, as an emitting module does; returns their ids in order. */
  emit(...events: Array<{ type?: CatalogType; key?: string | null; id?: string }>): Promise<string[]>;
  delivery(messageId: string, endpointId: string): Promise<Record<string, any>>;
  attempts(filter?: { messageId?: string; endpointId?: string }): Promise<Array<Record<string, any>>>;
}

const worlds: Array<{ t: TestApp; receivers: WebhookReceiver[]; extra: WebhookSender[] }> = [];
after(async () => {
  for (const w of worlds) {
    for (const s of w.extra) await s.close();
    await w.t.close();
    for (const r of w.receivers) await r.close();
  }
});

/**
 * The timeout is a bound for a loaded machine, where receivers share this process's event loop;
 * the timeout test sets a short one. The poll is an hour: commits and drains drive the sender.
 */
const BASE_CONFIG: Partial<Config> = { rateLimitPerMinute: 1_000_000, outboundWebhookTimeoutMs: 10_000, outboundWebhookPollMs: 3_600_000 };

interface WorldOptions {
  /** Settings the sender and the routes read as they go (timeouts, health, the SSRF guard): set on the shared app for this test. */
  config?: Partial<Pick<Config, 'outboundWebhookTimeoutMs' | 'outboundWebhookDisableAfterHours'>>;
  /** The SSRF guard on (off by default: receivers listen on 127.0.0.1), and the DNS it resolves with. */
  webhooks?: { guard?: boolean; resolver?: HostResolver };
  /** An app of this test's own (a test that closes the sender). */
  own?: boolean;
}

/** The DNS of the running test (world()'s `webhooks.resolver`), else the system's. */
let resolverNow: HostResolver = systemResolver;
let shared: Promise<{ t: TestApp; entry: (typeof worlds)[number]; settings: Config }> | null = null;
let tests = 0;

function sharedApp() {
  shared ??= (async () => {
    const t = await createTestApp({
      clock: new FrozenClock(FIRST_START),
      webhooks: { sender: true, resolver: (name) => resolverNow(name) },
      config: BASE_CONFIG,
    });
    const entry = { t, receivers: [] as WebhookReceiver[], extra: [] as WebhookSender[] };
    worlds.push(entry);
    return { t, entry, settings: { ...t.deps.config } };
  })();
  return shared;
}

/**
 * This test's world: a fresh workspace on the shared app with its sender on, a frozen clock at this
 * test's START, and the settings asked for (or an app of its own, `own`).
 */
async function world(opts: WorldOptions = {}): Promise<World> {
  START = FIRST_START + tests++ * TEST_SPAN_MS;
  let t: TestApp;
  let entry: (typeof worlds)[number];
  if (opts.own) {
    t = await createTestApp({
      clock: new FrozenClock(START),
      webhooks: { sender: true, ...opts.webhooks },
      config: { ...BASE_CONFIG, ...opts.config },
    });
    entry = { t, receivers: [], extra: [] };
    worlds.push(entry);
  } else {
    const app = await sharedApp();
    ({ t, entry } = app);
    // What an earlier test left: nothing in flight, and nothing pending that a drain would send.
    await t.sender!.idle();
    await t.deps.db
      .updateTable('webhookDeliveries')
      .set({ status: 'failed', nextAttemptAt: null, lastError: 'endpoint_disabled' })
      .where('status', '=', 'pending')
      .execute();
    Object.assign(t.deps.config, app.settings, opts.config, { outboundWebhookAllowPrivateAddresses: !(opts.webhooks?.guard ?? false) });
    resolverNow = opts.webhooks?.resolver ?? systemResolver;
    t.clock.set(START);
  }
  const ws = await t.seed.workspace();
  const api = t.seed.client(ws.test.secretKey);
  let n = 0;
  return {
    t,
    sender: t.sender!,
    ws,
    api,
    async receiver(answering = answers.ok) {
      const r = await WebhookReceiver.start(answering, t.clock);
      entry.receivers.push(r);
      return r;
    },
    async endpoint(url, body = {}) {
      const created = await ok(api.post('/api/v1/webhook-endpoints', { url, eventTypes: ['*'], ...body }));
      return { id: created.id, secret: created.secret };
    },
    async emit(...events) {
      const before = new Set((await listTenantMessages(t.deps.db, ws.test)).map((m) => m.id));
      await transaction(t.deps.db, (trx) =>
        emitWebhookEvents(
          trx,
          t.deps,
          events.map((e) => {
            const id = e.id ?? `sub_${++n}`;
            return {
              origin: { workspaceId: ws.workspaceId, environment: 'test' as const, correlationId: 'req_sender_test' },
              event: {
                type: e.type ?? 'subscription.renewed',
                orderingKey: e.key === undefined ? null : e.key,
                data: { object: { id, object: 'subscription' } },
              },
            };
          }),
        ),
      );
      return (await listTenantMessages(t.deps.db, ws.test)).filter((m) => !before.has(m.id)).map((m) => m.id);
    },
    delivery: (messageId, endpointId) =>
      t.deps.db.selectFrom('webhookDeliveries').selectAll().where('messageId', '=', messageId).where('endpointId', '=', endpointId).executeTakeFirstOrThrow(),
    async attempts(filter = {}) {
      // This test's workspace: the shared app holds the other tests' attempts too.
      let q = t.deps.db.selectFrom('webhookAttempts').selectAll().where('workspaceId', '=', ws.workspaceId);
      if (filter.messageId) q = q.where('messageId', '=', filter.messageId);
      if (filter.endpointId) q = q.where('endpointId', '=', filter.endpointId);
      return q.orderBy('attemptedAt').orderBy('attemptNumber').orderBy('id').execute();
    },
  };
}

/** Answers held until the test opens the gate (or every time `open` says so). */
class Gate {
  private waiting: Array<() => void> = [];
  private isOpen = false;
  constructor(private readonly answer: Answer = { status: 200, body: 'ok' }) {}
  readonly answering: Answering = () => (this.isOpen ? this.answer : new Promise<Answer>((resolve) => this.waiting.push(() => resolve(this.answer))));
  get held(): number {
    return this.waiting.length;
  }
  release(): void {
    for (const w of this.waiting.splice(0)) w();
  }
  open(): void {
    this.isOpen = true;
    this.release();
  }
}

const body = (messageBody: string) => JSON.parse(messageBody);
async function messageBody(w: World, id: string): Promise<string> {
  return (await w.t.deps.db.selectFrom('webhookMessages').select('body').where('id', '=', id).executeTakeFirstOrThrow()).body;
}

describe('sender: a healthy endpoint', () => {
  it('succeeded: each message arrives once, signed (standardwebhooks verifies it), with webhook-id the message id; its attempt is logged', async () => {
    const w = await world();
    const rx = await w.receiver();
    const ep = await w.endpoint(rx.url('/hooks/billing'));
    const ids = await w.emit({ type: 'subscription.created' }, { type: 'subscription.upgraded', key: 'sub_k' }, { type: 'invoice.paid' });
    await w.sender.drain();

    assert.deepEqual([...rx.ids()].sort(), [...ids].sort());
    for (const r of rx.received) {
      const id = r.headers['webhook-id']!;
      assert.equal(r.path, '/hooks/billing');
      assert.equal(r.method, 'POST');
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers['user-agent'], USER_AGENT);
      assert.equal(r.headers['webhook-timestamp'], String(START / 1000));
      assert.equal(r.body, await messageBody(w, id), 'the stored bytes, as signed');
      assert.deepEqual(verifyDelivery(ep.secret, r), body(r.body));
      const d = await w.delivery(id, ep.id);
      assert.deepEqual(
        {
          status: d.status,
          attempts: Number(d.attempts),
          scheduleStep: Number(d.scheduleStep),
          next: d.nextAttemptAt,
          last: Number(d.lastAttemptAt),
          code: d.lastResponseStatus,
        },
        { status: 'succeeded', attempts: 1, scheduleStep: 1, next: null, last: START, code: 200 },
      );
    }
    const log = await w.attempts();
    assert.equal(log.length, 3);
    for (const a of log) {
      assert.match(a.id, /^atmpt_/);
      assert.deepEqual(
        {
          ...a,
          id: undefined,
          messageId: undefined,
          eventType: undefined,
          latencyMs: undefined,
          attemptedAt: Number(a.attemptedAt),
          attemptNumber: Number(a.attemptNumber),
          responseTruncated: Number(a.responseTruncated),
        },
        {
          id: undefined,
          messageId: undefined,
          eventType: undefined,
          latencyMs: undefined,
          workspaceId: w.ws.workspaceId,
          environment: 'test',
          endpointId: ep.id,
          attemptNumber: 1,
          trigger: 'scheduled',
          url: rx.url('/hooks/billing'),
          nodeId: w.sender.nodeId,
          status: 'succeeded',
          responseStatus: 200,
          responseBody: 'ok',
          responseTruncated: 0,
          errorCode: null,
          errorMessage: null,
          attemptedAt: START,
          nextAttemptAt: null,
        },
      );
      assert.ok(Number.isInteger(Number(a.latencyMs)) && Number(a.latencyMs) >= 0);
    }

    await w.sender.drain();
    assert.equal(rx.received.length, 3, 'nothing is sent twice');
  });

  it('succeeded: the log keeps the first 1,024 bytes of a long answer and says it was cut', async () => {
    const w = await world();
    const rx = await w.receiver(() => ({ status: 200, body: `${'a'.repeat(1_000)}${'é'.repeat(100)}` }));
    const ep = await w.endpoint(rx.url());
    await w.emit({});
    await w.sender.drain();
    const [a] = await w.attempts({ endpointId: ep.id });
    assert.equal(Buffer.byteLength(a!.responseBody), RESPONSE_KEEP_BYTES);
    assert.equal(Number(a!.responseTruncated), 1);
  });

  it('succeeded: a commit wakes the sender at once, with no poll and no drain', async () => {
    const w = await world();
    const rx = await w.receiver();
    await w.endpoint(rx.url());
    const [id] = await w.emit({});
    // The commit signal has asked for a pass already: idle() only waits for what is under way.
    await w.sender.idle();
    assert.deepEqual(rx.ids(), [id]);
  });
});

describe('sender: signatures during a secret rotation', () => {
  it('succeeded: during the grace two signatures, and the old and the new secret each verify; after it, only the new one', async () => {
    const w = await world();
    const rx = await w.receiver();
    const ep = await w.endpoint(rx.url());
    const rotated = await ok(w.api.post(`/api/v1/webhook-endpoints/${ep.id}/rotate-secret`, { gracePeriodSeconds: 3_600 }));
    await w.emit({});
    await w.sender.drain();
    const during = rx.received[0]!;
    assert.equal(during.headers['webhook-signature']!.split(' ').length, 2);
    assert.deepEqual(verifyDelivery(rotated.secret, during), body(during.body));
    assert.deepEqual(verifyDelivery(ep.secret, during), body(during.body));

    w.t.clock.advance(3_600_000 + 1);
    await w.emit({});
    await w.sender.drain();
    const later = rx.received[1]!;
    assert.equal(later.headers['webhook-signature']!.split(' ').length, 1);
    assert.deepEqual(verifyDelivery(rotated.secret, later), body(later.body));
    assert.throws(() => verifyDelivery(ep.secret, later), /No matching signature/);
  });
});

describe('sender: retries', () => {
  it('pending, then succeeded: a 500 is retried with the same webhook-id once the clock reaches the next attempt (5 s ±20%)', async () => {
    const w = await world();
    const rx = await w.receiver(answers.failOnce);
    const ep = await w.endpoint(rx.url());
    const [id] = await w.emit({});
    await w.sender.drain();

    const first = await w.delivery(id!, ep.id);
    const due = Number(first.nextAttemptAt);
    assert.equal(first.status, 'pending');
    assert.equal(Number(first.scheduleStep), 1);
    assert.ok(due - START >= 4_000 && due - START <= 6_000, `retry after ${due - START} ms`);
    const [failed] = await w.attempts();
    assert.deepEqual(
      [failed!.status, failed!.responseStatus, failed!.responseBody, failed!.errorCode, failed!.errorMessage, Number(failed!.nextAttemptAt)],
      ['failed', 500, 'try again', 'http_status', 'HTTP 500', due],
    );
    assert.equal((await ok(w.api.get(`/api/v1/webhook-endpoints/${ep.id}`))).failingSince, new Date(START).toISOString());

    w.t.clock.set(due - 1);
    await w.sender.drain();
    assert.equal(rx.received.length, 1, 'not before it is due');

    w.t.clock.set(due);
    await w.sender.drain();
    assert.deepEqual(rx.ids(), [id, id]);
    assert.equal(rx.received[1]!.headers['webhook-timestamp'], String(Math.floor(due / 1000)));
    for (const r of rx.received) assert.deepEqual(verifyDelivery(ep.secret, r), body(r.body));
    const done = await w.delivery(id!, ep.id);
    assert.deepEqual([done.status, Number(done.attempts), Number(done.scheduleStep), done.nextAttemptAt], ['succeeded', 2, 2, null]);
    assert.deepEqual(
      (await w.attempts()).map((a) => [Number(a.attemptNumber), a.status, Number(a.attemptedAt)]),
      [
        [1, 'failed', START],
        [2, 'succeeded', due],
      ],
    );
    const endpoint = await ok(w.api.get(`/api/v1/webhook-endpoints/${ep.id}`));
    assert.deepEqual([endpoint.status, endpoint.failingSince], ['enabled', null]);
  });

  it(`failed: after ${MAX_ATTEMPTS} attempts on the schedule (about 27.6 h) the delivery fails; every attempt carries the same webhook-id`, async () => {
    const w = await world();
    const rx = await w.receiver(answers.always(503, 'down'));
    const ep = await w.endpoint(rx.url());
    const [id] = await w.emit({});
    const times: number[] = [];
    for (;;) {
      await w.sender.drain();
      times.push(w.t.clock.now());
      const d = await w.delivery(id!, ep.id);
      if (d.status !== 'pending') break;
      w.t.clock.set(Number(d.nextAttemptAt));
    }
    assert.equal(rx.received.length, MAX_ATTEMPTS);
    assert.deepEqual(new Set(rx.ids()), new Set([id]));
    rx.received.forEach((r, i) => assert.deepEqual(verifyDelivery(ep.secret, r), body(r.body), `attempt ${i + 1}`));
    RETRY_DELAYS_MS.forEach((nominal, i) => {
      const gap = times[i + 1]! - times[i]!;
      assert.ok(gap >= nominal * 0.8 && gap <= nominal * 1.2, `delay ${i + 1}: ${gap} ms for ${nominal} ms nominal`);
    });
    const span = times.at(-1)! - START;
    assert.ok(span > 22 * HOUR && span < 33 * HOUR, `${span / HOUR} h`);
    const d = await w.delivery(id!, ep.id);
    assert.deepEqual(
      [d.status, Number(d.attempts), Number(d.scheduleStep), d.nextAttemptAt, d.lastError],
      ['failed', MAX_ATTEMPTS, MAX_ATTEMPTS, null, 'http_status'],
    );
    const log = await w.attempts();
    assert.deepEqual(
      log.map((a) => Number(a.attemptNumber)),
      Array.from({ length: MAX_ATTEMPTS }, (_, i) => i + 1),
    );
    assert.equal(log.at(-1)!.nextAttemptAt, null);
    w.t.clock.advance(30 * HOUR);
    await w.sender.drain();
    assert.equal(rx.received.length, MAX_ATTEMPTS, 'a failed delivery is not tried again');
  });

  it('pending: an endpoint that never answers times out after OUTBOUND_WEBHOOK_TIMEOUT_MS (error timeout) and is retried', async () => {
    const w = await world({ config: { outboundWebhookTimeoutMs: 300 } });
    const rx = await w.receiver(answers.hang);
    const ep = await w.endpoint(rx.url());
    const [id] = await w.emit({});
    await w.sender.drain();
    const [a] = await w.attempts();
    assert.deepEqual([a!.status, a!.errorCode, a!.responseStatus, a!.responseBody], ['failed', 'timeout', null, null]);
    assert.match(a!.errorMessage, /300 ms/);
    assert.ok(Number(a!.latencyMs) >= 250, `${a!.latencyMs} ms`);
    const d = await w.delivery(id!, ep.id);
    assert.deepEqual([d.status, d.lastError], ['pending', 'timeout']);
  });

  it('pending: a 429 with Retry-After: 3600 is tried again an hour later, not 5 s', async () => {
    const w = await world();
    const rx = await w.receiver(() => ({ status: 429, headers: { 'retry-after': '3600' } }));
    const ep = await w.endpoint(rx.url());
    const [id] = await w.emit({});
    await w.sender.drain();
    assert.equal(Number((await w.delivery(id!, ep.id)).nextAttemptAt), START + HOUR);
  });

  it('pending: a redirect is refused (error redirect) and not followed', async () => {
    const w = await world();
    const rx = await w.receiver((r) => (r.path === '/moved' ? { status: 307, headers: { location: '/target' } } : answers.ok()));
    const ep = await w.endpoint(rx.url('/moved'));
    const [id] = await w.emit({});
    await w.sender.drain();
    assert.equal(rx.at('/target').length, 0);
    const [a] = await w.attempts();
    assert.deepEqual([a!.status, a!.responseStatus, a!.errorCode], ['failed', 307, 'redirect']);
    assert.match(a!.errorMessage, /redirect to \/target not followed/);
    assert.equal((await w.delivery(id!, ep.id)).status, 'pending');
  });

  it('pending: nothing listening (error connection_refused)', async () => {
    const w = await world();
    const gone = await WebhookReceiver.start();
    const url = gone.url();
    await gone.close();
    await w.endpoint(url);
    await w.emit({});
    await w.sender.drain();
    const [a] = await w.attempts();
    assert.deepEqual([a!.status, a!.errorCode, a!.responseStatus], ['failed', 'connection_refused', null]);
  });
});

describe('sender: endpoint health', () => {
  it('disabled: a 410 disables the endpoint at once (audited; GET shows the notice) and fails its pending deliveries', async () => {
    const w = await world();
    const rx = await w.receiver(answers.always(410, 'gone for good'));
    const ep = await w.endpoint(rx.url());
    // One ordering key: the later two wait behind the first.
    const ids = await w.emit({ key: 'sub_gone' }, { key: 'sub_gone' }, { key: 'sub_gone' });
    await w.sender.drain();
    assert.deepEqual(rx.ids(), [ids[0]]);

    const shown = await ok(w.api.get(`/api/v1/webhook-endpoints/${ep.id}`));
    assert.deepEqual([shown.status, shown.disabledReason, shown.disabledAt], ['disabled', 'gone', new Date(START).toISOString()]);
    const listed = await ok(w.api.get('/api/v1/webhook-endpoints?status=disabled'));
    assert.deepEqual(
      listed.data.map((e: { id: string }) => e.id),
      [ep.id],
    );
    for (const id of ids) {
      const d = await w.delivery(id, ep.id);
      assert.deepEqual([d.status, d.nextAttemptAt, d.lastError], ['failed', null, 'endpoint_disabled'], id);
    }
    const [a] = await w.attempts();
    assert.deepEqual([a!.responseStatus, a!.responseBody, a!.nextAttemptAt], [410, 'gone for good', null]);
    const audit = await w.t.deps.db
      .selectFrom('auditEvents')
      .selectAll()
      .where('targetId', '=', ep.id)
      .where('eventType', '=', 'webhook_endpoint.disabled')
      .execute();
    assert.equal(audit.length, 1);
    assert.deepEqual(
      [audit[0]!.actorType, audit[0]!.actorId, audit[0]!.severity, audit[0]!.workspaceId],
      ['SYSTEM', 'webhook-sender', 'WARN', w.ws.workspaceId],
    );
    assert.deepEqual(JSON.parse(audit[0]!.payload), { reason: 'gone', responseStatus: 410, failingSince: null, pendingDeliveriesFailed: 3 });

    w.t.clock.advance(HOUR);
    await w.sender.drain();
    assert.equal(rx.received.length, 1, 'a disabled endpoint gets nothing more');
  });

  it('disabled: no success for OUTBOUND_WEBHOOK_DISABLE_AFTER_HOURS since the first failure disables it (reason failing)', async () => {
    const w = await world({ config: { outboundWebhookDisableAfterHours: 1 } });
    const rx = await w.receiver(answers.always(500));
    const ep = await w.endpoint(rx.url());
    const [id] = await w.emit({});
    for (;;) {
      await w.sender.drain();
      const d = await w.delivery(id!, ep.id);
      if (d.status !== 'pending') break;
      w.t.clock.set(Number(d.nextAttemptAt));
    }
    const shown = await ok(w.api.get(`/api/v1/webhook-endpoints/${ep.id}`));
    assert.deepEqual([shown.status, shown.disabledReason, shown.failingSince], ['disabled', 'failing', new Date(START).toISOString()]);
    // 5 s, 5 min, 30 min, then 2 h: the fifth attempt is the first an hour after the first failure.
    assert.equal(rx.received.length, 5);
    assert.ok(Date.parse(shown.disabledAt) - START >= HOUR);
    const audit = await w.t.deps.db
      .selectFrom('auditEvents')
      .select('payload')
      .where('targetId', '=', ep.id)
      .where('eventType', '=', 'webhook_endpoint.disabled')
      .execute();
    assert.deepEqual(JSON.parse(audit[0]!.payload), {
      reason: 'failing',
      responseStatus: 500,
      failingSince: new Date(START).toISOString(),
      pendingDeliveriesFailed: 1,
    });
  });

  it('failed: once its operator disables an endpoint, what waited for a retry or behind it is failed (endpoint_disabled) and never sent', async () => {
    const w = await world();
    const rx = await w.receiver(answers.always(500));
    const ep = await w.endpoint(rx.url());
    const ids = await w.emit({ key: 'sub_off' }, { key: 'sub_off' });
    await w.sender.drain();
    assert.deepEqual(rx.ids(), [ids[0]]);
    await ok(w.api.patch(`/api/v1/webhook-endpoints/${ep.id}`, { enabled: false }));
    w.t.clock.advance(HOUR);
    await w.sender.drain();
    assert.equal(rx.received.length, 1);
    for (const id of ids) assert.deepEqual([(await w.delivery(id, ep.id)).status, (await w.delivery(id, ep.id)).lastError], ['failed', 'endpoint_disabled']);
  });
});

describe('sender: the SSRF guard at delivery time', () => {
  it('refused: a name that resolved to a public address when saved and resolves to 127.0.0.1 now is refused at send time (url_not_allowed)', async () => {
    const dns: Record<string, string[]> = { 'hooks.example': ['93.184.216.34'] };
    const resolver: HostResolver = async (name) => dns[name] ?? [];
    const w = await world({ webhooks: { guard: true, resolver } });
    const rx = await w.receiver();
    const ep = await w.endpoint(`http://hooks.example:${rx.port}/hook`);
    dns['hooks.example'] = ['127.0.0.1'];
    const [id] = await w.emit({});
    await w.sender.drain();
    assert.equal(rx.received.length, 0, 'nothing reached the address behind the name');
    const [a] = await w.attempts();
    assert.deepEqual([a!.status, a!.errorCode, a!.responseStatus], ['failed', 'url_not_allowed', null]);
    assert.match(a!.errorMessage, /resolves to 127\.0\.0\.1, a loopback address/);
    assert.equal((await w.delivery(id!, ep.id)).status, 'pending');
  });

  it('refused: a literal private address saved while the guard was off is refused once it is on; allowed, it is sent', async () => {
    const w = await world({ webhooks: { guard: true } });
    const rx = await w.receiver();
    w.t.deps.config.outboundWebhookAllowPrivateAddresses = true;
    await w.endpoint(rx.url());
    w.t.deps.config.outboundWebhookAllowPrivateAddresses = false;
    await w.emit({});
    await w.sender.drain();
    assert.equal(rx.received.length, 0);
    assert.equal((await w.attempts())[0]!.errorCode, 'url_not_allowed');

    w.t.deps.config.outboundWebhookAllowPrivateAddresses = true;
    w.t.clock.advance(10_000);
    await w.sender.drain();
    assert.equal(rx.received.length, 1);
  });
});

describe('sender: order and concurrency', () => {
  it('succeeded in order: the events of one subscription arrive in seq order although the first needed a retry; an unordered one does not wait', async () => {
    const w = await world();
    const rx = await w.receiver((_r, n) => (n === 0 ? { status: 500 } : answers.ok()));
    const ep = await w.endpoint(rx.url());
    const [m1, m2, m3] = await w.emit({ key: 'sub_a' }, { key: 'sub_a' }, { key: 'sub_a' });
    const [loose] = await w.emit({ key: null });
    await w.sender.drain();
    assert.deepEqual(new Set(rx.ids()), new Set([m1, loose]), 'm2 and m3 wait behind m1');
    assert.equal(rx.ids()[0], m1);

    w.t.clock.set(Number((await w.delivery(m1!, ep.id)).nextAttemptAt));
    await w.sender.drain();
    assert.deepEqual(rx.ids().slice(2), [m1, m2, m3]);
    for (const id of [m1!, m2!, m3!]) assert.equal((await w.delivery(id, ep.id)).status, 'succeeded');
  });

  it('succeeded in order: 30 events of one subscription, one at a time, in seq order', async () => {
    const w = await world();
    const rx = await w.receiver();
    await w.endpoint(rx.url(), { maxConcurrency: 16 });
    const ids = await w.emit(...Array.from({ length: 30 }, () => ({ key: 'sub_many' })));
    await w.sender.drain();
    assert.deepEqual(rx.ids(), ids);
    assert.ok(rx.received.every((r) => r.concurrent === 1));
  });

  it('succeeded in parallel: unordered messages go out up to the endpoint maxConcurrency at once, never more', async () => {
    const w = await world();
    const cap = 4;
    const held: Array<() => void> = [];
    const rx = await w.receiver(() => {
      // Each request waits until `cap` are open together (or none more can come): parallel or it never completes.
      const gate = new Promise<Answer>((resolve) => held.push(() => resolve(answers.ok())));
      if (held.length === cap || rx.received.length === 10) for (const go of held.splice(0)) go();
      return gate;
    });
    await w.endpoint(rx.url(), { maxConcurrency: cap });
    const ids = await w.emit(...Array.from({ length: 10 }, () => ({ key: null })));
    await w.sender.drain();
    assert.deepEqual(new Set(rx.ids()), new Set(ids));
    assert.equal(Math.max(...rx.received.map((r) => r.concurrent)), cap);
  });

  it('succeeded: a slow endpoint does not delay a healthy one', async () => {
    const w = await world({ config: { outboundWebhookTimeoutMs: 30_000 } });
    const gate = new Gate();
    const slow = await w.receiver(gate.answering);
    const healthy = await w.receiver();
    await w.endpoint(slow.url(), { maxConcurrency: 2 });
    await w.endpoint(healthy.url());
    const ids = await w.emit({}, {}, {}, {}, {});
    // Sent by the commit's wake-up: the healthy endpoint gets all five while the slow one holds two.
    await healthy.waitForCount(5);
    assert.deepEqual(new Set(healthy.ids()), new Set(ids));
    assert.equal(slow.received.length, 2);
    assert.equal(gate.held, 2);
    gate.open();
    await w.sender.drain();
    assert.deepEqual(new Set(slow.ids()), new Set(ids));
    assert.ok(slow.received.every((r) => r.concurrent <= 2));
  });
});

describe('sender: lanes (one node sends for an endpoint)', () => {
  /** A second node on the same database: a sender not started (no timers), driven by drain(). */
  const node = (w: World, nodeId: string) => {
    const s = new WebhookSender(w.t.deps, { nodeId });
    worlds.find((x) => x.t === w.t)!.extra.push(s);
    return s;
  };

  it('succeeded once: a lane another node holds is left alone until its lease expires, then taken over at the next generation', async () => {
    const w = await world();
    const rx = await w.receiver();
    const ep = await w.endpoint(rx.url());
    const leaseMs = w.t.deps.config.outboundWebhookLeaseMs;
    await w.t.deps.db
      .insertInto('webhookLanes')
      .values({ endpointId: ep.id, workspaceId: w.ws.workspaceId, environment: 'test', owner: 'another-node', leaseUntil: START + leaseMs, generation: 4 })
      .execute();
    await w.emit({});
    await w.sender.drain();
    assert.equal(rx.received.length, 0);

    w.t.clock.advance(leaseMs + 1);
    await w.sender.drain();
    assert.equal(rx.received.length, 1);
    const lane = await w.t.deps.db.selectFrom('webhookLanes').selectAll().where('endpointId', '=', ep.id).executeTakeFirstOrThrow();
    assert.deepEqual([lane.owner, Number(lane.generation)], [w.sender.nodeId, 5]);
  });

  it('succeeded once each: two nodes draining together send every message once, each endpoint from one node', async () => {
    const w = await world();
    const b = node(w, 'node-b');
    const rx = await w.receiver();
    const eps = [await w.endpoint(rx.url('/a')), await w.endpoint(rx.url('/b')), await w.endpoint(rx.url('/c'))];
    const ids = await w.emit(...Array.from({ length: 40 }, (_, i) => ({ key: i % 4 === 0 ? `sub_${i % 3}` : null })));
    await Promise.all([w.sender.drain(), b.drain()]);
    for (const path of ['/a', '/b', '/c']) {
      assert.equal(rx.at(path).length, ids.length, path);
      assert.deepEqual(new Set(rx.ids(path)), new Set(ids), path);
    }
    for (const ep of eps) {
      const nodes = new Set((await w.attempts({ endpointId: ep.id })).map((a) => a.nodeId));
      assert.equal(nodes.size, 1, `${ep.id} was sent for by ${[...nodes].join(', ')}`);
    }
  });

  it("succeeded once: a node that lost its lane while an attempt hung has its late result refused; the new owner's stands", async () => {
    const w = await world({ config: { outboundWebhookTimeoutMs: 60_000 } });
    const gate = new Gate();
    const rx = await w.receiver((r, n, seen) => (n === 0 ? gate.answering(r, n, seen) : answers.ok()));
    const ep = await w.endpoint(rx.url());
    const [id] = await w.emit({});
    await rx.waitForCount(1);

    // Node A's lease and its in-flight mark both run out; node B takes the endpoint over.
    const { outboundWebhookLeaseMs: leaseMs, outboundWebhookTimeoutMs: timeoutMs } = w.t.deps.config;
    w.t.clock.advance(timeoutMs + leaseMs + 1);
    const b = node(w, 'node-b');
    await b.drain();
    assert.deepEqual(rx.ids(), [id, id]);
    const taken = await w.delivery(id!, ep.id);
    assert.deepEqual([taken.status, Number(taken.attempts)], ['succeeded', 2]);

    gate.open();
    await w.sender.idle();
    const d = await w.delivery(id!, ep.id);
    assert.deepEqual([d.status, Number(d.attempts), Number(d.lastAttemptAt)], ['succeeded', 2, taken.lastAttemptAt]);
    const log = await w.attempts();
    assert.deepEqual(log.map((a) => [Number(a.attemptNumber), a.nodeId, a.status]).sort(), [
      [1, w.sender.nodeId, 'succeeded'],
      [2, 'node-b', 'succeeded'],
    ]);
    const lane = await w.t.deps.db.selectFrom('webhookLanes').selectAll().where('endpointId', '=', ep.id).executeTakeFirstOrThrow();
    assert.equal(lane.owner, 'node-b');
    await w.sender.drain();
    assert.equal(rx.received.length, 2, 'node A, having lost the lane, sends nothing');
  });

  it('pending: closing abandons an attempt still in flight after a short grace; the delivery is due again at once, the lane released', async () => {
    const w = await world({ own: true, config: { outboundWebhookTimeoutMs: 60_000 } });
    const rx = await w.receiver(answers.hang);
    const ep = await w.endpoint(rx.url());
    const [id] = await w.emit({});
    await rx.waitForCount(1);
    await w.sender.close();
    const d = await w.delivery(id!, ep.id);
    assert.deepEqual([d.status, Number(d.nextAttemptAt), Number(d.attempts)], ['pending', START, 1]);
    assert.deepEqual(await w.attempts(), [], 'an abandoned attempt has no result to log');
    const lane = await w.t.deps.db.selectFrom('webhookLanes').selectAll().where('endpointId', '=', ep.id).executeTakeFirstOrThrow();
    assert.equal(lane.owner, null);

    rx.answerWith(answers.ok);
    const next = node(w, 'node-next');
    await next.drain();
    assert.deepEqual(rx.ids(), [id, id]);
    assert.deepEqual(
      (await w.attempts()).map((a) => [Number(a.attemptNumber), a.trigger, a.status]),
      [[2, 'scheduled', 'succeeded']],
    );
  });
});

describe('sender: replays and test messages', () => {
  it('succeeded: a delivery put back to pending by a replay is sent again, trigger replay, same webhook-id', async () => {
    const w = await world();
    const rx = await w.receiver();
    const ep = await w.endpoint(rx.url());
    const [id] = await w.emit({});
    await w.sender.drain();
    w.t.clock.advance(HOUR);
    // What the replay route writes.
    await w.t.deps.db
      .updateTable('webhookDeliveries')
      .set({ status: 'pending', scheduleStep: 0, nextAttemptAt: w.t.clock.now() })
      .where('messageId', '=', id!)
      .where('endpointId', '=', ep.id)
      .execute();
    await w.sender.drain();
    assert.deepEqual(rx.ids(), [id, id]);
    assert.deepEqual(verifyDelivery(ep.secret, rx.received[1]!), body(rx.received[1]!.body));
    assert.deepEqual(
      (await w.attempts()).map((a) => [Number(a.attemptNumber), a.trigger]),
      [
        [1, 'scheduled'],
        [2, 'replay'],
      ],
    );
  });

  it('succeeded: a webhook.test message is sent with trigger test', async () => {
    const w = await world();
    const rx = await w.receiver();
    const ep = await w.endpoint(rx.url());
    const now = w.t.clock.now();
    const messageId = w.t.deps.ids.next('webhookMessage');
    await transaction(w.t.deps.db, async (trx) => {
      const seqs = await insertMessages(trx, [
        {
          id: messageId,
          workspaceId: w.ws.workspaceId,
          environment: 'test',
          eventType: 'webhook.test',
          orderingKey: null,
          body: buildWebhookBody('webhook.test', now, { object: { object: 'webhook_test' } }),
          source: 'test',
          correlationId: 'req_test_event',
          createdAt: now,
        },
      ]);
      await insertDeliveries(trx, [
        {
          messageId,
          endpointId: ep.id,
          workspaceId: w.ws.workspaceId,
          environment: 'test',
          eventType: 'webhook.test',
          messageSeq: seqs.get(messageId)!,
          orderingKey: null,
          status: 'pending',
          attempts: 0,
          scheduleStep: 0,
          nextAttemptAt: now,
          lastAttemptAt: null,
          lastResponseStatus: null,
          lastError: null,
          createdAt: now,
          updatedAt: now,
        },
      ]);
    });
    await w.sender.drain();
    assert.deepEqual(rx.ids(), [messageId]);
    assert.equal((verifyDelivery(ep.secret, rx.received[0]!) as { type: string }).type, 'webhook.test');
    assert.equal((await w.attempts())[0]!.trigger, 'test');
  });
});
