import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { recordAudit, type EventOrigin } from './audit-event.repository.js';
import { ApiRequestSummaryAccumulator, isServerError, type TenantSummary } from './api-request-summary.js';

/** Several server processes summarise the same minute; this tells their events apart. */
export const NODE_ID = randomBytes(6).toString('hex');

export const SUMMARY_INTERVAL_MS = 60_000;

type RecorderDeps = Pick<Deps, 'db' | 'clock' | 'ids' | 'log'>;

declare module 'fastify' {
  interface FastifyInstance {
    /** Writes the request summaries counted so far now, instead of at the end of the minute (tests). */
    flushRequestSummaries(): Promise<void>;
  }
}

export interface ApiRequestRecorder {
  // Function properties, not methods: app.ts hands both to Fastify detached from the recorder.
  /**
   * A Fastify onResponse hook, synchronous (on every request): the response has been sent; a
   * failure's event is written in the background, and `flush` waits for it.
   */
  onResponse: (request: FastifyRequest, reply: FastifyReply, done: () => void) => void;
  /** Writes one `api.requests_summarized` event per tenant with traffic since the last flush. */
  flush: () => Promise<void>;
}

export function apiRequestRecorder(deps: RecorderDeps): ApiRequestRecorder {
  const counts = new ApiRequestSummaryAccumulator(deps.clock.now());
  // Failure events still being written: a flush (and so a shutdown) waits for them.
  const pending = new Set<Promise<void>>();

  const writeSummary = (s: TenantSummary) =>
    recordAudit(
      deps.db,
      deps,
      {
        workspaceId: s.workspaceId,
        environment: s.environment,
        actor: { type: 'SYSTEM', id: 'api-request-summary' },
        correlationId: deps.ids.next('request'),
        source: 'system',
      },
      {
        eventType: 'api.requests_summarized',
        severity: 'INFO',
        targetType: null,
        payload: {
          windowStart: new Date(s.windowStart).toISOString(),
          windowEnd: new Date(s.windowEnd).toISOString(),
          node: NODE_ID,
          total: s.total,
          routes: s.routes,
        },
      },
    );

  const writeFailure = async (request: FastifyRequest, route: string, status: number) => {
    const origin: EventOrigin = request.credential
      ? { ...request.ctx, correlationId: request.correlationId ?? request.id }
      : {
          workspaceId: null,
          environment: null,
          actor: { type: 'ANONYMOUS', id: request.ip },
          correlationId: request.correlationId ?? request.id,
          source: 'api',
        };
    await recordAudit(deps.db, deps, origin, {
      eventType: 'api.request_failed',
      severity: 'ERROR',
      payload: { method: request.method, route, status, requestId: request.id },
    });
  };

  return {
    onResponse(request, reply, done) {
      const route = request.routeOptions.url ?? '(unmatched)';
      const status = reply.statusCode;
      // Unauthenticated traffic has no tenant to charge it to: webhooks have their ingestion log,
      // failed authentications their auth.failed event.
      if (request.credential) {
        counts.add({
          workspaceId: request.ctx.workspaceId,
          environment: request.ctx.environment,
          route: `${request.method} ${route}`,
          status,
          elapsedMs: reply.elapsedTime,
        });
      }
      if (isServerError(status)) {
        const write = writeFailure(request, route, status)
          .catch((err) => deps.log.error({ err }, 'recording a failed request failed'))
          .finally(() => pending.delete(write));
        pending.add(write);
      }
      done();
    },

    async flush() {
      await Promise.all(pending);
      // Drained before the writes: requests finishing meanwhile go to the next window.
      for (const summary of counts.drain(deps.clock.now())) {
        try {
          await writeSummary(summary);
        } catch (err) {
          // Losing a minute of counts is acceptable; failing the caller over it is not.
          deps.log.error({ err, workspaceId: summary.workspaceId }, 'writing the API request summary failed');
        }
      }
    },
  };
}

/**
 * Flushes the recorder every `intervalMs` without keeping the process alive. The returned stop
 * function flushes what is left, so a clean shutdown loses no counts (a crash loses at most one window).
 */
export function scheduleApiRequestSummaries(recorder: ApiRequestRecorder, intervalMs = SUMMARY_INTERVAL_MS): () => Promise<void> {
  const timer = setInterval(() => void recorder.flush(), intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await recorder.flush();
  };
}
