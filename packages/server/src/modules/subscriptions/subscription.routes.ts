import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import { idempotent } from '../idempotency/idempotent.js';
import { CreateSubscriptionBody, presentSubscription, SubscriptionSchema, subscriptionStatuses, UpdateSubscriptionBody } from './subscription.js';
import { updateSubscription } from './update-subscription.js';
import { findSubscription, listSubscriptions } from './subscription.repository.js';
import { createSubscription } from './create-subscription.js';
import type { SubscriptionBilling } from './subscription-billing.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = ['Subscriptions'];

/** Create, list, retrieve, update. Changes and cancellations: modules/plan-changes. */
export async function subscriptionRoutes(app: App, deps: Deps, billing: SubscriptionBilling): Promise<void> {
  app.post('/api/v1/subscriptions', {
    config: admin,
    schema: {
      operationId: 'createSubscription',
      summary: 'Subscribe a customer to a product',
      description:
        "Starts now (or at its customer's test clock time), ACTIVE. The first period is the trial when the offering has one, else a period of billingPeriod (MONTHLY unless given) that starts now (anniversary billing, the default) or ends on the next calendar boundary (periodAlignment calendar, prorated). With an entry price, the first invoice (the entry price, in advance) is issued as a draft at once.",
      tags,
      security: bearerSecurity,
      headers: IdempotencyHeaders,
      body: CreateSubscriptionBody,
      response: { 200: SubscriptionSchema, ...errors(403, 404, 422) },
    },
    handler: (req, reply) => idempotent(deps, req, reply, async (tx) => presentSubscription(await createSubscription(tx, req.ctx, req.body, billing))),
  });

  app.get('/api/v1/subscriptions', {
    config: admin,
    schema: {
      operationId: 'listSubscriptions',
      summary: 'List subscriptions, newest first',
      description: "Subscriptions of the key's environment, newest first, with cursor pagination; filter by customer, product or status.",
      tags,
      security: bearerSecurity,
      querystring: Type.Object(
        {
          ...ListQuery,
          customerId: Type.Optional(Type.String({ maxLength: 100 })),
          productId: Type.Optional(Type.String({ maxLength: 100 })),
          status: Type.Optional(Type.Union(subscriptionStatuses.map((s) => Type.Literal(s)))),
        },
        { additionalProperties: false },
      ),
      response: { 200: ListOf(SubscriptionSchema), ...errors(403) },
    },
    handler: async (req) => {
      const page = await listSubscriptions(deps.db, req.ctx, req.query);
      return { object: 'list' as const, data: page.items.map(presentSubscription), hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/subscriptions/:id', {
    config: admin,
    schema: {
      operationId: 'retrieveSubscription',
      summary: 'Retrieve a subscription',
      description: 'One subscription by its id (sub_…) with its limits, period and any change scheduled for the period end.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: SubscriptionSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const s = await findSubscription(deps.db, req.ctx, req.params.id);
      if (!s) throw notFound('subscription', req.params.id);
      return presentSubscription(s);
    },
  });

  app.patch('/api/v1/subscriptions/:id', {
    config: admin,
    schema: {
      operationId: 'updateSubscription',
      summary: 'Change a subscription’s limits, spend budget, unit prices or metadata',
      description:
        'Fields present replace the stored ones; the version increases. usageLimits and unitPrices must name existing metrics exactly. Until the pricing catalog lands, these are what GET /v1/entitlements/check decides with.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      body: UpdateSubscriptionBody,
      response: { 200: SubscriptionSchema, ...errors(403, 404, 409) },
    },
    handler: async (req) => presentSubscription(await updateSubscription(deps, req.ctx, req.params.id, req.body)),
  });
}
