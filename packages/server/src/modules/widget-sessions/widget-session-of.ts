import type { FastifyRequest } from 'fastify';

/** What a widget route acts on: the one subscription its session names. */
export interface WidgetSessionRef {
  id: string;
  subscriptionId: string;
  customerId: string;
  /** Epoch ms, exclusive. */
  expiresAt: number;
}

/**
 * The session of a request on a widget route (`config.auth: { kind: 'widget_session' }`), for
 * the routes to act on its subscription only. Any other credential here means the route is
 * configured wrongly: a bug (a logged 500), never a request served with another principal.
 */
export function widgetSessionOf(request: FastifyRequest): WidgetSessionRef {
  const c = request.credential;
  if (c?.type !== 'widget_session') {
    throw new Error(`Route ${request.routeOptions.url ?? request.url} reads a widget session but does not require one.`);
  }
  return { id: c.id, subscriptionId: c.subscriptionId, customerId: c.customerId, expiresAt: c.expiresAt ?? 0 };
}
