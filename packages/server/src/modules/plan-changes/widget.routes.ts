import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { errors, IdempotencyHeaders, ListOf } from '../../http/schemas.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { idempotent } from '../idempotency/idempotent.js';
import type { BoundCredentials } from '../subscriptions/bound-credentials.js';
import type { SubscriptionBilling } from '../subscriptions/subscription-billing.js';
import { findSubscription } from '../subscriptions/subscription.repository.js';
import { widgetSessionOf } from '../widget-sessions/widget-session-of.js';
import { listChangeCandidates, presentCandidate } from './change-candidates.js';
import { cancelPlan, changePlan, settleChangePayment, withdrawChange, type ChangeResult } from './change-plan.js';
import {
  CancelBody,
  ChangeBody,
  ChangeCandidateSchema,
  ChangePreviewSchema,
  PreviewChangeBody,
  WidgetChangeResultSchema,
  WidgetSubscriptionSchema,
} from './plan-change.js';
import { RequiredIdempotencyHeaders, requireIdempotencyKey } from './plan-change.routes.js';
import { previewChange } from './preview-change.js';
import { presentWidgetSubscription } from './widget-subscription.js';
import { widgetConfig, WidgetConfigSchema } from './widget-config.js';
import { acceptOfferFor, retentionOfferView } from '../retention-offers/retention-offer-calls.js';
import {
  AcceptRetentionOfferBody,
  CancelReasonSchema,
  OfferNotAvailableSchema,
  RetentionOfferAcceptanceSchema,
  RetentionOfferViewSchema,
} from '../retention-offers/retention-offer.js';
import { Type } from '@sinclair/typebox';

const session = { auth: { kind: 'widget_session' } } as const;
const security = [{ widgetSession: [] }];
const tags = ['Widget'];

/**
 * The embeddable upgrade/cancel widget's backend, under /v1/widget: the same operations as the
 * operator's plan-change routes, on the one subscription the widget session names, stamped with
 * channel EMBED (the spec's cancel_channel), answering with what a buyer may see.
 */
