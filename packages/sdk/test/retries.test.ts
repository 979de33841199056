/**
 * The spec's retry guidance (Errors: "back off by Retry-After seconds (default 5 if absent), up
 * to 3 retries"; "clients must key on status 429") against the real server, behind a proxy that
 * injects the 429s, 503s and lost answers. The wait is injected: the tests record it, never sleep.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TollgateError } from '../src/index.js';
import { serverBehindProxy } from './helpers/fault-proxy.js';

const env = serverBehindProxy();
const waits = env.waits;
const client = env.client;

const rateLimited = JSON.stringify({ success: false, errors: [{ code: 'RATE_LIMITED', message: 'At most 300 requests per minute.' }] });
const unavailable = JSON.stringify({ success: false, errors: [{ code: 'SERVICE_UNAVAILABLE', message: 'Try again shortly.' }] });

describe('retry guidance: 429 and 503 back off by Retry-After, 5 s when absent, at most 3 retries', () => {
  it('429 with Retry-After: waits that many seconds, then the retry is served by the real server', async () => {
    const tg = client();
    env.proxy.plan({ kind: 'answer', status: 429, headers: { 'retry-after': '7' }, body: rateLimited });
    const customer = await tg.customers.create({ name: 'Retry 429' });
    assert.match(customer.id, /^cus_/);
    assert.deepEqual(waits, [7_000]);
    assert.deepEqual(
      env.proxy.seen.map((s) => s.outcome),
      ['answer', 'forward'],
    );
    assert.equal(env.proxy.seen[0]!.headers['idempotency-key'], env.proxy.seen[1]!.headers['idempotency-key'], 'the retry repeats the request');
  });

  it('429 without Retry-After: waits the default 5 seconds', async () => {
    const tg = client();
    env.proxy.plan({ kind: 'answer', status: 429, body: rateLimited });
    await tg.customers.list();
    assert.deepEqual(waits, [5_000]);
  });

  it('429 is keyed on the status whatever the body: a gateway’s {"message"} body and an empty one are retried too', async () => {
    const tg = client();
    env.proxy.plan(
      { kind: 'answer', status: 429, headers: { 'retry-after': '2' }, body: JSON.stringify({ message: 'Too Many Requests' }) },
      { kind: 'answer', status: 429, headers: { 'content-type': 'text/plain' }, body: '' },
    );
    const list = await tg.customers.list();
    assert.equal(list.object, 'list');
    assert.deepEqual(waits, [2_000, 5_000]);
  });

  it('503 with Retry-After and without: retried after those waits', async () => {
    const tg = client();
    env.proxy.plan({ kind: 'answer', status: 503, headers: { 'retry-after': '3' }, body: unavailable }, { kind: 'answer', status: 503, body: unavailable });
    await tg.customers.list();
    assert.deepEqual(waits, [3_000, 5_000]);
  });

  it('at most 3 retries: a fourth 429 is thrown as TollgateError with the status, errors[] and no request id of the server', async () => {
    const tg = client();
    const answer = { kind: 'answer' as const, status: 429, headers: { 'retry-after': '1', 'x-request-id': 'req_gateway' }, body: rateLimited };
    env.proxy.plan(answer, answer, answer, answer);
    const err = await tg.customers.list().catch((e: unknown) => e);
    assert.ok(err instanceof TollgateError);
    assert.equal(err.status, 429);
    assert.deepEqual(err.errors, [{ code: 'RATE_LIMITED', message: 'At most 300 requests per minute.' }]);
    assert.equal(err.requestId, 'req_gateway');
    assert.deepEqual(waits, [1_000, 1_000, 1_000]);
    assert.equal(env.proxy.seen.length, 4, 'one try and three retries');
  });

  it('never retries another 4xx: a 400 from the real server is thrown at once with errors[] naming the field and its request id', async () => {
    const tg = client();
    const err = await tg.customers.create({ name: 'x', email: 'not an email' }).catch((e: unknown) => e);
    assert.ok(err instanceof TollgateError);
    assert.equal(err.status, 400);
    assert.equal(err.errors[0]!.field, 'body.email');
    assert.match(err.requestId ?? '', /^req_/);
    assert.equal(env.proxy.seen.length, 1);
    assert.deepEqual(waits, []);
  });

  it('never retries another 4xx: 404 from the server and a planned 418 are thrown after one request', async () => {
    const tg = client();
    const missing = await tg.customers.get('cus_missing').catch((e: unknown) => e);
    assert.ok(missing instanceof TollgateError);
    assert.equal(missing.status, 404);
    env.proxy.plan({ kind: 'answer', status: 418, body: '{}' });
    const teapot = await tg.customers.list().catch((e: unknown) => e);
    assert.equal((teapot as TollgateError).status, 418);
    assert.equal(env.proxy.seen.length, 2);
    assert.deepEqual(waits, []);
  });

  it('network errors retry only requests carrying an idempotency key: a GET that lost its answer is not repeated', async () => {
    const tg = client();
    env.proxy.plan({ kind: 'dropAfterForward' });
    const err = await tg.customers.list().catch((e: unknown) => e);
    assert.ok(err instanceof TollgateError);
    assert.equal(err.status, 0);
    assert.equal(err.unreachable, true);
    assert.equal(err.errors[0]!.code, 'NETWORK_ERROR');
    assert.equal(env.proxy.seen.length, 1);
    assert.deepEqual(waits, []);
  });

  it('network errors retry only requests carrying an idempotency key: a create with its Idempotency-Key is retried and made once', async () => {
    const tg = client();
    env.proxy.plan({ kind: 'dropAfterForward' });
    const customer = await tg.customers.create({ name: 'Lost answer', externalId: 'lost-answer-1' });
    assert.equal(env.proxy.seen.length, 2);
    assert.deepEqual(waits, [5_000]);
    const listed = await tg.customers.list({ externalId: 'lost-answer-1' });
    assert.deepEqual(
      listed.data.map((c) => c.id),
      [customer.id],
      'one customer, though the server made it and was asked twice',
    );
  });

  it('a timeout is a network error: a key-less request is not retried, a keyed one is', async () => {
    const hanging = async (_input: string, init: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new Error('aborted'))));
    const tg = client({ timeoutMs: 1, fetch: hanging });
    const err = await tg.customers.list().catch((e: unknown) => e);
    assert.equal((err as TollgateError).errors[0]!.code, 'TIMEOUT');
    assert.deepEqual(waits, []);
    const keyed = await tg.customers.create({ name: 'never' }).catch((e: unknown) => e);
    assert.equal((keyed as TollgateError).status, 0);
    assert.deepEqual(waits, [5_000, 5_000, 5_000], 'three retries, then given up');
  });
});

describe('a batch retried after a dropped connection is stored once', () => {
  it('the server stores the batch, the answer is lost, the retry with the same X-Idempotency-Key is a replay: each event once', async () => {
    const tg = client();
    const { customerId } = await env.server.subscribed();
    for (let i = 0; i < 10; i++) tg.track({ customerId, metricName: 'api_calls', quantity: 1 });
    env.proxy.plan({ kind: 'dropAfterForward' });
    const result = await tg.flush();
    assert.deepEqual(result.failed, []);
    const batches = env.proxy.seen.filter((s) => s.url === '/v1/ingest/batch');
    assert.equal(batches.length, 2);
    assert.deepEqual(
      batches.map((s) => s.outcome),
      ['dropAfterForward', 'forward'],
    );
    assert.ok(batches[0]!.headers['x-idempotency-key']);
    assert.equal(batches[1]!.headers['x-idempotency-key'], batches[0]!.headers['x-idempotency-key'], 'the key is kept across the retry');
    assert.equal(batches[1]!.body, batches[0]!.body, 'the same bytes');
    assert.deepEqual(waits, [5_000]);
    assert.equal(await env.server.storedEvents(customerId), 10);
  });

  it('per-event ids: the same events sent again in a new batch (a new key) are skipped as duplicates', async () => {
    const tg = client();
    const { customerId } = await env.server.subscribed();
    for (let i = 0; i < 5; i++) tg.track({ customerId, metricName: 'api_calls', quantity: 2 });
    await tg.flush();
    const first = env.proxy.seen.find((s) => s.url === '/v1/ingest/batch')!;
    const events = (JSON.parse(first.body) as { events: Array<{ eventId: string; occurredAt: string }> }).events;
    assert.equal(new Set(events.map((e) => e.eventId)).size, 5, 'each event has its own id');
    for (const e of events) tg.track({ customerId, metricName: 'api_calls', quantity: 2, eventId: e.eventId, occurredAt: e.occurredAt });
    const again = await tg.flush();
    assert.deepEqual([again.accepted, again.duplicates], [0, 5]);
    assert.equal(await env.server.storedEvents(customerId), 5);
  });
});
