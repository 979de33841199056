/**
 * A tiny HTTP proxy on 127.0.0.1 in front of a real Tollgate server, for the retry tests: each
 * request takes the next scripted fault (answer 429/503 itself, with or without Retry-After, or
 * forward it and then drop the connection instead of answering), then forwards as is. It records
 * every request's idempotency key and event count.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = { status: 429 | 503; retryAfter?: string; body?: string } | { drop: 'after-forward' };

export interface Seen {
  idempotencyKey: string | undefined;
  authorization: string | undefined;
  events: number;
}

export class FaultProxy {
  readonly seen: Seen[] = [];
  readonly faults: Fault[] = [];
  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(upstream: string): Promise<FaultProxy> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const proxy = new FaultProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void proxy.handle(upstream, req, Buffer.concat(chunks), res));
    });
    return proxy;
  }

  private async handle(upstream: string, req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): Promise<void> {
    let events = 0;
    try {
      events = (JSON.parse(body.toString('utf8')) as { events?: unknown[] }).events?.length ?? 0;
    } catch {
      // not a batch
    }
    this.seen.push({ idempotencyKey: req.headers['x-idempotency-key'] as string | undefined, authorization: req.headers.authorization, events });
    const fault = this.faults.shift();
    if (fault && 'status' in fault) {
      res.writeHead(fault.status, { 'content-type': 'application/json', ...(fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter }) });
      res.end(fault.body ?? JSON.stringify({ message: 'slow down' }));
      return;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection' && k !== 'content-length') headers[k] = v;
    const answer = await fetch(upstream + (req.url ?? '/'), { method: req.method, headers, body: req.method === 'GET' ? undefined : body });
    const text = await answer.text();
    if (fault && 'drop' in fault) {
      // The server stored the batch; the client never hears so.
      req.socket.destroy();
      return;
    }
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(text);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
