import { keepBodiesRaw } from '../../http/body-parsers.js';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { admission } from '../../http/admission.js';
import { enforceRateLimit } from '../../http/rate-limit.js';
import { ErrorEnvelope, errors, publicSecurity } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import { AppError } from '../../lib/errors.js';
import { loadDeliverySource, verificationBypassed } from './delivery-source.js';
import { processVerifiedWebhook, refuseWebhook, type VerifiedRequest } from './receive-webhook.js';
import type { WebhookWriter } from './write-webhook.js';
import { verifySignature } from '../../lib/webhook-signature.js';

const Accepted = Type.Object(
  {
    status: Type.Optional(
      Type.Union([Type.Literal('accepted'), Type.Literal('duplicate'), Type.Literal('discarded')], {
        description:
          'accepted: stored as a usage event. duplicate: the provider event id was seen within the dedup window; dropped. discarded: outside the event filter. (Absent only in the chat challenge answer.)',
      }),
    ),
    event_id: Type.Optional(Type.String()),
    metric_id: Type.Optional(Type.String()),
    quantity: Type.Optional(Type.Number()),
    tenant_id: Type.Optional(Type.String()),
    event_type: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    reason: Type.Optional(Type.String()),
    events: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: 'A JSON array body: the outcome of each element, in order.' })),
    challenge: Type.Optional(Type.String({ description: "chat provider: the Events API URL check's challenge, echoed." })),
  },
  { description: 'The accepted-webhook response (status, event_id, metric_id, quantity, tenant_id).' },
);

/**
 * POST /v1/ingest/webhook/{sourceId}: the only inbound route with no API key. The source id
 * decides the workspace and environment; the signature, checked on the raw bytes before anything
 * is parsed, authenticates. Bodies stay raw Buffers in this scope (no JSON parser runs first).
 */
export async function webhookRoutes(app: App, deps: Deps, writer: WebhookWriter): Promise<void> {
  await app.register(async (scoped) => {
    const scope = scoped as unknown as App;
    keepBodiesRaw(scope);
    scope.post('/v1/ingest/webhook/:sourceId', {
      config: { auth: { kind: 'none' }, rateLimited: false },
      ...admission(() => deps.config.webhookMaxInFlight, 'webhook requests', deps.metrics.admission('webhook')),
      schema: {
        operationId: 'receiveWebhook',
        summary: 'Receive a signed third-party webhook as usage',
        description: [
          "Point the provider at this URL. No API key: the signature (per the source's provider template) is verified on the raw body before it is parsed; a missing or invalid signature, or a source without a signing secret, gets 401, is logged and never processed.",
          "After verification: event types outside the source's filter get 200 (discarded); each event (a JSON array body holds several) is mapped with the source's JSONPath field mappings; tenant_id names the customer by externalId (or cus_ id); a provider event id seen within the dedup window (72 hours by default) gets 200 and is dropped.",
          'A verified event that cannot become usage gets 422 naming the mapping field (MAPPING_FAILED, UNKNOWN_CUSTOMER, TIMESTAMP_TOO_OLD beyond 90 days, TIMESTAMP_IN_FUTURE, INVALID_QUANTITY…). Every request is kept in the ingestion log (GET /api/v1/webhook-log) with its raw body for replay; X-Webhook-Log-Id names its entry.',
        ].join('\n\n'),
        tags: ['Webhook ingestion'],
        security: publicSecurity,
        params: Type.Object({ sourceId: Type.String({ maxLength: 100, description: 'wsrc_…' }) }),
        response: {
          200: Accepted,
          ...errors(404, 413, 503),
          422: Type.Object(
            { ...ErrorEnvelope.properties, events: Type.Optional(Accepted.properties.events) },
            {
              description:
                "Verified, but an event cannot become usage; errors name the mapping field (and, for a JSON array body, the index); events gives every element's outcome.",
            },
          ),
        },
      },
      handler: async (req, reply) => {
        const d = await loadDeliverySource(deps, req.params.sourceId);
        if (!d) {
          deps.metrics.webhookVerification('unknown', 'unknown_source').inc();
          await enforceRateLimit(deps, reply, `ip:${req.ip}`, deps.config.rateLimitPerMinute, 'IP address');
          throw new AppError('NOT_FOUND', `No webhook source '${req.params.sourceId}' exists (or it was deleted). Check the URL the provider posts to.`, {
            field: 'sourceId',
          });
        }
        const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const now = deps.clock.now();
        // Twilio signs the URL it posted to; behind a proxy only PUBLIC_URL knows it.
        const url = `${deps.config.publicUrl ?? `${req.protocol}://${req.headers.host ?? req.hostname}`}${req.url}`;
        const contentType = req.headers['content-type'] ?? null;
        const r: VerifiedRequest = {
          body,
          headers: req.headers,
          contentType,
          url,
          receivedAt: now,
          defaultOccurredAt: now,
          correlationId: req.correlationId,
          verification: 'passed',
          logId: deps.ids.next('webhookLogEntry'),
          replayOf: null,
        };
        reply.header('x-webhook-log-id', r.logId);
        if (verificationBypassed(deps)) {
          r.verification = 'skipped';
          deps.metrics.webhookVerification(d.source.provider, 'skipped').inc();
        } else {
          const v = verifySignature(d.scheme, d.secret, { body, headers: req.headers, url, contentType }, now);
          deps.metrics.webhookVerification(d.source.provider, v.ok ? 'passed' : 'failed').inc();
          if (!v.ok) {
            // Unverified traffic counts against the sender's address, never the workspace's limit.
            await enforceRateLimit(deps, reply, `ip:${req.ip}`, deps.config.rateLimitPerMinute, 'IP address');
            req.log.warn({ sourceId: d.source.id, reason: v.reason, logId: r.logId }, 'webhook rejected: signature');
            const answer = await refuseWebhook(
              deps,
              writer,
              d,
              { ...r, verification: 'failed' },
              { httpStatus: 401, code: v.reason, errorCode: 'WEBHOOK_SIGNATURE_INVALID', message: v.message },
            );
            return reply.code(answer.status as 200).send(answer.body);
          }
        }
        await enforceRateLimit(deps, reply, `ws:${d.source.workspaceId}`, d.rateLimitPerMinute ?? deps.config.rateLimitPerMinute, 'tenant');
        const answer = await processVerifiedWebhook(deps, writer, d, r);
        if (answer.status !== 200) req.log.info({ sourceId: d.source.id, status: answer.status, logId: r.logId }, 'webhook event rejected');
        return reply.code(answer.status as 200).send(answer.body);
      },
    });
  });
}
