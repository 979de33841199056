/**
 * A TCP proxy on 127.0.0.1 between a server under test and a service it depends on (PostgreSQL,
 * Redis), which the test can cut, freeze and restore. The services on loopback are shared by
 * other work on the machine and are never stopped; this stands in for their outages:
 * - cut(): every connection is reset and new ones are refused, as when the service stops;
 * - freeze(): connections stay open but nothing flows either way, and new ones hang, as when
 *   the network to it freezes;
 * - restore(): back to forwarding (a frozen connection resumes; a cut one stays gone).
 */
import net from 'node:net';

type Mode = 'forward' | 'cut' | 'frozen';

interface Pair {
  client: net.Socket;
  upstream: net.Socket | null;
}

export class TcpProxy {
  private server: net.Server;
  private readonly pairs = new Set<Pair>();
  private mode: Mode = 'forward';
  port = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {
    this.server = this.makeServer();
  }

  /** Starts a proxy to host:port on a free port of 127.0.0.1. */
  static async start(host: string, port: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(host, port);
    await proxy.listen(0);
    return proxy;
  }

  /** The same URL with its host and port replaced by the proxy's (postgres://…, redis://…). */
  via(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  get connections(): number {
    return this.pairs.size;
  }

  private makeServer(): net.Server {
    return net.createServer((client) => {
      if (this.mode === 'cut') {
        client.resetAndDestroy();
        return;
      }
      const pair: Pair = { client, upstream: null };
      this.pairs.add(pair);
      client.on('error', () => undefined);
      client.on('close', () => {
        pair.upstream?.destroy();
        this.pairs.delete(pair);
      });
      if (this.mode === 'frozen') client.pause();
      else this.connect(pair);
    });
  }

  private connect(pair: Pair): void {
    const upstream = net.connect(this.targetPort, this.targetHost);
    pair.upstream = upstream;
    upstream.on('error', () => pair.client.destroy());
    upstream.on('close', () => pair.client.destroy());
    pair.client.pipe(upstream);
    upstream.pipe(pair.client);
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        this.port = (this.server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  }

  /** Resets every connection and refuses new ones (the port is closed: ECONNREFUSED). */
  async cut(): Promise<void> {
    this.mode = 'cut';
    for (const p of this.pairs) {
      p.client.resetAndDestroy();
      p.upstream?.destroy();
    }
    this.pairs.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Stops all traffic both ways without closing anything; new connections are accepted and hang. */
  freeze(): void {
    this.mode = 'frozen';
    for (const p of this.pairs) {
      // Unpiped, or the pipe's own flow control could resume them.
      if (p.upstream) {
        p.client.unpipe(p.upstream);
        p.upstream.unpipe(p.client);
        p.upstream.pause();
      }
      p.client.pause();
    }
  }

  /** Forwards again: frozen connections resume, and after a cut the port is opened again. */
  async restore(): Promise<void> {
    const was = this.mode;
    this.mode = 'forward';
    if (was === 'cut') {
      this.server = this.makeServer();
      await this.listen(this.port);
      return;
    }
    for (const p of this.pairs) {
      if (p.upstream) {
        p.client.pipe(p.upstream);
        p.upstream.pipe(p.client);
      } else {
        this.connect(p);
      }
    }
  }

  async close(): Promise<void> {
    for (const p of this.pairs) {
      p.client.destroy();
      p.upstream?.destroy();
    }
    this.pairs.clear();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
