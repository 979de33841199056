import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runTail, type TailStatus } from '../src/live-tail.js';

/** A response whose body arrives in the given chunks, then ends. */
const streamed = (chunks: string[], status = 200) =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const x of chunks) c.enqueue(new TextEncoder().encode(x));
        c.close();
      },
    }),
    { status, headers: { 'content-type': 'text/event-stream' } },
  );

/** A fake server: answers each request with the next response, recording the request headers; aborts after the last one. */
function fakeServer(answers: Array<() => Response>, stop: AbortController) {
  const seen: Array<Record<string, string>> = [];
  const fetch = async (_url: RequestInfo | URL, init?: RequestInit) => {
    seen.push({ ...(init?.headers as Record<string, string>) });
    const next = answers.shift();
    if (!next) {
      stop.abort();
      throw new DOMException('aborted', 'AbortError');
    }
    return next();
  };
  return { fetch, seen };
}

async function tail(answers: Array<() => Response>) {
  const stop = new AbortController();
  const server = fakeServer(answers, stop);
  const events: Array<[string, string]> = [];
  const statuses: TailStatus[] = [];
  const waits: number[] = [];
  await runTail({
    url: '/api/v1/events/stream',
    headers: { 'x-tenant-id': 'ws_1' },
    signal: stop.signal,
    fetch: server.fetch,
    wait: async (ms) => void waits.push(ms),
    onEvent: (data, id) => events.push([data, id]),
    onStatus: (s) => statuses.push(s),
  });
  return { events, statuses, waits, seen: server.seen };
}

describe('runTail: the live tail over fetch', () => {
  it('reads events, and on reconnect resumes after the last one with Last-Event-ID and the delay the stream asked for', async () => {
    const r = await tail([
      () => streamed(['retry: 250\n\n: keep-alive\n\nid: 1\nevent: audit_', 'event\ndata: {"n":1}\n\nid: 2\nevent: audit_event\ndata: {"n":2}\n\n']),
      () => streamed(['id: 3\nevent: audit_event\ndata: {"n":3}\n\n']),
    ]);
    assert.deepEqual(r.events, [
      ['{"n":1}', '1'],
      ['{"n":2}', '2'],
      ['{"n":3}', '3'],
    ]);
    assert.equal(r.seen[0]?.['last-event-id'], undefined, 'the first connection starts from now');
    assert.equal(r.seen[0]?.accept, 'text/event-stream');
    assert.equal(r.seen[0]?.['x-tenant-id'], 'ws_1');
    assert.equal(r.seen[1]?.['last-event-id'], '2');
    assert.equal(r.seen[2]?.['last-event-id'], '3');
    assert.deepEqual(r.waits, [250, 250]);
    assert.deepEqual(r.statuses.slice(0, 3), [{ state: 'connecting' }, { state: 'live' }, { state: 'waiting', ms: 250, message: null }]);
  });

  it("a refusal inside the stream (rate limit, too many streams): waits the stream's retry and says why", async () => {
    const refusal = JSON.stringify({ success: false, errors: [{ code: 'TOO_MANY_STREAMS', message: 'Too many streams.' }] });
    const r = await tail([() => streamed([`retry: 30000\nevent: stream_error\ndata: ${refusal}\n\n`])]);
    assert.deepEqual(r.events, []);
    assert.deepEqual(r.statuses[2], { state: 'waiting', ms: 30000, message: 'Too many streams.' });
  });

  it('a 429 before the stream (rate limit, too many streams): waits Retry-After, says why, then connects again', async () => {
    const body = JSON.stringify({ success: false, errors: [{ code: 'RATE_LIMITED', message: 'Rate limit exceeded.' }] });
    const r = await tail([
      () => new Response(body, { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '42' } }),
      () => streamed(['id: 1\nevent: audit_event\ndata: {"n":1}\n\n']),
    ]);
    assert.deepEqual(r.statuses.slice(0, 3), [
      { state: 'connecting' },
      { state: 'waiting', ms: 42000, message: 'Rate limit exceeded.' },
      { state: 'connecting' },
    ]);
    assert.equal(r.waits[0], 42000);
    assert.deepEqual(r.events, [['{"n":1}', '1']]);
  });

  it('a final refusal (401, 400, 404) stops the tail with the problem', async () => {
    const body = JSON.stringify({ success: false, errors: [{ code: 'UNAUTHENTICATED', message: 'Sign in again.' }] });
    const r = await tail([() => new Response(body, { status: 401, headers: { 'content-type': 'application/json' } })]);
    const last = r.statuses[r.statuses.length - 1];
    assert.equal(last?.state, 'stopped');
    assert.equal(last?.state === 'stopped' && last.problem.status, 401);
    assert.equal(r.seen.length, 1, 'no reconnect');
  });

  it('a 503 is tried again', async () => {
    const r = await tail([() => new Response('', { status: 503 }), () => streamed(['id: 9\nevent: audit_event\ndata: x\n\n'])]);
    assert.deepEqual(r.events, [['x', '9']]);
    assert.equal(r.seen.length, 3);
  });
});
