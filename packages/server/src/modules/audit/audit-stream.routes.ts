import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { bearerSecurity, ErrorEnvelope } from '../../http/schemas.js';
import { SseStream } from '../../http/sse.js';
import type { App } from '../../http/types.js';
import { AppError } from '../../lib/errors.js';
import { parseCursor } from './audit-cursor.js';
import { STREAM_EVENT, type AuditFeed } from './audit-feed.js';
import { filterErrors } from './audit-filter.js';
import { AuditFiltersSchema } from './audit-search-preset.js';

const error = (description: string) => Type.Object(ErrorEnvelope.properties, { description });

/**
 * GET /api/v1/events/stream: the audit log live, as Server-Sent Events. Every refusal is a status
 * before the stream opens: for good (credential, tenant, filters, resume cursor: 4xx) or "not
 * now" (the rate limit, the stream caps: 429 with Retry-After), so a client can tell which without
 * reading a stream first.
 */
export async function auditStreamRoutes(app: App, deps: Deps, feed: AuditFeed): Promise<void> {
  app.addHook('preClose', async () => feed.close());

  app.get('/api/v1/events/stream', {
    config: { auth: { kind: 'workspace', scope: 'events:read' } },
    schema: {
      operationId: 'streamAuditEvents',
      summary: 'Stream audit events live (Server-Sent Events)',
      description: [
        'Send `Authorization: Bearer <key>`, `X-Tenant-Id: <your ws_… id>` and `Accept: text/event-stream`. The filters are those of GET /v1/events (combined with AND).',
        `Each event arrives as \`id: <cursor>\`, \`event: ${STREAM_EVENT}\` and \`data: <the audit event as JSON>\`, in commit order, once committed. The cursor is opaque and increases.`,
        'Resume with the `Last-Event-ID` header (EventSource clients send it on reconnect) or the `lastEventId` query parameter: the events after it that match arrive, none missed and none twice, also after a server restart or on another node. Without either, the stream starts with events committed from now on.',
        `The stream opens with \`retry: <ms>\`; a comment (\`: keep-alive\`) every ${Math.round(deps.config.auditStreamHeartbeatMs / 1000)} s keeps proxies from closing it.`,
        `A client that leaves more than ${deps.config.auditStreamBufferBytes} bytes unread is disconnected and resumes from its last id. Opening a stream counts as one request against the rate limit: over it, the answer is 429 RATE_LIMITED with Retry-After before any stream opens; past the caps of ${deps.config.auditStreamMaxPerTenant} streams per workspace and ${deps.config.auditStreamMaxConnections} per server, 429 TOO_MANY_STREAMS with Retry-After. Wait that long and connect again (a browser's EventSource stops on a non-200, so a client that wants to keep trying reads the stream with fetch, as the console and \`tollgate events tail\` do).`,
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
        429: error('Over the rate limit (RATE_LIMITED) or the live stream caps (TOO_MANY_STREAMS): wait Retry-After seconds, then connect again.'),
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

      const full = feed.admit(req.ctx.workspaceId);
      if (full) {
        // A full server or workspace frees up as streams end: ten retries' wait before the next try.
        const retryAfter = Math.max(1, Math.ceil((deps.config.auditStreamRetryMs * 10) / 1000));
        throw new AppError(full.code, full.message, { headers: { 'retry-after': String(retryAfter) } });
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
      try {
        await feed.subscribe(req.ctx, filter, from, stream);
      } catch (err) {
        req.log.error({ err }, 'audit stream could not start; the client reconnects');
        stream.end('failed');
      }
    },
  });
}
