import type { RedisLink } from './redis.js';
import type { Clock } from './clock.js';

/**
 * Fixed windows that start at a bucket's first request and last windowMs. Anchoring the window
 * at the first request (not at the minute on the wall clock) means N+1 requests sent within any
 * one window are always refused, whenever they start. Both stores take the time from the app's
 * clock, so tests can freeze it, and behave the same.
 */
export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch ms when the window ends. */
  resetAt: number;
}

export interface RateLimiter {
  hit(bucket: string, limit: number, windowMs: number): Promise<RateLimitResult>;
  close(): Promise<void>;
}

function result(count: number, limit: number, resetAt: number): RateLimitResult {
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetAt };
}

export function createMemoryRateLimiter(clock: Clock, maxBuckets = 100_000): RateLimiter {
  const buckets = new Map<string, { count: number; resetAt: number }>();
  return {
    async hit(bucket, limit, windowMs) {
      const now = clock.now();
      let b = buckets.get(bucket);
      if (!b || b.resetAt <= now) {
        if (!b && buckets.size >= maxBuckets) {
          // Drop expired buckets first; if none, the oldest ones (Map keeps insertion order).
          for (const [k, v] of buckets) if (v.resetAt <= now) buckets.delete(k);
          while (buckets.size >= maxBuckets) buckets.delete(buckets.keys().next().value as string);
        }
        b = { count: 0, resetAt: now + windowMs };
        buckets.set(bucket, b);
      }
      b.count += 1;
      return result(b.count, limit, b.resetAt);
    },
    async close() {
      buckets.clear();
    },
  };
}

// One round trip, atomic: reset the window when it has ended, then count this request.
const HIT_SCRIPT = `
local now = tonumber(ARGV[1])
local win = tonumber(ARGV[2])
local reset = tonumber(redis.call('HGET', KEYS[1], 'r') or '0')
local count
if reset <= now then
  reset = now + win
  count = 1
  redis.call('HSET', KEYS[1], 'c', 1, 'r', reset)
else
  count = redis.call('HINCRBY', KEYS[1], 'c', 1)
end
redis.call('PEXPIRE', KEYS[1], win * 2)
return {count, reset}
`;

/**
 * Shared counters in Redis; while Redis is away (or failing: lib/redis.ts stops asking for a
 * second after a failure), each node counts in memory and allows its share of the limit, the
 * limit divided by the live nodes last counted, so the cluster as a whole stays near the limit
 * instead of dropping it. X-RateLimit-Limit then shows the share.
 */
export function createRedisRateLimiter(link: RedisLink, clock: Clock): RateLimiter {
  const local = createMemoryRateLimiter(clock);
  return {
    async hit(bucket, limit, windowMs) {
      if (link.up) {
        try {
          const [count, resetAt] = (await link.run((r) => r.eval(HIT_SCRIPT, 1, `${link.prefix}rl:${bucket}`, clock.now(), windowMs))) as [number, number];
          return result(Number(count), limit, Number(resetAt));
        } catch {
          // Counted locally below; the link has noted the failure.
        }
      }
      return local.hit(bucket, Math.max(1, Math.ceil(limit / link.nodes)), windowMs);
    },
    async close() {
      await local.close();
    },
  };
}
