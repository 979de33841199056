/**
 * An HTTP proxy on 127.0.0.1 in front of the real server, which answers or drops requests as a
 * test plans: each planned fault takes the next request, the rest are forwarded unchanged.
 * - answer: the proxy answers itself (a 429 or 503, with or without Retry-After, any body);
 * - dropAfterForward: the request reaches the server, which processes it, and then the
 *   connection to the client is destroyed before any byte of the answer (a lost response).
 * Every request is recorded with its headers and body.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import { startRealServer, type RealServer } from './real-server.js';
import { Tollgate, type TollgateOptions } from '../../src/index.js';

export type Fault = { kind: 'answer'; status: number; headers?: Record<string, string>; body?: string } | { kind: 'dropAfterForward' };

export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** What happened: the fault's kind, or 'forward'. */
  outcome: string;
}

export class FaultProxy {
  readonly seen: Seen[] = [];
  private readonly faults: Fault[] = [];
  private server!: http.Server;
  baseUrl = '';

  private constructor(private readonly target: URL) {}

  static async start(targetBaseUrl: string): Promise<FaultProxy> {
    const proxy = new FaultProxy(new URL(targetBaseUrl));
    proxy.server = http.createServer((req, res) => proxy.handle(req, res));
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    proxy.baseUrl = `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}`;
    return proxy;
  }

  /** The next requests meet these faults, in order. */
  plan(...faults: Fault[]): void {
    this.faults.push(...faults);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const fault = this.faults.shift();
      this.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: body.toString('utf8'), outcome: fault?.kind ?? 'forward' });
      if (fault?.kind === 'answer') {
        res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
        res.end(fault.body ?? '');
        return;
      }
      const upstream = http.request(
        { host: this.target.hostname, port: this.target.port, method: req.method, path: req.url, headers: { ...req.headers, host: this.target.host } },
        (answer) => {
          if (fault?.kind === 'dropAfterForward') {
            // The server has answered, so it has processed the request: the client never hears.
            answer.resume();
            answer.on('end', () => req.socket.destroy());
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The real server with a fault proxy in front, for one test file: started before its tests,
 * closed after them. Read `env.server` and `env.proxy` inside the tests. `env.client()` is a
 * fresh client through the proxy whose retry waits are recorded in `env.waits`, never slept
 * (both records start empty).
 */
export function serverBehindProxy() {
  const env = {
    server: undefined as unknown as RealServer,
    proxy: undefined as unknown as FaultProxy,
    waits: [] as number[],
    client: (extra: Partial<TollgateOptions> = {}): Tollgate => {
      env.waits.length = 0;
      env.proxy.seen.length = 0;
      return new Tollgate({
        apiKey: env.server.key,
        baseUrl: env.proxy.baseUrl,
        now: env.server.now,
        flushOnExit: false,
        sleep: async (ms) => void env.waits.push(ms),
        onError: () => undefined,
        ...extra,
      });
    },
  };
  before(async () => {
    env.server = await startRealServer();
    env.proxy = await FaultProxy.start(env.server.baseUrl);
  });
  after(async () => {
    await env.proxy.close();
    await env.server.close();
  });
  return env;
}
