import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { SseStream, type SseEndReason } from './sse.js';

/**
 * A response that keeps what is written; `unread` plays the bytes a slow client has not read.
 * Corked writes wait in `held`, and `flushes` counts what reaches the socket as one write.
 */
class FakeResponse extends EventEmitter {
  written = '';
  held = '';
  corked = 0;
  flushes = 0;
  unread = 0;
  status = 0;
  headers: Record<string, unknown> = {};
  ended = false;
  destroyed = false;
  writeHead(status: number, headers: Record<string, unknown>) {
    this.status = status;
    this.headers = headers;
  }
  write(chunk: string) {
    if (this.corked > 0) this.held += chunk;
    else {
      this.written += chunk;
      this.flushes += 1;
    }
    return true;
  }
  cork() {
    this.corked += 1;
  }
  uncork() {
    if (this.corked === 0 || --this.corked > 0 || this.held === '') return;
    this.written += this.held;
    this.held = '';
    this.flushes += 1;
  }
  get writableLength() {
    return this.unread;
  }
  get writableNeedDrain() {
    return this.unread > 0;
  }
  end() {
    this.ended = true;
    this.emit('close');
  }
  destroy() {
    this.destroyed = true;
    this.emit('close');
  }
}

const open = (opts: Partial<{ heartbeatMs: number; maxBufferedBytes: number }> = {}) => {
  const res = new FakeResponse();
  const stream = new SseStream(res as unknown as ServerResponse, {
    retryMs: 3000,
    heartbeatMs: 60_000,
    maxBufferedBytes: 1000,
    headers: { 'x-request-id': 'req_1' },
    ...opts,
  });
  stream.open();
  return { res, stream };
};

describe('http.SseStream', () => {
  it('opens with the event-stream headers, its own headers and the retry field', () => {
    const { res, stream } = open();
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/event-stream/);
    assert.equal(res.headers['cache-control'], 'no-cache, no-transform');
    assert.equal(res.headers['x-request-id'], 'req_1');
    assert.equal(res.written, 'retry: 3000\n\n');
    stream.end('server_closing');
  });

  const frames: Array<[string, Parameters<SseStream['send']>[0], string]> = [
    ['id, event and data', { id: '7', event: 'audit_event', data: '{"a":1}' }, 'id: 7\nevent: audit_event\ndata: {"a":1}\n\n'],
    ['data alone', { data: 'x' }, 'data: x\n\n'],
    ['a retry with the message', { event: 'stream_error', retryMs: 60000, data: '{}' }, 'retry: 60000\nevent: stream_error\ndata: {}\n\n'],
    ['data with a line break: one field per line', { data: 'a\nb' }, 'data: a\ndata: b\n\n'],
  ];
  for (const [name, message, expected] of frames) {
    it(`frames ${name}`, () => {
      const { res, stream } = open();
      assert.equal(stream.send(message), true);
      assert.equal(res.written.slice('retry: 3000\n\n'.length), expected);
      stream.end('server_closing');
    });
  }

  it('sends a keep-alive comment every heartbeat, and none after the end', (t) => {
    // Fake timers: the test never waits for real time, so a loaded machine cannot make it flaky.
    t.mock.timers.enable({ apis: ['setInterval'] });
    const { res, stream } = open({ heartbeatMs: 20 });
    const keepAlives = () => (res.written.match(/: keep-alive\n\n/g) ?? []).length;
    t.mock.timers.tick(19);
    assert.equal(keepAlives(), 0);
    t.mock.timers.tick(1);
    assert.equal(keepAlives(), 1);
    t.mock.timers.tick(40);
    assert.equal(keepAlives(), 3);
    stream.end('server_closing');
    t.mock.timers.tick(100);
    assert.equal(keepAlives(), 3);
  });

  it('cuts a client that left more than the limit unread, and says why', () => {
    const { res, stream } = open({ maxBufferedBytes: 1000 });
    const reasons: SseEndReason[] = [];
    stream.onEnd((r) => reasons.push(r));
    assert.equal(stream.send({ data: 'ok' }), true);
    res.unread = 1001;
    assert.equal(stream.send({ data: 'one too many' }), false);
    assert.equal(res.destroyed, true, 'the connection is cut, not flushed: the reader is not reading');
    assert.deepEqual(reasons, ['buffer_limit']);
    assert.equal(stream.isOpen, false);
    assert.equal(stream.send({ data: 'after' }), false);
  });

  it('a client that disconnects ends the stream once', () => {
    const { res, stream } = open();
    const reasons: SseEndReason[] = [];
    stream.onEnd((r) => reasons.push(r));
    res.emit('close');
    res.emit('close');
    assert.deepEqual(reasons, ['client_closed']);
    assert.equal(stream.isOpen, false);
  });

  it('hold() keeps messages until release(), then they leave in one write', () => {
    const { res, stream } = open();
    const before = res.flushes;
    stream.hold();
    stream.send({ id: '1', data: 'a' });
    stream.send({ id: '2', data: 'b' });
    assert.equal(res.written, 'retry: 3000\n\n', 'nothing leaves while held');
    stream.release();
    assert.equal(res.written, 'retry: 3000\n\nid: 1\ndata: a\n\nid: 2\ndata: b\n\n');
    assert.equal(res.flushes - before, 1);
    stream.end('server_closing');
  });

  it('drained() waits for the client to read, or for the end', async () => {
    const { res, stream } = open();
    res.unread = 10;
    let done = false;
    const p = stream.drained().then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(done, false);
    res.unread = 0;
    res.emit('drain');
    await p;
    assert.equal(done, true);
    stream.end('server_closing');
  });
});
