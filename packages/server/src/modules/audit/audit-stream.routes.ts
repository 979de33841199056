import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { bearerSecurity, ErrorEnvelope } from '../../http/schemas.js';
import { SseStream } from '../../http/sse.js';
import type { App } from '../../http/types.js';
import { AppError, type ErrorCode } from '../../lib/errors.js';
import { parseCursor } from './audit-cursor.js';
import { STREAM_EVENT, type AuditFeed } from './audit-feed.js';
import { filterErrors } from './audit-filter.js';
import { AuditFiltersSchema } from './audit-search-preset.js';

/** The event name of a refusal sent inside the stream (not `error`: EventSource uses that name for connection errors). */
export const STREAM_ERROR_EVENT = 'stream_error';

const error = (description: string) => Type.Object(ErrorEnvelope.properties, { description });

/**
 * GET /api/v1/events/stream: the audit log live, as Server-Sent Events. Everything that can be
 * refused for good (credential, tenant, filters, resume cursor) is refused before the stream
 * opens, with a status; what is only "not now" (rate limit, connection caps) is answered inside
 * an open stream with a retry: field, because EventSource clients give up for good on a non-200.
 */
export async function auditStreamRoutes(app: App, deps: Deps, feed: AuditFeed): Promise<void> {
  app.addHook('preClose', async () => feed.close());

  app.get('/api/v1/events/stream', {
    config: { auth: { kind: 'workspace', scope: 'events:read' }, rateLimited: 'in_stream' },
    schema: {
      operationId: 'streamAuditEvents',
      summary: 'Stream audit events live (Server-Sent Events)',
      description: [
        'Send `Authorization: Bearer <key>`, `X-Tenant-Id: <your ws_… id>` and `Accept: text/event-stream`. The filters are those of GET /v1/events (combined with AND).',
        `Each event arrives as \`id: <cursor>\`, \`event: ${STREAM_EVENT}\` and \`data: <the audit event as JSON>\`, in commit order, once committed. The cursor is opaque and increases.`,
        'Resume with the `Last-Event-ID` header (EventSource clients send it on reconnect) or the `lastEventId` query parameter: the events after it that match arrive, none missed and none twice, also after a server restart or on another node. Without either, the stream starts with events committed from now on.',
        `The stream opens with \`retry: <ms>\`; a comment (\`: keep-alive\`) every ${Math.round(deps.config.auditStreamHeartbeatMs / 1000)} s keeps proxies from closing it.`,
        `A client that leaves more than ${deps.config.auditStreamBufferBytes} bytes unread is disconnected and resumes from its last id. Over the rate limit, or past the caps of ${deps.config.auditStreamMaxPerTenant} streams per workspace and ${deps.config.auditStreamMaxConnections} per server, the answer is still 200: the stream carries \`retry: <ms to wait>\` and one \`event: ${STREAM_ERROR_EVENT}\` whose data is the error envelope (code RATE_LIMITED or TOO_MANY_STREAMS), then closes, so clients reconnect later instead of giving up.`,
      ].join('\n\n'),
      tags: ['Audit events'],
      security: bearerSecurity,
      headers: Type.Object({
        'x-tenant-id': Type.Optional(Type.String({ maxLength: 100, description: "The workspace (ws_…): the key's own. Required." })),
        'last-event-id': Type.Optional(Type.String({ maxLength: 64, description: 'The id of the last event received: resume after it.' })),
      }),
      querystring: Type.Object(
        {
          ...AuditFiltersSchema.properties,
          lastEventId: Type.Optional(
            Type.String({ maxLength: 64, description: 'As the Last-Event-ID header, for clients that cannot set headers; the header wins.' }),
          ),
        },
        { additionalProperties: false },
      ),
      response: {
        200: {
          description: 'An event stream (text/event-stream) that stays open.',
          content: { 'text/event-stream': { schema: Type.String({ description: 'Server-Sent Events.' }) } },
        },
        400: error('A filter, X-Tenant-Id or the resume cursor is invalid; `field` names it.'),
        401: error('Missing, unknown, revoked or expired credential.'),
        403: error("The key lacks the 'events:read' scope."),
        404: error('X-Tenant-Id is not the workspace of the key.'),
        406: error('Accept does not allow text/event-stream.'),
      },
    },
    handler: async (req, reply) => {
      const tenantId = req.headers['x-tenant-id'];
      if (tenantId === undefined || tenantId === '') {
        throw new AppError('VALIDATION_FAILED', 'Send your workspace id (ws_…) in the X-Tenant-Id header.', { field: 'header.x-tenant-id' });
      }
      if (tenantId !== req.ctx.workspaceId) {
        throw new AppError('NOT_FOUND', `No tenant '${tenantId}' is readable with this key.`, { field: 'header.x-tenant-id' });
      }
      const accept = req.headers.accept;
      if (accept && !/text\/event-stream|\*\/\*|text\/\*/i.test(accept)) {
        throw new AppError('NOT_ACCEPTABLE', 'This endpoint answers with text/event-stream: send Accept: text/event-stream.', { field: 'header.accept' });
      }
      const { lastEventId, ...filters } = req.query;
      const filter = filterErrors(filters, 'query');
      const headerId = req.headers['last-event-id'];
      const resume =
        headerId !== undefined && headerId !== ''
          ? { text: headerId, field: 'header.last-event-id' }
          : lastEventId
            ? { text: lastEventId, field: 'query.lastEventId' }
            : null;
      const from = resume ? parseCursor(resume.text) : null;
      if (resume && !from) {
        throw new AppError('VALIDATION_FAILED', `'${resume.text}' is not an event id of this stream: send the id: field of the last event you received.`, {
          field: resume.field,
        });
      }

      reply.hijack();
      const headers: Record<string, string | number | string[]> = {};
      for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) headers[k] = v;
      const stream = new SseStream(reply.raw, {
        retryMs: deps.config.auditStreamRetryMs,
        heartbeatMs: deps.config.auditStreamHeartbeatMs,
        maxBufferedBytes: deps.config.auditStreamBufferBytes,
        headers,
      });
      stream.open();
      const refuse = (code: ErrorCode, message: string, retryMs: number) => {
        stream.send({ event: STREAM_ERROR_EVENT, retryMs, data: JSON.stringify({ success: false, errors: [{ code, message }] }) });
        stream.end('refused');
      };
      if (req.overRateLimit) return refuse('RATE_LIMITED', req.overRateLimit.message, req.overRateLimit.retryAfterSeconds * 1000);
      const full = feed.admit(req.ctx.workspaceId);
      // A full server or workspace frees up as streams end; wait ten retries before the next try.
      if (full) return refuse(full.code, full.message, deps.config.auditStreamRetryMs * 10);
      try {
        await feed.subscribe(req.ctx, filter, from, stream);
      } catch (err) {
        req.log.error({ err }, 'audit stream could not start; the client reconnects');
        stream.end('failed');
      }
    },
  });
}
