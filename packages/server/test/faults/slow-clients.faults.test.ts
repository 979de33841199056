/**
 * Slow clients against a listening server: bodies and headers sent slowly must neither hold
 * ingestion's admission slots nor keep connections for ever. Needs no outside service, so it
 * runs on both passes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createMetric } from '../../src/modules/metrics/create-metric.js';

/** A hang detector: the server must answer a slow client by then (its own timeouts are far shorter). */
const CLOSED_WITHIN_MS = 20_000;

interface SlowClient {
  socket: net.Socket;
  /** Resolves with everything the server sent once it closes the connection. */
  closed: Promise<string>;
}

/** Opens a connection and sends `head` (and nothing more until told). */
function slowClient(port: number, head: string): Promise<SlowClient> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(head);
      let received = '';
      socket.setEncoding('utf8').on('data', (d: string) => (received += d));
      const closed = new Promise<string>((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`the server kept a slow client for ${CLOSED_WITHIN_MS} ms; it sent: ${received}`)), CLOSED_WITHIN_MS);
        socket.on('close', () => {
          clearTimeout(timer);
          done(received);
        });
      });
      resolve({ socket, closed });
    });
    socket.on('error', reject);
  });
}

describe('slow clients', () => {
  let t: TestApp;
  let port: number;
  let key: string;
  const event = () => ({ customerId: 'acme', metricName: 'api_calls', quantity: 1, occurredAt: new Date(t.clock.now()).toISOString() });

  before(async () => {
    t = await createTestApp({
      config: { ingestMaxInFlight: 4, httpBodyTimeoutMs: 300, httpHeadersTimeoutMs: 300, uploadIdleTimeoutMs: 300, uploadMaxConcurrent: 1 },
    });
    const ws = await t.seed.workspace();
    key = ws.test.secretKey;
    await createMetric(t.deps, ws.test.ctx, { name: 'api_calls' });
    await t.seed.customer(ws.test, { externalId: 'acme' });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as net.AddressInfo).port;
  });

  after(() => t?.close());

  it('four clients trickling their batch bodies hold no admission slot: other batches get 200, and the slow ones get 408', async () => {
    const body = JSON.stringify({ events: [event()] });
    const head = `POST /v1/ingest/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    const slow = await Promise.all(Array.from({ length: 4 }, () => slowClient(port, head + body.slice(0, 5))));
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/v1/ingest/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body,
      });
      assert.equal(res.status, 200, await res.text());
      await res.arrayBuffer().catch(() => undefined);
    }
    for (const s of slow) {
      const answer = await s.closed;
      assert.match(answer, /^HTTP\/1\.1 408 /);
      assert.match(answer, /"code":"REQUEST_TIMEOUT"/);
      assert.match(answer, /HTTP_BODY_TIMEOUT_MS/);
    }
  });

  it('a client that never finishes its headers is disconnected with 408', async () => {
    const s = await slowClient(port, `POST /v1/ingest/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n`);
    assert.match(await s.closed, /^HTTP\/1\.1 408 /);
  });

  it('an upload that stops sending is ended with 408, and frees its slot for the next upload', async () => {
    const head = `POST /api/v1/usage/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const line = `${JSON.stringify(event())}\n`;
    const s = await slowClient(port, `${head}${line.length.toString(16)}\r\n${line}\r\n`);
    const answer = await s.closed;
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.match(answer, /UPLOAD_IDLE_TIMEOUT_MS/);
    const next = await fetch(`http://127.0.0.1:${port}/api/v1/usage/uploads`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
      body: line,
    });
    const report = (await next.json()) as { accepted: number };
    assert.equal(next.status, 200, JSON.stringify(report));
    assert.equal(report.accepted, 1);
  });
});
