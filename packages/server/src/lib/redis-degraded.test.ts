import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { FrozenClock } from './clock.js';
import { createRedisRateLimiter } from './rate-limiter.js';
import { RedisLink } from './redis.js';

/**
 * A node whose Redis never answered (here: nothing listens on the port) has counted no other
 * node. It must still share the limit with REDIS_MIN_NODES nodes, never allow it all alone:
 * found from outside on a loaded machine (issue 38), where two such nodes let 400 requests through
 * a limit of 300 a minute.
 */
describe('a node degraded from its start (Redis never reached)', () => {
  it('allows 1/REDIS_MIN_NODES of a limit, and X-RateLimit-Limit shows that share', async () => {
    const log = pino({ level: 'silent' });
    const cases: Array<[number, number, number]> = [
      // [REDIS_MIN_NODES, limit, requests allowed in one window]
      [2, 300, 150],
      [3, 300, 100],
      [1, 300, 300],
      [4, 3, 1],
    ];
    for (const [minNodes, limit, allowed] of cases) {
      const link = new RedisLink({ url: 'redis://127.0.0.1:9', prefix: 'degraded-test:', commandTimeoutMs: 50, nodeId: 'n1', log, minNodes });
      try {
        assert.equal(link.up, false);
        assert.equal(link.nodes, minNodes, 'never counted: the configured minimum');
        const limiter = createRedisRateLimiter(link, new FrozenClock(Date.UTC(2026, 0, 1)));
        let passed = 0;
        for (let i = 0; i < limit; i++) if ((await limiter.hit('ws:1', limit, 60_000)).allowed) passed += 1;
        assert.equal(passed, allowed, `REDIS_MIN_NODES=${minNodes}, limit ${limit}`);
        assert.equal((await limiter.hit('ws:1', limit, 60_000)).limit, allowed, 'X-RateLimit-Limit shows the share');
        await limiter.close();
      } finally {
        await link.close();
      }
    }
  });
});
