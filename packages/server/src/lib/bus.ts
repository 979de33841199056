import { EventEmitter } from 'node:events';
import type { RedisLink } from './redis.js';

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

/** Across processes: Redis pub/sub through the server's link (lib/redis.ts), which resubscribes after a reconnect. */
export function createRedisBus(link: RedisLink): Bus {
  return {
    publish: (channel, message) => link.publish(channel, message),
    subscribe: (channel, handler) => link.subscribe(channel, handler),
    // The link is closed by its owner (deps), after everything that uses it.
    async close() {},
  };
}
