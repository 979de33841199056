import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { createTestApp, type TestApp } from '../../test/helpers/test-app.js';
import type { Client, EnvHandle } from '../../test/helpers/seed.js';
import { createMetric } from '../modules/metrics/create-metric.js';

// Ingestion's admission through the real app: INGEST_MAX_IN_FLIGHT 1, so one slot, one place for
// new work and four for retries. The usage writer is held by the test, so requests stay in
// process until it lets them go: no test waits on the wall clock (the app's clock is frozen, so no
// waiter times out either).
let t: TestApp;
let env: EnvHandle;
let api: Client;
let customerId: string;
/** Writes held, in the order they reached the writer (by idempotency key), and how to let them go. */
let held: Array<{ key: string | undefined; go: () => void }> = [];
let reached: Array<() => void> = [];

before(async () => {
  t = await createTestApp({ config: { ingestMaxInFlight: 1 } });
  env = (await t.seed.workspace()).test;
  api = t.seed.client(env.secretKey);
  await createMetric(t.deps, env.ctx, { name: 'api_calls' });
  customerId = (await t.seed.customer(env)).id;
  const writer = t.composition.usage;
  const write = writer.write.bind(writer);
  writer.write = async (job) => {
    await new Promise<void>((go) => {
      held.push({ key: job.idempotency?.key?.replace(/^ingest:/, ''), go });
      reached.shift()?.();
    });
    return write(job);
  };
});
after(() => t.close());
beforeEach(() => {
  held = [];
  reached = [];
});

const batch = (n = 3) => ({
  events: Array.from({ length: n }, () => ({ customerId, metricName: 'api_calls', quantity: 1, occurredAt: new Date(t.clock.now()).toISOString() })),
});
const send = (key: string, body = batch()) => api.post('/v1/ingest/batch', body, { 'x-idempotency-key': key });
/** Resolves once the next write has reached the (held) writer. */
const nextWrite = () => new Promise<void>((resolve) => reached.push(resolve));
/** Lets every held write go, including those that reach the writer meanwhile, until `until` settles. */
async function drain<T>(until: Promise<T>): Promise<T> {
  let done = false;
  const result = until.finally(() => (done = true));
  while (!done) {
    const next = held.shift();
    if (next) next.go();
    else await Promise.race([nextWrite(), result]);
  }
  return result;
}
const eventCount = async () =>
  Number(
    (
      await t.deps.db
        .selectFrom('usageEvents')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('customerId', '=', customerId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('POST /v1/ingest/batch under load (admission)', () => {
  it("200 for shed batches' retries while new batches are still shed 503, and the retries go ahead of new work that waited longer", async () => {
    const reachedA = nextWrite();
    const a = send('a');
    await reachedA; // A holds the one slot
    const b = send('b');
    assert.equal(await placeTaken(true), true, 'B waits in the place for new work');
    const keys = ['c1', 'c2', 'c3', 'c4', 'c5'];
    for (const key of keys) {
      const shed = await send(key);
      assert.equal(shed.status, 503);
      assert.equal(shed.body.errors[0].code, 'SERVICE_UNAVAILABLE');
      assert.match(String(shed.headers['retry-after']), /^[1-9]\d*$/);
    }
    const retries = keys.slice(0, 4).map((key) => send(key)); // the four places for retries
    assert.equal(await placeTaken(true, 'c5'), true, 'the retries wait in their lane');
    assert.equal((await send('d')).status, 503, 'new work is still shed while retries wait');
    const order: Array<string | undefined> = [];
    const all = Promise.all([a, b, ...retries]);
    while (order.length < 6) {
      if (held.length === 0) await nextWrite();
      const next = held.shift()!;
      order.push(next.key);
      next.go();
    }
    const answers = await all;
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200, 200, 200, 200, 200],
    );
    assert.equal(order[0], 'a');
    assert.deepEqual(order.slice(1, 5).sort(), ['c1', 'c2', 'c3', 'c4'], 'the retries first');
    assert.equal(order[5], 'b', 'then the new batch that waited');
  });

  it('a shed batch retried with its key is counted once, and a repeat of it is a replay', async () => {
    const before = await eventCount();
    const reachedA = nextWrite();
    const a = send('once-a');
    await reachedA;
    const b = send('once-b');
    assert.equal(await placeTaken(true), true);
    const body = batch(5);
    assert.equal((await send('once-c', body)).status, 503);
    const retried = send('once-c', body);
    const [, , rc] = await drain(Promise.all([a, b, retried]));
    assert.equal(rc.status, 200);
    assert.equal(rc.body.accepted, 5);
    const again = await send('once-c', body);
    assert.equal(again.status, 200);
    assert.equal(again.body.idempotentReplay, true);
    assert.equal(await eventCount(), before + 3 + 3 + 5);
  });

  it('a client that disconnects while waiting frees its place for the next batch', async () => {
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const reachedA = nextWrite();
    const a = send('gone-a');
    await reachedA;
    // B waits in the one place for new work, over a connection of its own, then hangs up.
    const raw = JSON.stringify(batch());
    const b = httpRequest(`${base}/v1/ingest/batch`, {
      method: 'POST',
      agent: false,
      headers: {
        authorization: `Bearer ${env.secretKey}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(raw),
        'x-idempotency-key': 'gone-b',
      },
    });
    b.on('error', () => undefined);
    b.end(raw);
    assert.equal(await placeTaken(true), true, 'B holds the place');
    b.destroy();
    assert.equal(await placeTaken(false), false, 'its place is free once it has gone');
    const d = send('gone-d'); // takes the freed place instead of being shed
    const [ra, rd] = await drain(Promise.all([a, d]));
    assert.deepEqual([ra.status, rd.status], [200, 200]);
    assert.equal(held.length, 0, 'B never reached the writer');
  });
});

/**
 * Whether the lane of a request with `key` (the place for new work without one) is full, asked
 * until it is `expected` (the server reads other requests meanwhile): a body that is not JSON is
 * shed 503 at its headers when it would find no place, and refused 400 before admission otherwise,
 * so asking never takes a place.
 */
async function placeTaken(expected: boolean, key?: string): Promise<boolean> {
  for (let i = 0; i < 10_000; i++) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/ingest/batch',
      headers: { authorization: `Bearer ${env.secretKey}`, 'content-type': 'application/json', ...(key ? { 'x-idempotency-key': key } : {}) },
      payload: 'not json',
    });
    assert.ok(res.statusCode === 503 || res.statusCode === 400, res.body);
    if ((res.statusCode === 503) === expected) return expected;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return !expected;
}
