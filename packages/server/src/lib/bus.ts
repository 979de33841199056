import type { Logger } from 'pino';
import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';

/**
 * Messages between server processes: cache invalidation now, the live audit stream later.
 * In one process an EventEmitter; across processes Redis pub/sub, so a revocation on one node
 * reaches every node.
 */
export interface Bus {
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: (message: string) => void): Promise<void>;
  close(): Promise<void>;
}

export function createLocalBus(): Bus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    async publish(channel, message) {
      emitter.emit(channel, message);
    },
    async subscribe(channel, handler) {
      emitter.on(channel, handler);
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}

export function createRedisBus(url: string, prefix: string, onError: (err: Error) => void): Bus {
  const pub = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 });
  const sub = new Redis(url, { lazyConnect: false });
  pub.on('error', onError);
  sub.on('error', onError);
  const handlers = new Map<string, Array<(message: string) => void>>();
  sub.on('message', (channel: string, message: string) => {
    for (const h of handlers.get(channel) ?? []) h(message);
  });
  return {
    async publish(channel, message) {
      await pub.publish(prefix + channel, message);
    },
    async subscribe(channel, handler) {
      const full = prefix + channel;
      const list = handlers.get(full);
      if (list) list.push(handler);
      else {
        handlers.set(full, [handler]);
        await sub.subscribe(full);
      }
    },
    async close() {
      handlers.clear();
      sub.disconnect();
      await pub.quit().catch(() => pub.disconnect());
    },
  };
}

/**
 * After a committed change: clear a cache on this node and tell every other node (each
 * subscribes to `channel` and clears its own). A lost broadcast is only logged: the cache's TTL
 * bounds how long another node may serve the old value.
 */
export async function clearEverywhere(deps: { bus: Bus; log: Logger }, channel: string, clear: () => void, what: string): Promise<void> {
  clear();
  try {
    await deps.bus.publish(channel, 'changed');
  } catch (err) {
    deps.log.warn({ err }, `${what} invalidation not broadcast; other nodes catch up when their cache entries expire`);
  }
}
