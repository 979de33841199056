/**
 * A small HTTP load balancer on 127.0.0.1 for the multi-node tests: what compose.yaml's nginx does
 * (deploy/nginx/nginx.conf), without containers. Each request goes to the next node in turn,
 * whatever connection it came on; X-Forwarded-For gains the client's address; bodies and answers
 * stream both ways, so the live audit stream flows through it event by event. `served` records
 * which node took each request, in order, and each answer carries it as X-Served-By.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Upstream {
  name: string;
  /** Base URL: http://127.0.0.1:PORT */
  address: string;
}

export class RoundRobinBalancer {
  /** The upstream name of every request so far, in arrival order. */
  readonly served: string[] = [];
  address = '';
  private turn = 0;
  private readonly server: http.Server;

  private constructor(private readonly upstreams: readonly Upstream[]) {
    this.server = http.createServer((req, res) => this.forward(req, res));
  }

  static async start(upstreams: readonly Upstream[]): Promise<RoundRobinBalancer> {
    const balancer = new RoundRobinBalancer(upstreams);
    await new Promise<void>((resolve, reject) => {
      balancer.server.once('error', reject);
      balancer.server.listen(0, '127.0.0.1', () => resolve());
    });
    balancer.address = `http://127.0.0.1:${(balancer.server.address() as AddressInfo).port}`;
    return balancer;
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const target = this.upstreams[this.turn++ % this.upstreams.length]!;
    this.served.push(target.name);
    const headers = { ...req.headers };
    delete headers.connection;
    headers['x-forwarded-for'] = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const upstream = http.request(new URL(req.url ?? '/', target.address), { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-served-by': target.name });
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'x-served-by': target.name });
      res.end();
    });
    // A client that goes away (a closed event stream) ends the upstream request too.
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
