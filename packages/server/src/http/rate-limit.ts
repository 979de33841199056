import type { FastifyReply } from 'fastify';
import type { Deps } from '../deps.js';
import { AppError } from '../lib/errors.js';

const WINDOW_MS = 60_000;

type Dimension = 'tenant' | 'storefront key' | 'widget session' | 'hub session' | 'IP address';
export const RATE_LIMIT_WINDOW_MS = WINDOW_MS;

/** Each dimension's policy name in the IETF RateLimit-Policy and RateLimit fields (a token, quoted). */
const POLICY: Record<Dimension, string> = {
  tenant: 'tenant',
  'storefront key': 'storefront-key',
  'widget session': 'widget-session',
  'hub session': 'hub-session',
  'IP address': 'ip',
};

/**
 * Counts the request against its bucket and sets the rate-limit headers, on every answer: the
 * spec's X-RateLimit-Limit and X-RateLimit-Remaining, X-RateLimit-Reset (seconds until the window
 * ends, as Retry-After counts them), and the IETF draft's pair (draft-ietf-httpapi-ratelimit-headers):
 * RateLimit-Policy `"tenant";q=300;w=60` and RateLimit `"tenant";r=299;t=42`. Throws 429 when over.
 */
export async function enforceRateLimit(deps: Deps, reply: FastifyReply, bucket: string, limit: number, per: Dimension) {
  let r;
  try {
    r = await deps.limiter.hit(bucket, limit, WINDOW_MS);
  } catch (err) {
    // The limiter's store is down: serving traffic matters more than counting it.
    reply.log.error({ err }, 'rate limiter unavailable; request allowed');
    return;
  }
  const reset = Math.max(0, Math.ceil((r.resetAt - deps.clock.now()) / 1000));
  const policy = POLICY[per];
  reply.header('x-ratelimit-limit', String(r.limit));
  reply.header('x-ratelimit-remaining', String(r.remaining));
  reply.header('x-ratelimit-reset', String(reset));
  reply.header('ratelimit-policy', `"${policy}";q=${r.limit};w=${WINDOW_MS / 1000}`);
  reply.header('ratelimit', `"${policy}";r=${r.remaining};t=${reset}`);
  if (!r.allowed) {
    const retryAfter = Math.max(1, reset);
    const message = `Rate limit exceeded: at most ${limit} requests per minute per ${per}. Retry after ${retryAfter} seconds.`;
    throw new AppError('RATE_LIMITED', message, { headers: { 'retry-after': String(retryAfter), 'x-ratelimit-remaining': '0' } });
  }
}
