// The sender's batched writes (webhook-sender.ts, writeResults): the results of a pass are written
// together, and an outcome whose write fails is kept and written later, never lost; a node that dies
// between a POST and its result has the message sent again by the next node. Through a real app,
// with receivers on 127.0.0.1 and a frozen clock; senders driven by drain() and close().
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KyselyPlugin } from 'kysely';
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js';
import { WebhookReceiver } from '../../../test/helpers/webhook-receiver.js';
import { transaction } from '../../db/transaction.js';
import { FrozenClock } from '../../lib/clock.js';
import { emitWebhookEvents } from './emit-webhook-events.js';
import { WebhookSender } from './webhook-sender.js';

const START = Date.UTC(2026, 0, 15, 12, 0, 0);

const open: Array<{ close(): Promise<void> }> = [];
after(async () => {
  for (const o of open.reverse()) await o.close();
});

/** An app (sender off: each test makes its own), a receiver, `endpoints` endpoints on it, and `messages` unordered messages written by the outbox. */
async function setUp(endpoints: number, messages: number): Promise<{ t: TestApp; rx: WebhookReceiver; endpointIds: string[]; ids: string[] }> {
  const t = await createTestApp({ clock: new FrozenClock(START), config: { rateLimitPerMinute: 1_000_000, outboundWebhookTimeoutMs: 10_000 } });
  open.push(t);
  const rx = await WebhookReceiver.start(undefined, t.clock);
  open.push(rx);
  const ws = await t.seed.workspace();
  const api = t.seed.client(ws.test.secretKey);
  const endpointIds: string[] = [];
  for (let i = 0; i < endpoints; i++) {
    const r = await api.post('/api/v1/webhook-endpoints', { url: rx.url(`/ep${i}`), eventTypes: ['*'] });
    assert.equal(r.status, 200);
    endpointIds.push((r.body as { id: string }).id);
  }
  await transaction(t.deps.db, (trx) =>
    emitWebhookEvents(
      trx,
      t.deps,
      Array.from({ length: messages }, (_, i) => ({
        origin: { workspaceId: ws.workspaceId, environment: 'test' as const, correlationId: 'req_writes' },
        event: { type: 'subscription.renewed' as const, orderingKey: null, data: { object: { id: `sub_${i}`, object: 'subscription' } } },
      })),
    ),
  );
  const ids = (await t.deps.db.selectFrom('webhookMessages').select('id').orderBy('seq').execute()).map((m) => m.id);
  return { t, rx, endpointIds, ids };
}

