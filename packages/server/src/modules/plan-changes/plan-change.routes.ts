import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, ListOf } from '../../http/schemas.js';
import { idempotent } from '../idempotency/idempotent.js';
import type { BoundCredentials } from '../subscriptions/bound-credentials.js';
import type { SubscriptionBilling } from '../subscriptions/subscription-billing.js';
import { presentSubscription, SubscriptionSchema } from '../subscriptions/subscription.js';
import { findSubscription } from '../subscriptions/subscription.repository.js';
import { listChangeCandidates, presentCandidate } from './change-candidates.js';
import { cancelPlan, changePlan, settleChangePayment, withdrawChange } from './change-plan.js';
import { CancelBody, ChangeCandidateSchema, ChangePreviewSchema, ChangeResultSchema, OperatorChangeBody, PreviewChangeBody } from './plan-change.js';
import { previewChange } from './preview-change.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = ['Plan changes'];

export const RequiredIdempotencyHeaders = Type.Object({
  'idempotency-key': Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'Required: a retried or double-clicked change is carried out once (the same key and body within 24 hours return the first result).',
  }),
});

/** The spec's Idempotency-Key on a change: refused without one, naming the header. */
export function requireIdempotencyKey(req: FastifyRequest): void {
  if (typeof req.headers['idempotency-key'] !== 'string' || req.headers['idempotency-key'] === '') {
    throw new AppError('VALIDATION_FAILED', 'Send an Idempotency-Key header: a change is charged once however often it is sent.', {
      field: 'headers.idempotency-key',
    });
  }
}

/**
 * The operator API's plan changes, under the subscription: candidates, preview, change (now or at
 * the period end), cancel (with a reason), withdraw. The widget's equivalents (widget session,
 * channel EMBED) are in widget.routes.ts and call the same functions.
 */
export async function planChangeRoutes(app: App, deps: Deps, bound: BoundCredentials, billing: SubscriptionBilling): Promise<void> {
  app.get('/api/v1/subscriptions/:id/change-candidates', {
    config: admin,
    schema: {
      operationId: 'listSubscriptionChangeCandidates',
      summary: 'List the offerings a subscription can change to',
      description:
        "Every published offering of the same product and currency that bills by period, other than the current one, cheapest per month first, each labelled UPGRADE, DOWNGRADE or LATERAL by its entry price per month against the subscription's offering.",
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: ListOf(ChangeCandidateSchema), ...errors(403, 404) },
    },
    handler: async (req) => {
      const sub = await findSubscription(deps.db, req.ctx, req.params.id);
      if (!sub) throw notFound('subscription', req.params.id);
      return { object: 'list' as const, data: (await listChangeCandidates(deps, req.ctx, sub)).map(presentCandidate), hasMore: false };
    },
  });

  app.post('/api/v1/subscriptions/:id/preview-change', {
    config: admin,
    schema: {
      operationId: 'previewSubscriptionChange',
      summary: 'Preview a plan change or cancellation',
      description:
        'The proration a change would bill if confirmed now: credit, debit, net charge today, the usage so far billed with it, the invoice total, the next renewal, and a plain-language summary. The figures are exactly what the change issues. A cancellation now shows no refund figure (credit null); its credit note is in the result. Send subscriptionVersion back as expectedVersion.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      body: PreviewChangeBody,
      response: { 200: ChangePreviewSchema, ...errors(400, 403, 404, 409) },
    },
    handler: (req) => previewChange(deps, req.ctx, req.params.id, req.body),
  });

  app.post('/api/v1/subscriptions/:id/upgrade', {
    config: admin,
    schema: {
      operationId: 'upgradeSubscription',
      summary: 'Change the offering (upgrade, downgrade or lateral), now or at the period end',
      description:
        'IMMEDIATE (default): prorated by the second; a net charge is invoiced (finalized at once, invoiceId), a net credit is a credit note (creditNoteId) plus an invoice for the rest of the period and the usage so far; entitlements change at once. PERIOD_END: nothing billed now, status ACTIVE_PENDING_CHANGE, scheduledAt = the period end; the renewal applies it (POST …/withdraw-change withdraws it). Usage limits: the new offering’s rate plan defaults apply, with the usageLimits of this request as the subscription’s own (none when left out: the old ones never carry over). Requires Idempotency-Key.',
      tags,
      security: bearerSecurity,
      headers: RequiredIdempotencyHeaders,
      params: IdParams,
      body: OperatorChangeBody,
      response: { 200: ChangeResultSchema, ...errors(400, 403, 404, 409) },
    },
    handler: async (req, reply) => {
      requireIdempotencyKey(req);
      const result = await idempotent(deps, req, reply, (tx) => changePlan(tx, req.ctx, req.params.id, req.body, 'API'));
      // A change that pays first is charged after its commit; a replay answers as the first answer did, and never charges.
      if (reply.getHeader('idempotent-replayed') === 'true') return result;
      const paid = await settleChangePayment(deps, { bound }, req.ctx, result, req.body.returnUrl ?? null);
      return paid ? { ...result, ...paid.fields, subscription: presentSubscription(paid.subscription) } : result;
    },
  });

  app.post('/api/v1/subscriptions/:id/cancel', {
    config: admin,
    schema: {
      operationId: 'cancelSubscription',
      summary: 'Cancel a subscription, now or at the period end',
      description:
        'IMMEDIATE (default): the unused time of what was paid for the period is credited on a credit note, the usage so far is billed on a last invoice (a draft, finalized after the grace period), and every product key and client credential bound to it is revoked in the same transaction, on every node at once. PERIOD_END: status ACTIVE_PENDING_CHANGE and cancelAtPeriodEnd; the renewal cancels it at the period end and revokes the keys then. The body is optional: a reason (one of six), applyAt, expectedVersion, a comment. The subscription keeps how it was asked for in cancellationDetails (reason, cancel_channel API, comment, requestedAt). Answers with the change result, as POST …/upgrade and the widget do: creditNoteId and creditNoteAmount (IMMEDIATE, when anything paid is unused), invoiceId (the last usage invoice), effectiveAt, and the subscription after the cancellation under `subscription` (earlier releases answered with the bare subscription: its fields are now under `subscription`; status and offeringId are also at the top).',
      tags,
      security: bearerSecurity,
      headers: IdempotencyHeaders,
      params: IdParams,
      body: CancelBody,
      response: { 200: ChangeResultSchema, ...errors(400, 403, 404, 409) },
    },
    // The body is optional: none at all means cancel now, without a reason.
    preValidation: async (req) => {
      req.body ??= {};
    },
    handler: (req, reply) => idempotent(deps, req, reply, (tx) => cancelPlan(tx, req.ctx, req.params.id, req.body, 'API', bound, billing)),
  });

  app.post('/api/v1/subscriptions/:id/withdraw-change', {
    config: admin,
    schema: {
      operationId: 'withdrawSubscriptionChange',
      summary: 'Withdraw the change or cancellation scheduled for the period end',
      description: 'Removes the plan change or cancellation scheduled for the period end; the subscription goes on as it is. 409 when nothing is scheduled.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: SubscriptionSchema, ...errors(403, 404, 409) },
    },
    handler: async (req) => presentSubscription(await withdrawChange(deps, req.ctx, req.params.id, 'API')),
  });
}
