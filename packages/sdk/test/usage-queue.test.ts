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
import { MAX_REPORTED_FAILURES, QueueFullError, Tollgate, type FetchLike } from '../src/index.js';
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

describe('flush() and close() count every batch that ended since the previous result, whoever sent it', () => {
  it('10,000 track() then flush(): the 10 batches sent by size are counted, 10,000 accepted; close() then reports nothing new', async () => {
    const { fetch, sent } = recording();
    const tg = new Tollgate({ apiKey: server.key, baseUrl: server.baseUrl, now: server.now, fetch, flushOnExit: false });
    const { customerId } = await server.subscribed();
    for (let i = 0; i < 10_000; i++) tg.track({ customerId, metricName: 'api_calls', quantity: 1 });
    const result = await tg.flush();
    assert.deepEqual(result, { batches: 10, accepted: 10_000, duplicates: 0, failed: [], failedBatches: 0, failedEvents: 0 });
    assert.equal(sent.length, 10);
    assert.equal(await server.storedEvents(customerId), 10_000);
    // Counted once: the next result starts after this one.
    assert.deepEqual(await tg.close(), { batches: 0, accepted: 0, duplicates: 0, failed: [], failedBatches: 0, failedEvents: 0 });
  });

  it('an event the server already has counts as a duplicate, in the result of the flush() that sent it', async () => {
    const tg = new Tollgate({ apiKey: server.key, baseUrl: server.baseUrl, now: server.now, flushOnExit: false, batchSize: 2 });
    const { customerId } = await server.subscribed();
    tg.track({ customerId, metricName: 'api_calls', quantity: 1, eventId: 'once' });
    tg.track({ customerId, metricName: 'api_calls', quantity: 1, eventId: 'twice' });
    const first = await tg.flush();
    tg.track({ customerId, metricName: 'api_calls', quantity: 1, eventId: 'twice' });
    const second = await tg.flush();
    assert.deepEqual([first.batches, first.accepted, first.duplicates, second.batches, second.accepted, second.duplicates], [1, 2, 0, 1, 0, 1]);
  });
});

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
    // The timer's send is under way; an explicit flush waits for it, sends nothing more, and counts it.
    const after = await tg.flush();
    assert.deepEqual([after.batches, after.accepted, after.failedBatches], [1, 2, 0]);
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

  it('a batch that fails is listed in flush()’s result: its events, key, code and message; the others counted', async () => {
    const { fetch, sent } = recording();
    const tg = new Tollgate({
      apiKey: server.key,
      baseUrl: server.baseUrl,
      now: server.now,
      fetch,
      flushOnExit: false,
      batchSize: 1,
      onError: () => undefined,
    });
    const { customerId } = await server.subscribed();
    tg.track({ customerId, metricName: 'api_calls', quantity: 1 });
    tg.track({ customerId, metricName: 'no_such_metric', quantity: 1, eventId: 'bad-1' });
    tg.track({ customerId, metricName: 'api_calls', quantity: 1 });
    // batchSize 1: all three went by size; flush() reports them.
    const result = await tg.flush();
    assert.deepEqual([result.batches, result.accepted, result.duplicates, result.failedBatches, result.failedEvents], [2, 2, 0, 1, 1]);
    assert.equal(result.failed.length, 1);
    const [failure] = result.failed;
    assert.deepEqual(
      failure!.events.map((e) => [e.eventId, e.metricName]),
      [['bad-1', 'no_such_metric']],
    );
    assert.equal(failure!.idempotencyKey, sent[1]!.key);
    assert.equal(failure!.code, failure!.error.errors[0]!.code);
    assert.equal(failure!.code, 'UNKNOWN_METRIC');
    assert.match(failure!.message, /no_such_metric/);
    assert.equal(failure!.error.status, 400);
    assert.equal(failure!.error.errors[0]!.field, 'events[0].metricName');
  });

  it('failures are counted in full and listed up to MAX_REPORTED_FAILURES (100)', async () => {
    const tg = new Tollgate({ apiKey: server.key, baseUrl: server.baseUrl, now: server.now, flushOnExit: false, batchSize: 1, onError: () => undefined });
    const { customerId } = await server.subscribed();
    for (let i = 0; i < MAX_REPORTED_FAILURES + 3; i++) tg.track({ customerId, metricName: 'no_such_metric', quantity: 1, eventId: `bad-${i}` });
    const result = await tg.close();
    assert.equal(MAX_REPORTED_FAILURES, 100);
    assert.deepEqual([result.batches, result.failedBatches, result.failedEvents, result.failed.length], [0, 103, 103, 100]);
    assert.deepEqual(
      result.failed.slice(-1).map((f) => f.events[0]!.eventId),
      ['bad-99'],
      'the first 100, in order',
    );
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