/** A sender whose result writes fail while `failing` is true (the transaction rolls back, as a database error would). */
function senderWithFailingResults(t: TestApp, nodeId: string): { sender: WebhookSender; failing: { on: boolean } } {
  const failing = { on: true };
  const plugin: KyselyPlugin = {
    transformQuery: ({ node }) => {
      if (failing.on && node.kind === 'RawNode' && node.sqlFragments.join('?').includes('set status = v.column6'))
        throw new Error('injected: result write failed');
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  const sender = new WebhookSender({ ...t.deps, db: t.deps.db.withPlugin(plugin) }, { nodeId });
  open.push(sender);
  return { sender, failing };
}

async function deliveries(t: TestApp) {
  return t.deps.db.selectFrom('webhookDeliveries').selectAll().orderBy('messageSeq').orderBy('endpointId').execute();
}

async function attempts(t: TestApp) {
  return t.deps.db.selectFrom('webhookAttempts').selectAll().orderBy('messageId').orderBy('endpointId').execute();
}

it('succeeded: 3 endpoints × 20 messages, results written many at a time: each delivery succeeded once, each attempt logged with its fields', async () => {
  const { t, rx, endpointIds, ids } = await setUp(3, 20);
  const sender = new WebhookSender(t.deps, { nodeId: 'node-a' });
  open.push(sender);
  await sender.drain();
  for (let i = 0; i < 3; i++) assert.deepEqual(new Set(rx.ids(`/ep${i}`)), new Set(ids), `/ep${i}`);
  assert.equal(rx.received.length, 60);
  const ds = await deliveries(t);
  assert.equal(ds.length, 60);
  for (const d of ds)
    assert.deepEqual(
      [d.status, Number(d.attempts), Number(d.scheduleStep), d.nextAttemptAt, Number(d.lastResponseStatus), d.lastError, d.nextAttemptTrigger],
      ['succeeded', 1, 1, null, 200, null, null],
    );
  const log = await attempts(t);
  assert.equal(log.length, 60);
  assert.equal(new Set(log.map((a) => `${a.messageId} ${a.endpointId}`)).size, 60, 'one attempt per delivery');
  for (const a of log) {
    assert.deepEqual(
      [a.status, Number(a.attemptNumber), a.trigger, a.nodeId, Number(a.responseStatus), a.errorCode, a.nextAttemptAt, Number(a.attemptedAt)],
      ['succeeded', 1, 'scheduled', 'node-a', 200, null, null, START],
    );
    assert.equal(a.url, rx.url(`/ep${endpointIds.indexOf(a.endpointId)}`));
  }
});

it('succeeded once: a result write that fails keeps its outcomes; the next pass writes them and nothing is sent twice', async () => {
  // Fewer than an endpoint's maxConcurrency (16): every message is sent before any result is written.
  const { t, rx, ids } = await setUp(2, 10);
  const { sender, failing } = senderWithFailingResults(t, 'node-a');
  await assert.rejects(sender.drain(), /injected/);
  assert.equal(rx.received.length, 20, 'every message was sent before its result write failed');
  assert.ok((await deliveries(t)).every((d) => d.status === 'pending'));

  failing.on = false;
  await sender.drain();
  assert.equal(rx.received.length, 20, 'the outcomes were kept: nothing sent again');
  assert.deepEqual(new Set(rx.ids('/ep0')), new Set(ids));
  assert.ok((await deliveries(t)).every((d) => d.status === 'succeeded' && Number(d.attempts) === 1));
  assert.equal((await attempts(t)).length, 20);
});

it('succeeded: close() writes the outcomes still held (their write had failed), then releases the lanes', async () => {
  const { t, rx } = await setUp(1, 10);
  const { sender, failing } = senderWithFailingResults(t, 'node-a');
  await assert.rejects(sender.drain(), /injected/);
  failing.on = false;
  await sender.close();
  assert.equal(rx.received.length, 10);
  assert.ok((await deliveries(t)).every((d) => d.status === 'succeeded' && Number(d.attempts) === 1));
  assert.equal((await attempts(t)).length, 10);
  const lanes = await t.deps.db.selectFrom('webhookLanes').select('owner').execute();
  assert.deepEqual(
    lanes.map((l) => l.owner),
    [null],
  );
});

it('succeeded: a node dies between its POSTs and their results; once its marks expire the next node sends each message again, same webhook-id', async () => {
  const { t, rx, endpointIds, ids } = await setUp(1, 5);
  const { sender: dying } = senderWithFailingResults(t, 'node-a');
  await assert.rejects(dying.drain(), /injected/);
  assert.equal(rx.received.length, 5);
  // node-a writes nothing more: its lane and its deliveries' in-flight marks run out.
  const { outboundWebhookLeaseMs: leaseMs, outboundWebhookTimeoutMs: timeoutMs } = t.deps.config;
  t.clock.advance(timeoutMs + leaseMs + 1);
  const next = new WebhookSender(t.deps, { nodeId: 'node-b' });
  open.push(next);
  await next.drain();
  assert.equal(rx.received.length, 10);
  for (const id of ids) assert.equal(rx.ids().filter((x) => x === id).length, 2, id);
  for (const d of await deliveries(t)) assert.deepEqual([d.endpointId, d.status, Number(d.attempts)], [endpointIds[0], 'succeeded', 2]);
  // The attempt that died unrecorded keeps its number: the log shows the second.
  assert.deepEqual(
    (await attempts(t)).map((a) => [Number(a.attemptNumber), a.nodeId, a.status]),
    ids.map(() => [2, 'node-b', 'succeeded']),
  );
});
