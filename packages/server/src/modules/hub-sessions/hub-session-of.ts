import type { FastifyRequest } from 'fastify';

/** What a hub route acts on: the one customer its session names. */
export interface HubSessionRef {
  id: string;
  customerId: string;
  /** Epoch ms, exclusive. */
  expiresAt: number;
}

/**
 * The session of a request on a hub route (`config.auth: { kind: 'hub_session' }`), for the
 * routes to act on its customer only. Any other credential here means the route is configured
 * wrongly: a bug (a logged 500), never a request served with another principal.
 */
export function hubSessionOf(request: FastifyRequest): HubSessionRef {
  const c = request.credential;
  if (c?.type !== 'hub_session') {
    throw new Error(`Route ${request.routeOptions.url ?? request.url} reads a hub session but does not require one.`);
  }
  return { id: c.id, customerId: c.customerId, expiresAt: c.expiresAt ?? 0 };
}
