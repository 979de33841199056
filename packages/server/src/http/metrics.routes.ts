import type { FastifyReply, FastifyRequest } from 'fastify';
import { context, trace } from '@opentelemetry/api';
import type { Deps } from '../deps.js';
import { safeEqual } from '../lib/crypto.js';
import { AppError } from '../lib/errors.js';
import { endServerSpan, SpanKind, type Span } from '../lib/tracing.js';
import type { App } from './types.js';

/**
 * GET /metrics: this node's series in Prometheus's text format (docs/production.md, "Metrics and tracing").
 * Open like /health unless METRICS_TOKEN is set, then `Authorization: Bearer <token>`, compared
 * in constant time. Not rate limited (a scraper is one address), not in the OpenAPI document
 * (it is not part of the API), and never in a tenant's request summary (it has no credential).
 */
export async function metricsRoutes(app: App, deps: Pick<Deps, 'config' | 'metrics'>): Promise<void> {
  const token = deps.config.metricsToken;
  app.get('/metrics', {
    config: { rateLimited: false },
    schema: { hide: true },
    handler: async (req, reply) => {
      if (token !== null) {
        const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
        if (!safeEqual(given, token)) {
          reply.header('www-authenticate', 'Bearer realm="metrics"');
          throw new AppError('UNAUTHENTICATED', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.');
        }
      }
      const { contentType, text } = await deps.metrics.exposition();
      return reply.type(contentType).send(text);
    },
  });
}

/**
 * Every answered request in tollgate_http_requests_total and tollgate_http_request_duration_seconds,
 * by method, route pattern (routeOptions.url: never the URL with its ids) and status class.
 * Fastify's own timer measures it (reply.elapsedTime); recording adds to plain numbers
 * (lib/http-series.ts), synchronously: no promise per request.
 */
export function recordHttpMetrics(deps: Pick<Deps, 'metrics'>) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    deps.metrics.httpRequest(request.method, request.routeOptions.url ?? null, reply.statusCode, reply.elapsedTime / 1_000);
    done();
  };
}

/**
 * With tracing on (deps.tracer), a server span per request named `METHOD /route/{pattern}`; it is
 * the active context for the request's hooks and handler, so the writer's span nests under it
 * when the SDK's context manager is registered. Nothing is added with tracing off.
 */
export function traceRequests(app: App, deps: Pick<Deps, 'tracer'>): void {
  const tracer = deps.tracer;
  if (!tracer) return;
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url ?? '(unmatched)';
    const span = tracer.startSpan(`${request.method} ${route}`, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': request.method, 'http.route': route },
    });
    spans.set(request, span);
    context.with(trace.setSpan(context.active(), span), done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = spans.get(request);
    if (span) endServerSpan(span, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', async (request) => {
    spans.get(request)?.setAttribute('tollgate.aborted', true).end();
  });
}
