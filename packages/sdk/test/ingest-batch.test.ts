/**
 * ingestBatch(): one batch sent now, outside the track() queue, for callers that make their own
 * batches (the gateway-log forwarder). Against the real server, behind the fault env.proxy.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TollgateError, type UsageEvent } from '../src/index.js';
import { serverBehindProxy } from './helpers/fault-proxy.js';

const env = serverBehindProxy();
const waits = env.waits;
const client = env.client;

const events = (customerId: string, n: number, tag: string): UsageEvent[] =>
  Array.from({ length: n }, (_, i) => ({ customerId, metricName: 'api_calls', quantity: 1, eventId: `${tag}-${i}` }));

describe('ingestBatch(events, { idempotencyKey })', () => {
  it('answers the server’s counts, sends the given X-Idempotency-Key, and a batch sent again with new keys counts as duplicates', async () => {
    const tg = client();
    const { customerId } = await env.server.subscribed();
    const batch = events(customerId, 3, 'first');
    const first = await tg.ingestBatch(batch, { idempotencyKey: 'batch-key-1' });
    assert.deepEqual([first.object, first.environment, first.accepted, first.duplicates, first.idempotentReplay], ['ingest_result', 'test', 3, 0, false]);
    assert.equal(env.proxy.seen[0]!.headers['x-idempotency-key'], 'batch-key-1');
    assert.equal(env.proxy.seen[0]!.headers.authorization, `Bearer ${env.server.key}`);
    // The same log lines redelivered (a new batch key): the eventIds keep them from counting twice.
    const again = await tg.ingestBatch(batch);
    assert.deepEqual([again.accepted, again.duplicates], [0, 3]);
    assert.match(String(env.proxy.seen[1]!.headers['x-idempotency-key']), /^[0-9a-f-]{36}$/, 'a random UUID when none is given');
    assert.equal(await env.server.storedEvents(customerId), 3);
  });

  it('settles each event as track() does: occurredAt now (the client’s clock) and an eventId when absent', async () => {
    const tg = client();
    const { customerId } = await env.server.subscribed();
    await tg.ingestBatch([{ customerId, metricName: 'api_calls', quantity: 2 }]);
    const sent = JSON.parse(env.proxy.seen[0]!.body) as { events: Array<{ occurredAt: string; eventId: string }> };
    assert.equal(sent.events[0]!.occurredAt, new Date(env.server.now()).toISOString());
    assert.match(sent.events[0]!.eventId, /^[0-9a-f-]{36}$/);
  });

  it('a lost answer is retried with the same key and the same bytes: stored once', async () => {
    const tg = client();
    const { customerId } = await env.server.subscribed();
    env.proxy.plan({ kind: 'dropAfterForward' });
    const result = await tg.ingestBatch(events(customerId, 5, 'lost'));
    // The retry is answered from the key's stored response: the server's first answer, once.
    assert.deepEqual([result.accepted, result.duplicates, result.idempotentReplay], [5, 0, true]);
    assert.deepEqual(waits, [5_000]);
    assert.equal(env.proxy.seen[0]!.headers['x-idempotency-key'], env.proxy.seen[1]!.headers['x-idempotency-key']);
    assert.equal(env.proxy.seen[0]!.body, env.proxy.seen[1]!.body);
    assert.equal(await env.server.storedEvents(customerId), 5);
  });

  it('a refused batch (400, nothing stored) throws TollgateError whose errors[] name the events by index', async () => {
    const tg = client();
    const { customerId } = await env.server.subscribed();
    const batch = events(customerId, 3, 'refused');
    batch[1] = { ...batch[1]!, customerId: 'cus_nobody_here' };
    const err = await tg.ingestBatch(batch).catch((e: unknown) => e);
    assert.ok(err instanceof TollgateError);
    assert.equal(err.status, 400);
    assert.deepEqual(
      err.errors.map((e) => e.index),
      [1],
    );
    assert.deepEqual(waits, [], 'a 400 is never retried');
    assert.equal(await env.server.storedEvents(customerId), 0);
  });

  it('1 to 1,000 events (the spec’s batch limit): an empty or larger batch is refused before any request', async () => {
    const tg = client();
    await assert.rejects(tg.ingestBatch([]), /1 to 1000 events per batch/);
    await assert.rejects(tg.ingestBatch(events('cus_x', 1_001, 'big')), /got 1001/);
    assert.equal(env.proxy.seen.length, 0);
  });
});
