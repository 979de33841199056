import { createRequire } from 'node:module';
import type { Redis, RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/** After a failed command, Redis is left alone this long: requests go on without it at full speed. */
const BREAKER_MS = 1_000;
/** How often a node says it is alive (and checks that Redis answers), and how long a silent node still counts. */
const HEARTBEAT_MS = 5_000;
const NODE_TTL_MS = 15_000;

// Redis's own clock decides who is alive, so nodes need not agree on time. Returns the live nodes.
const HEARTBEAT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return redis.call('ZCARD', KEYS[1])
`;

export class RedisUnavailableError extends Error {
  constructor(message = 'Redis is not available') {
    super(message);
    this.name = 'RedisUnavailableError';
  }
}

export interface RedisLinkOptions {
  url: string;
  /** Namespaces keys and channels; tests give each app its own. */
  prefix: string;
  commandTimeoutMs: number;
  nodeId: string;
  log: Logger;
  /** The fewest nodes a degraded node assumes share the limits (REDIS_MIN_NODES), counted or not. */
  minNodes: number;
}

/**
 * The server's two Redis connections (commands, and pub/sub) and what it knows of Redis's health.
 *
 * Redis is a helper, never a dependency a request waits on: commands are not queued while it is
 * away (they fail at once), each has a timeout of tens of milliseconds, and after a failure the
 * link stops trying for a second, so a node without Redis serves at full speed in its degraded
 * mode (lib/rate-limiter.ts, deps.ts). `up` turns true only when both connections are ready and
 * the channels are subscribed; listeners hear every change, so caches can be cleared when
 * invalidation messages may have been missed.
 *
 * Every node also counts the live nodes (a heartbeat every 5 s): while Redis is away, each
 * enforces its share of a rate limit.
 */
export class RedisLink {
  readonly prefix: string;
  private readonly cmd: Redis;
  private readonly sub: Redis;
  private readonly channels = new Map<string, Array<(message: string) => void>>();
  private readonly listeners = new Set<(up: boolean) => void>();
  private subscribed = false;
  private openUntil = 0;
  private wasUp = false;
  private wentDown = false;
  private closed = false;
  private readonly heartbeat: NodeJS.Timeout;
  private counted = 1;

  /**
   * The nodes a degraded node divides a rate limit by: the live nodes last counted, never fewer
   * than REDIS_MIN_NODES. A node that never reached Redis (slow from its start) has counted
   * nobody; assuming it is alone let a cluster through at a multiple of the limit.
   */
  get nodes(): number {
    return Math.max(this.o.minNodes, this.counted);
  }

  constructor(private readonly o: RedisLinkOptions) {
    this.prefix = o.prefix;
    const options: RedisOptions = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: o.commandTimeoutMs,
      connectTimeout: 2_000,
      // Reconnect for ever, backing off to 2 s.
      retryStrategy: (attempt) => Math.min(100 * 2 ** attempt, 2_000),
      // Channels are subscribed on every 'ready' below, with the current list.
      autoResubscribe: false,
    };
    // Loaded here, when Redis is configured: a node without it does not load ioredis at a start.
    const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.cmd = new RedisClient(o.url, options);
    this.sub = new RedisClient(o.url, options);
    let lastError = 0;
    const onError = (err: Error) => {
      // A reconnect loop reports every attempt: one line in ten seconds is enough.
      if (Date.now() - lastError > 10_000) {
        lastError = Date.now();
        o.log.warn({ err: err.message }, 'redis unavailable: rate limits are enforced per node and the key cache TTL is shortened until it returns');
      }
    };
    this.cmd.on('error', onError);
    this.sub.on('error', onError);
    this.sub.on('message', (channel: string, message: string) => {
      for (const h of this.channels.get(channel) ?? []) h(message);
    });
    this.sub.on('ready', () => void this.subscribeAll());
    for (const r of [this.cmd, this.sub]) {
      r.on('ready', () => this.refresh());
      r.on('close', () => {
        if (r === this.sub) this.subscribed = false;
        this.refresh();
      });
    }
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
    this.cmd.once('ready', () => void this.beat());
  }

  /** Both connections ready, channels subscribed, no recent failure. */
  get up(): boolean {
    return !this.closed && this.cmd.status === 'ready' && this.sub.status === 'ready' && this.subscribed && Date.now() >= this.openUntil;
  }

  /** Resolves true once up, or false after timeoutMs (a node starts in degraded mode rather than not at all). */
  whenUp(timeoutMs: number): Promise<boolean> {
    if (this.up) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.listeners.delete(listener);
        resolve(false);
      }, timeoutMs);
      const listener = (up: boolean) => {
        if (!up) return;
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(true);
      };
      this.listeners.add(listener);
    });
  }

  /** Hears every change of `up`. */
  onChange(fn: (up: boolean) => void): void {
    this.listeners.add(fn);
  }

  /**
   * Runs one command, or fails at once while Redis is away or was failing a moment ago. A failure
   * leaves Redis alone for a second.
   */
  async run<T>(fn: (redis: Redis) => Promise<T>): Promise<T> {
    if (this.closed || this.cmd.status !== 'ready' || Date.now() < this.openUntil) throw new RedisUnavailableError();
    try {
      const result = await fn(this.cmd);
      if (!this.wasUp) this.refresh();
      return result;
    } catch (err) {
      this.openUntil = Date.now() + BREAKER_MS;
      this.refresh();
      throw err;
    }
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.run((r) => r.publish(this.prefix + channel, message));
  }

  /** Registers a handler; the channel is subscribed now if Redis is there, and on every reconnect. */
  async subscribe(channel: string, handler: (message: string) => void): Promise<void> {
    const full = this.prefix + channel;
    const list = this.channels.get(full);
    if (list) {
      list.push(handler);
      return;
    }
    this.channels.set(full, [handler]);
    if (this.sub.status === 'ready') await this.sub.subscribe(full).catch(() => undefined);
  }

  private async subscribeAll(): Promise<void> {
    try {
      if (this.channels.size > 0) await this.sub.subscribe(...this.channels.keys());
      this.subscribed = true;
    } catch {
      // The connection dropped again; the next 'ready' tries again.
    }
    this.refresh();
  }

  private async beat(): Promise<void> {
    try {
      const n = await this.run((r) => r.eval(HEARTBEAT_SCRIPT, 1, `${this.prefix}nodes`, this.o.nodeId, NODE_TTL_MS) as Promise<number>);
      this.counted = Math.max(1, Number(n));
    } catch {
      // Counted again at the next beat; meanwhile the last count stands.
    }
    // A breaker that has since closed shows here at the latest.
    this.refresh();
  }

  private refresh(): void {
    const up = this.up;
    if (up === this.wasUp) return;
    this.wasUp = up;
    if (!up) {
      this.wentDown = true;
      // Said once per change, however it failed (an error, or commands slower than REDIS_COMMAND_TIMEOUT_MS).
      this.o.log.warn(
        { nodes: this.nodes },
        `redis degraded: rate limits are counted on this node at 1/${this.nodes} of each limit, and the key cache TTL is shortened, until it answers again`,
      );
    } else if (this.wentDown) this.o.log.info('redis available again: caches cleared, shared rate limits resumed');
    for (const fn of this.listeners) fn(up);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    this.channels.clear();
    this.listeners.clear();
    this.sub.disconnect();
    await this.cmd.quit().catch(() => this.cmd.disconnect());
  }
}
