import type { FastifyReply } from 'fastify';
import type { Deps } from '../deps.js';
import { AppError } from '../lib/errors.js';

const WINDOW_MS = 60_000;

type Dimension = 'tenant' | 'storefront key' | 'widget session' | 'hub session' | 'IP address';
export const RATE_LIMIT_WINDOW_MS = WINDOW_MS;

/**
 * Counts the request against its bucket and sets the spec's headers; throws 429 when over, or,
 * on a route that answers in its stream, leaves the verdict on the request.
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
  reply.header('x-ratelimit-limit', String(r.limit));
  reply.header('x-ratelimit-remaining', String(r.remaining));
  if (!r.allowed) {
    const retryAfter = Math.max(1, Math.ceil((r.resetAt - deps.clock.now()) / 1000));
    const message = `Rate limit exceeded: at most ${limit} requests per minute per ${per}. Retry after ${retryAfter} seconds.`;
    if (reply.request.routeOptions.config?.rateLimited === 'in_stream') {
      reply.request.overRateLimit = { retryAfterSeconds: retryAfter, message };
      return;
    }
    throw new AppError('RATE_LIMITED', message, { headers: { 'retry-after': String(retryAfter), 'x-ratelimit-remaining': '0' } });
  }
}
