/**
 * Receiving HTTP servers for outbound webhook tests, on 127.0.0.1 and a port the OS picks. Each
 * records every request (headers, raw body, the test clock's time at receipt) and answers as its
 * `answer` function says: a status and body, or `'hang'` (never answers; close() ends it), or a
 * promise (held until the test resolves it). Nothing here checks signatures: tests verify with
 * the `standardwebhooks` package (verifyDelivery).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { mock } from 'node:test';
import { Webhook } from 'standardwebhooks';

export interface Received {
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  /** The test clock's time when the request arrived (null without a clock). */
  at: number | null;
  /** Requests this receiver had open when this one arrived, itself included. */
  concurrent: number;
}

export type Answer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

/** How a receiver answers its nth request (0-based) and, per webhook-id, the how-many-th time it sees that message. */
export type Answering = (req: Received, n: number, seenBefore: number) => Answer | Promise<Answer>;

export const answers = {
  ok: (): Answer => ({ status: 200, body: 'ok' }),
  /** 500 the first time a message comes, 200 after. */
  failOnce: (_r: Received, _n: number, seen: number): Answer => (seen === 0 ? { status: 500, body: 'try again' } : { status: 200, body: 'ok' }),
  always:
    (status: number, body = '') =>
    (): Answer => ({ status, body }),
  hang: (): Answer => 'hang',
};

export class WebhookReceiver {
  readonly received: Received[] = [];
  private readonly seen = new Map<string, number>();
  private readonly sockets = new Set<Socket>();
  private readonly waiters: Array<{ n: number; resolve: () => void }> = [];
  private open = 0;
  private constructor(
    private readonly server: http.Server,
    private readonly clock: { now(): number } | null,
    private answering: Answering,
  ) {}

  static async start(answering: Answering = answers.ok, clock: { now(): number } | null = null): Promise<WebhookReceiver> {
    const server = http.createServer();
    const self = new WebhookReceiver(server, clock, answering);
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => void self.handle(req, res));
    server.on('connection', (s: Socket) => {
      self.sockets.add(s);
      s.on('close', () => self.sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return self;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Changes how later requests are answered. */
  answerWith(answering: Answering): void {
    this.answering = answering;
  }

  /** Requests to one path, in arrival order. */
  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** The webhook-ids received (at `path` when given), in arrival order. */
  ids(path?: string): string[] {
    return (path === undefined ? this.received : this.at(path)).map((r) => r.headers['webhook-id']!);
  }

  /** Resolves once `n` requests have arrived; a bound on a hang only (rejects after `boundMs`), never a measure. */
  waitForCount(n: number, boundMs = 20_000): Promise<void> {
    if (this.received.length >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${this.received.length} of ${n} requests arrived`)), boundMs);
      this.waiters.push({
        n,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.open++;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    const r: Received = {
      path: req.url ?? '',
      method: req.method ?? '',
      headers,
      body: Buffer.concat(chunks).toString('utf8'),
      at: this.clock?.now() ?? null,
      concurrent: this.open,
    };
    const id = headers['webhook-id'] ?? '';
    const seenBefore = this.seen.get(id) ?? 0;
    this.seen.set(id, seenBefore + 1);
    const n = this.received.length;
    this.received.push(r);
    for (const w of this.waiters.splice(0)) {
      if (this.received.length >= w.n) w.resolve();
      else this.waiters.push(w);
    }
    res.on('close', () => this.open--);
    const answer = await this.answering(r, n, seenBefore);
    if (answer === 'hang') return;
    res.writeHead(answer.status, answer.headers ?? {});
    res.end(answer.body ?? '');
  }
}

/**
 * Verifies a delivery with the standardwebhooks package, whose timestamp check reads Date.now():
 * Date is mocked to `at` (the test clock when it arrived) for the call alone. Returns the parsed
 * body; throws what the library throws.
 */
export function verifyDelivery(secret: string, r: Received, at = r.at ?? Date.now()): unknown {
  mock.timers.enable({ apis: ['Date'], now: at });
  try {
    return new Webhook(secret).verify(r.body, r.headers);
  } finally {
    mock.timers.reset();
  }
}
