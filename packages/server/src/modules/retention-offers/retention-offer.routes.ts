import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors, IdParams } from '../../http/schemas.js';
import { acceptOfferFor, retentionOfferView } from './retention-offer-calls.js';
import {
  AcceptRetentionOfferBody,
  CancelReasonSchema,
  OfferNotAvailableSchema,
  RetentionOfferAcceptanceSchema,
  RetentionOfferViewSchema,
} from './retention-offer.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = ['Subscriptions'];

/** The operator's retention-offer calls; the widget's equivalents live with the plan changes. */
export async function retentionOfferRoutes(app: App, deps: Deps): Promise<void> {
  app.get('/api/v1/subscriptions/:id/retention-offers', {
    config: admin,
    schema: {
      operationId: 'retrieveRetentionOffer',
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
      operationId: 'acceptRetentionOffer',
      summary: 'Accept the retention offer of a cancel reason',
      description:
        'Records the acceptance once per subscription and reason; accepting the same reason again returns the first record and changes nothing. DISCOUNT_20_PERCENT sets the subscription’s discount: each of its next 3 renewal invoices carries a discount line of -20% of its other lines (see the upcoming invoice). DOWNGRADE_PROMPT and SUPPORT_HANDOFF are recorded; the downgrade itself is a plan change. offerType, when sent, must be the reason’s offer; PAUSE_3_MONTHS is never available. Audited as retention_offer.accepted.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      body: AcceptRetentionOfferBody,
      response: { 200: RetentionOfferAcceptanceSchema, ...errors(403, 404, 409), 422: OfferNotAvailableSchema },
    },
    handler: (req) => acceptOfferFor(deps, req.ctx, req.params.id, req.body, 'API'),
  });
}
