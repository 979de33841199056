import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/**
 * One info line per answered request (REQUEST_LOG; on in the production profile): what an
 * operator searches by when a customer reports a failure. Only the route's pattern is logged,
 * never the URL as sent (its query may name customers, a hub link its token), and never a header
 * or a body, so no key or secret can reach the log.
 */
export function logRequests(log: Pick<Logger, 'info'>) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    // request.ctx is set once the request authenticated; the rest are anonymous or refused.
    const ctx = (request as Partial<Pick<FastifyRequest, 'ctx'>>).ctx;
    log.info(
      {
        requestId: request.id,
        method: request.method,
        route: request.routeOptions.url ?? '(unmatched)',
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 10) / 10,
        workspaceId: ctx?.workspaceId ?? null,
        environment: ctx?.environment ?? null,
      },
      'request',
    );
  };
}
