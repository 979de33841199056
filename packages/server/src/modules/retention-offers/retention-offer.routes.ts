import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, ErrorEnvelope, errors, IdParams } from '../../http/schemas.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Subscription } from '../subscriptions/subscription.js';
import { findSubscription } from '../subscriptions/subscription.repository.js';
import { acceptRetentionOffer } from './accept-retention-offer.js';
import { downgradeCandidateFor, offerForSubscription } from './offer-for-subscription.js';
import { findAcceptance } from './retention-offer-acceptance.repository.js';
import type { OperationContext } from '../../lib/operation-context.js';
import {
  AcceptRetentionOfferBody,
  type AcceptRetentionOfferInput,
  type AcceptanceChannel,
  type CancelReason,
  CancelReasonSchema,
  presentAcceptance,
  RetentionOfferAcceptanceSchema,
  RetentionOfferViewSchema,
} from './retention-offer.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = ['Subscriptions'];
export const notAvailable = Type.Object(ErrorEnvelope.properties, {
  description: 'OFFER_NOT_AVAILABLE: PAUSE_3_MONTHS, another offer type than the reason’s, a reason without an offer, or a discount already running.',
});

/** The subscription, live: offers are for a customer who has not cancelled yet. */
async function liveSubscription(deps: Deps, tenant: Tenant, id: string): Promise<Subscription> {
  const sub = await findSubscription(deps.db, tenant, id);
  if (!sub) throw notFound('subscription', id);
  if (sub.status === 'CANCELLED') throw new AppError('SUBSCRIPTION_NOT_ACTIVE', `Subscription '${id}' is CANCELLED; it has no retention offer.`);
  return sub;
}

/** The offer for a reason (accepted already or not), as GET …/retention-offers answers. */
export async function retentionOfferView(deps: Deps, tenant: Tenant, subscriptionId: string, reason: CancelReason) {
  const sub = await liveSubscription(deps, tenant, subscriptionId);
  const accepted = await findAcceptance(deps.db, tenant, sub.id, reason);
  const offer = accepted?.offer ?? (await offerForSubscription(deps, tenant, sub, reason));
  return { object: 'retention_offer' as const, subscriptionId: sub.id, reason, offer, acceptanceId: accepted?.id ?? null };
}

/** Accepts the offer of a reason for the subscription, once (POST …/retention-offer). */
export async function acceptOfferFor(deps: Deps, ctx: OperationContext, subscriptionId: string, body: AcceptRetentionOfferInput, channel: AcceptanceChannel) {
  const sub = await findSubscription(deps.db, ctx, subscriptionId);
  if (!sub) throw notFound('subscription', subscriptionId);
  const downgradeCandidate = await downgradeCandidateFor(deps, ctx, sub, body.reason);
  const { acceptance } = await acceptRetentionOffer(deps, ctx, sub.id, { ...body, channel, downgradeCandidate });
  return presentAcceptance(acceptance);
}

/** The operator's retention-offer calls; the widget's equivalents live with the plan changes. */
export async function retentionOfferRoutes(app: App, deps: Deps): Promise<void> {
  app.get('/api/v1/subscriptions/:id/retention-offers', {
    config: admin,
    schema: {
      summary: 'The retention offer for a cancel reason',
      description:
        'What a customer cancelling for `reason` is offered, without accepting it: TOO_EXPENSIVE and SWITCHED_SERVICE 20% off the next 3 renewal invoices, UNUSED the cheapest cheaper published offering of the product, MISSING_FEATURES and TECHNICAL_ISSUES the billing setting supportUrl, OTHER nothing (NONE, also when there is no cheaper offering or no supportUrl). acceptanceId names the acceptance when this reason’s offer was accepted already.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      querystring: Type.Object({ reason: CancelReasonSchema }, { additionalProperties: false }),
      response: { 200: RetentionOfferViewSchema, ...errors(403, 404, 409) },
    },
    handler: (req) => retentionOfferView(deps, req.ctx, req.params.id, req.query.reason),
  });

  app.post('/api/v1/subscriptions/:id/retention-offer', {
    config: admin,
    schema: {
      summary: 'Accept the retention offer of a cancel reason',
      description:
        'Records the acceptance once per subscription and reason; accepting the same reason again returns the first record and changes nothing. DISCOUNT_20_PERCENT sets the subscription’s discount: each of its next 3 renewal invoices carries a discount line of -20% of its other lines (see the upcoming invoice). DOWNGRADE_PROMPT and SUPPORT_HANDOFF are recorded; the downgrade itself is a plan change. offerType, when sent, must be the reason’s offer; PAUSE_3_MONTHS is never available. Audited as retention_offer.accepted.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      body: AcceptRetentionOfferBody,
      response: { 200: RetentionOfferAcceptanceSchema, ...errors(403, 404, 409), 422: notAvailable },
    },
    handler: (req) => acceptOfferFor(deps, req.ctx, req.params.id, req.body, 'API'),
  });
}
