import { keepBodiesRaw } from '../../http/body-parsers.js';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { enforceRateLimit } from '../../http/rate-limit.js';
import { errors, publicSecurity } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import { AppError } from '../../lib/errors.js';
import { receiveStripeWebhook } from '../payments/receive-provider-webhook.js';
import { applyStripeEvent } from './apply-stripe-event.js';
import type { Collection } from './collect-invoice.js';

/**
 * POST /v1/payments/stripe/webhooks/{id}: Stripe's events for one connection, kept by the payments
 * module's inbox and applied here (billing sits above payments: applying moves invoices). No API key: the
 * signature on the raw bytes authenticates, so this scope keeps bodies as Buffers (no JSON
 * parser runs first). Failed attempts count against the sender's IP address.
 */
export async function stripeWebhookRoutes(app: App, deps: Deps, collection: Collection): Promise<void> {
  await app.register(async (scoped) => {
    const scope = scoped as unknown as App;
    keepBodiesRaw(scope);
    scope.post('/v1/payments/stripe/webhooks/:id', {
      config: { auth: { kind: 'none' }, rateLimited: false },
      schema: {
        operationId: 'receiveStripeWebhook',
        summary: 'Receive Stripe’s webhooks for a connection',
        description:
          'Give Stripe this URL (the connection’s webhookUrl, after your public address). The Stripe-Signature header is verified on the raw body with the connection’s signing secret before anything is parsed; a missing or wrong signature, one older than 5 minutes, or a connection without a signing secret gets 401 and stores nothing (audited as payment_provider.webhook_rejected). A verified event is kept once per event id and acknowledged with 200 once stored; a redelivery gets 200 with duplicate true.',
        tags: ['Payments'],
        security: publicSecurity,
        params: Type.Object({ id: Type.String({ maxLength: 100, description: 'pp_…: the connection.' }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ received: Type.Literal(true), duplicate: Type.Boolean() }), ...errors(404, 413) },
      },
      handler: async (req, reply) => {
        const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        try {
          const r = await receiveStripeWebhook(deps, req.params.id, {
            body,
            headers: req.headers,
            url: req.url,
            contentType: req.headers['content-type'] ?? null,
          });
          // Applied before the answer: a failure answers 503 and Stripe's redelivery applies the kept event.
          if (!r.applied) await applyStripeEvent(deps, collection, r.connection, r.event);
          return { received: true as const, duplicate: r.duplicate };
        } catch (err) {
          if (err instanceof AppError && (err.status === 401 || err.status === 404)) {
            await enforceRateLimit(deps, reply, `ip:${req.ip}`, deps.config.rateLimitPerMinute, 'IP address');
          }
          throw err;
        }
      },
    });
  });
}