export async function widgetRoutes(app: App, deps: Deps, bound: BoundCredentials, billing: SubscriptionBilling): Promise<void> {
  const subscriptionOf = async (ctx: OperationContext, id: string, d: Deps = deps) => {
    const sub = await findSubscription(d.db, ctx, id);
    if (!sub) throw notFound('subscription', id);
    return sub;
  };
  const forWidget = async (d: Deps, ctx: OperationContext, r: ChangeResult) => ({
    ...r,
    subscription: await presentWidgetSubscription(d, ctx, await subscriptionOf(ctx, r.subscriptionId, d)),
  });

  app.get('/v1/widget/subscription', {
    config: session,
    schema: {
      operationId: 'retrieveWidgetSubscription',
      summary: "The widget session's subscription",
      description: 'Status, offering, period end and what waits for it: what step 1 shows. Never the seller’s metadata, limits or budgets.',
      tags,
      security,
      response: { 200: WidgetSubscriptionSchema, ...errors(401, 403, 404) },
    },
    handler: async (req) => presentWidgetSubscription(deps, req.ctx, await subscriptionOf(req.ctx, widgetSessionOf(req).subscriptionId)),
  });

  app.get('/v1/widget/config', {
    config: session,
    schema: {
      operationId: 'retrieveWidgetConfig',
      summary: 'The published pricing of the current offering and the change candidates',
      description:
        "Step 1: the offerings and rate plans as published, in @tollgate/pricing's types (prices as decimal text), so the widget words every price with the same display module as the hosted pricing page.",
      tags,
      security,
      response: { 200: WidgetConfigSchema, ...errors(401, 403, 404) },
    },
    handler: async (req) => widgetConfig(deps, req.ctx, await subscriptionOf(req.ctx, widgetSessionOf(req).subscriptionId)),
  });

  app.get('/v1/widget/change-candidates', {
    config: session,
    schema: {
      operationId: 'listWidgetChangeCandidates',
      summary: 'The offerings the subscription can change to',
      description:
        'Step 1: each published offering of the same product and currency, labelled UPGRADE, DOWNGRADE or LATERAL, with its price as the pricing page words it.',
      tags,
      security,
      response: { 200: ListOf(ChangeCandidateSchema), ...errors(401, 403, 404) },
    },
    handler: async (req) => {
      const sub = await subscriptionOf(req.ctx, widgetSessionOf(req).subscriptionId);
      return { object: 'list' as const, data: (await listChangeCandidates(deps, req.ctx, sub)).map(presentCandidate), hasMore: false };
    },
  });

  app.post('/v1/widget/preview-change', {
    config: session,
    schema: {
      operationId: 'previewWidgetChange',
      summary: 'Preview a change or cancellation',
      description:
        'Step 2, again whenever the apply-at choice changes: credit, debit, net charge today, the next renewal and a plain summary, exactly what confirming issues. A cancellation now shows no refund figure.',
      tags,
      security,
      body: PreviewChangeBody,
      response: { 200: ChangePreviewSchema, ...errors(400, 401, 403, 404, 409) },
    },
    handler: (req) => previewChange(deps, req.ctx, widgetSessionOf(req).subscriptionId, req.body),
  });

  app.post('/v1/widget/upgrade', {
    config: session,
    schema: {
      operationId: 'upgradeWidgetSubscription',
      summary: 'Confirm a change (upgrade, downgrade or lateral)',
      description:
        'Step 3. Header Idempotency-Key required: a double click changes and charges once. Send the preview’s subscriptionVersion as expectedVersion: a subscription changed since gets 409 SUBSCRIPTION_CHANGED. The result names the invoice and the credit note by id and by the number printed on them (invoiceNumber, creditNoteNumber), which is what the buyer is shown.',
      tags,
      security,
      headers: RequiredIdempotencyHeaders,
      body: ChangeBody,
      response: { 200: WidgetChangeResultSchema, ...errors(400, 401, 403, 404, 409) },
    },
    handler: async (req, reply) => {
      requireIdempotencyKey(req);
      const id = widgetSessionOf(req).subscriptionId;
      const result = await idempotent(deps, req, reply, async (tx) => forWidget(tx, req.ctx, await changePlan(tx, req.ctx, id, req.body, 'EMBED')));
      // Pay first: charged after the change's commit (a replay answers as the first answer did, and never charges).
      if (reply.getHeader('idempotent-replayed') === 'true') return result;
      const paid = await settleChangePayment(deps, { bound }, req.ctx, result, req.body.returnUrl ?? null);
      return paid ? { ...result, ...paid.fields, subscription: await presentWidgetSubscription(deps, req.ctx, paid.subscription) } : result;
    },
  });

  app.post('/v1/widget/cancel', {
    config: session,
    schema: {
      operationId: 'cancelWidgetSubscription',
      summary: 'Confirm a cancellation',
      description:
        'Now (the unused time on a credit note, keys revoked at once) or at the period end (keys kept until then). Stamped cancel_channel EMBED. Header Idempotency-Key recommended. The result carries creditNoteNumber, and invoiceNumber once the last usage invoice is finalized (null while it is a draft).',
      tags,
      security,
      headers: IdempotencyHeaders,
      body: CancelBody,
      response: { 200: WidgetChangeResultSchema, ...errors(400, 401, 403, 404, 409) },
    },
    handler: (req, reply) => {
      const id = widgetSessionOf(req).subscriptionId;
      return idempotent(deps, req, reply, async (tx) => forWidget(tx, req.ctx, await cancelPlan(tx, req.ctx, id, req.body, 'EMBED', bound, billing)));
    },
  });

  app.post('/v1/widget/withdraw-change', {
    config: session,
    schema: {
      operationId: 'withdrawWidgetChange',
      summary: 'Withdraw the change or cancellation waiting for the period end',
      description:
        'The buyer takes back the change or cancellation waiting for the period end; the subscription goes on as it is. 409 when nothing is scheduled.',
      tags,
      security,
      response: { 200: WidgetSubscriptionSchema, ...errors(401, 403, 404, 409) },
    },
    handler: async (req) => presentWidgetSubscription(deps, req.ctx, await withdrawChange(deps, req.ctx, widgetSessionOf(req).subscriptionId, 'EMBED')),
  });

  app.get('/v1/widget/retention-offers', {
    config: session,
    schema: {
      operationId: 'retrieveWidgetRetentionOffer',
      summary: 'The retention offer for a cancel reason',
      description:
        'What the cancel step shows once the buyer picks a reason: a discount, a downgrade prompt (with the cheaper offering), a support hand-off, or nothing.',
      tags,
      security,
      querystring: Type.Object({ reason: CancelReasonSchema }, { additionalProperties: false }),
      response: { 200: RetentionOfferViewSchema, ...errors(400, 401, 403, 404, 409) },
    },
    handler: (req) => retentionOfferView(deps, req.ctx, widgetSessionOf(req).subscriptionId, req.query.reason),
  });

  app.post('/v1/widget/retention-offer', {
    config: session,
    schema: {
      operationId: 'acceptWidgetRetentionOffer',
      summary: 'Accept the retention offer instead of cancelling',
      description: 'Recorded once per subscription and reason (channel EMBED); a second accept returns the first. PAUSE_3_MONTHS is never available.',
      tags,
      security,
      body: AcceptRetentionOfferBody,
      response: { 200: RetentionOfferAcceptanceSchema, ...errors(400, 401, 403, 404, 409), 422: OfferNotAvailableSchema },
    },
    handler: (req) => acceptOfferFor(deps, req.ctx, widgetSessionOf(req).subscriptionId, req.body, 'EMBED'),
  });
}
