/**
 * track(): batches of at most 1,000 events (the spec's batch limit) sent by size or by interval,
 * each batch with its own X-Idempotency-Key and each event an eventId; bounded memory; flush on
 * Node's beforeExit. Against the real server (a recording fetch in front of the global one).
 */
import { after, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { QueueFullError, Tollgate, type FetchLike } from '../src/index.js';
import { startRealServer, type RealServer } from './helpers/real-server.js';

let server: RealServer;
before(async () => {
  server = await startRealServer();
});
after(() => server.close());

interface Sent {
  key: string | undefined;
  events: Array<{ eventId: string; customerId: string }>;
}

function recording(): { fetch: FetchLike; sent: Sent[] } {
  const sent: Sent[] = [];
  return {
    sent,
    fetch: (input, init) => {
      if (input.endsWith('/v1/ingest/batch')) {
        const headers = init.headers as Record<string, string>;
        sent.push({ key: headers['X-Idempotency-Key'], events: (JSON.parse(init.body as string) as Sent).events });
      }
      return fetch(input, init);
    },
  };
}

describe('track(): batches of at most 1,000 events, each with its own X-Idempotency-Key', () => {
  it('2,500 events go as 1,000 + 1,000 + 500, three distinct keys, 2,500 distinct eventIds, all stored', async () => {
    const { fetch, sent } = recording();
    const tg = new Tollgate({ apiKey: server.key, baseUrl: server.baseUrl, now: server.now, fetch, flushOnExit: false });
    const { customerId } = await server.subscribed();
    for (let i = 0; i < 2_500; i++) tg.track({ customerId, metricName: 'api_calls', quantity: 1 });
    const result = await tg.close();
    assert.deepEqual(
      sent.map((b) => b.events.length),
      [1_000, 1_000, 500],
    );
    assert.equal(new Set(sent.map((b) => b.key)).size, 3);
    assert.equal(new Set(sent.flatMap((b) => b.events.map((e) => e.eventId))).size, 2_500);
    assert.equal(result.failed.length, 0);
    assert.equal(await server.storedEvents(customerId), 2_500);
    assert.equal(tg.queuedEvents, 0);
  });

  it('a caller’s eventId is kept; batchSize is bounded by the spec’s 1,000', async () => {
    const { fetch, sent } = recording();
    const tg = new Tollgate({ apiKey: server.key, baseUrl: server.baseUrl, now: server.now, fetch, flushOnExit: false, batchSize: 2 });
    const { customerId } = await server.subscribed();
    tg.track({ customerId, metricName: 'api_calls', quantity: 1, eventId: 'my-event-1' });
    tg.track({ customerId, metricName: 'api_calls', quantity: 1 });
    await tg.flush();
    assert.equal(sent[0]!.events[0]!.eventId, 'my-event-1');
    assert.throws(() => new Tollgate({ apiKey: server.key, baseUrl: server.baseUrl, batchSize: 1_001 }), /batchSize must be an integer from 1 to 1000/);
  });

  it('a partial batch is sent when flushIntervalMs has passed since its first event (fake timers)', async () => {
    const { fetch, sent } = recording();
    mock.timers.enable({ apis: ['setTimeout'] });
    let tg: Tollgate;
    try {
      tg = new Tollgate({ apiKey: server.key, baseUrl: server.baseUrl, now: server.now, fetch, flushOnExit: false, flushIntervalMs: 2_000 });
      const { customerId } = await server.subscribed();
      tg.track({ customerId, metricName: 'api_calls', quantity: 1 });
      tg.track({ customerId, metricName: 'api_calls', quantity: 1 });
      mock.timers.tick(1_999);
      await Promise.resolve();
      assert.equal(sent.length, 0, 'not before the interval');
      mock.timers.tick(1);
    } finally {
      mock.timers.reset();
    }
    // The timer's flush is under way; an explicit flush waits for it and finds nothing left.
    const after = await tg.flush();
    assert.equal(after.batches, 0);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.events.length, 2);
  });

  it('bounded memory: past maxQueuedEvents track() throws QueueFullError; after flush there is room again', async () => {
    const tg = new Tollgate({ apiKey: server.key, baseUrl: server.baseUrl, now: server.now, flushOnExit: false, maxQueuedEvents: 3 });
    const { customerId } = await server.subscribed();
    for (let i = 0; i < 3; i++) tg.track({ customerId, metricName: 'api_calls', quantity: 1 });
    assert.throws(
      () => tg.track({ customerId, metricName: 'api_calls', quantity: 1 }),
      (e: unknown) => e instanceof QueueFullError && e.maxQueuedEvents === 3 && /maxQueuedEvents/.test(e.message),
    );
    await tg.flush();
    tg.track({ customerId, metricName: 'api_calls', quantity: 1 });
    await tg.close();
    assert.throws(() => tg.track({ customerId, metricName: 'api_calls', quantity: 1 }), /after close/);
    assert.equal(await server.storedEvents(customerId), 4);
  });

  it('a batch the server refuses (400) is given up on, reported to onError with its events, and the next batch still goes', async () => {
    const reported: Array<[number, string]> = [];
    const tg = new Tollgate({
      apiKey: server.key,
      baseUrl: server.baseUrl,
      now: server.now,
      flushOnExit: false,
      batchSize: 1,
      onError: (error, events) => reported.push([error.status, `${events.length} ${error.errors[0]?.field}`]),
    });
    const { customerId } = await server.subscribed();
    tg.track({ customerId, metricName: 'no_such_metric', quantity: 1 });
    tg.track({ customerId, metricName: 'api_calls', quantity: 1 });
    // batchSize 1: each track() sealed a batch and started sending it; flush() waits for both.
    await tg.flush();
    assert.deepEqual(reported, [[400, '1 events[0].metricName']]);
    assert.equal(await server.storedEvents(customerId), 1);
    assert.equal(tg.queuedEvents, 0);
  });

  it('Node: events still queued when the process runs out of work are sent on beforeExit', async () => {
    const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));
    const { customerId } = await server.subscribed();
    const script = `
      const { Tollgate } = await import(${JSON.stringify(entry)});
      const tg = new Tollgate({ apiKey: process.argv[1], baseUrl: process.argv[2], flushIntervalMs: 3600000 });
      for (let i = 0; i < 3; i++) tg.track({ customerId: process.argv[3], metricName: 'api_calls', quantity: 1, occurredAt: process.argv[4] });
    `;
    // Asynchronously (spawn, not spawnSync): the server answers from this process.
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script, server.key, server.baseUrl, customerId, new Date(server.now()).toISOString()],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [status] = (await once(child, 'exit')) as [number | null];
    assert.equal(status, 0, stderr);
    assert.equal(await server.storedEvents(customerId), 3);
  });
});
