import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import { idempotent } from '../idempotency/idempotent.js';
import { CreateSubscriptionBody, presentSubscription, SubscriptionSchema, subscriptionStatuses, UpdateSubscriptionBody } from './subscription.js';
import { EffectiveUsageLimitSchema, presentEffectiveUsageLimit, usageLimitsOf } from './usage-limits.js';
import { updateSubscription } from './update-subscription.js';
import { findSubscription, listSubscriptions } from './subscription.repository.js';
import { createSubscription } from './create-subscription.js';
import type { SubscriptionBilling } from './subscription-billing.js';
import { customerIdFilter } from '../customers/customer-refs.js';

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
      description:
        "Subscriptions of the key's environment, newest first, with cursor pagination; filter by customer (its cus_ id or your externalId), product or status.",
      tags,
      security: bearerSecurity,
      querystring: Type.Object(
        {
          ...ListQuery,
          customerId: Type.Optional(
            Type.String({ maxLength: 255, description: 'The customer: its cus_ id or the externalId you gave it, as in usage events (an id match wins).' }),
          ),
          productId: Type.Optional(Type.String({ maxLength: 100 })),
          status: Type.Optional(Type.Union(subscriptionStatuses.map((s) => Type.Literal(s)))),
        },
        { additionalProperties: false },
      ),
      response: { 200: ListOf(SubscriptionSchema), ...errors(403) },
    },
    handler: async (req) => {
      const customerId = await customerIdFilter(deps.db, req.ctx, req.query.customerId);
      const page = await listSubscriptions(deps.db, req.ctx, { ...req.query, customerId });
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

  app.get('/api/v1/subscriptions/:id/usage-limits', {
    config: admin,
    schema: {
      operationId: 'listSubscriptionUsageLimits',
      summary: 'List the usage limits that apply to a subscription',
      description:
        'Per metric, the subscription’s own usageLimits entry if it has one, else the default of the offering’s rate plan that prices the metric (as the plan is now: a change to a plan’s limits applies at once), each with its source (SUBSCRIPTION, or RATE_PLAN and ratePlanId). An entry with limit null removes its metric’s default and lists nothing. What GET /v1/entitlements/check enforces; its answer lists them with the period’s usage.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: ListOf(EffectiveUsageLimitSchema), ...errors(403, 404) },
    },
    handler: async (req) => {
      const s = await findSubscription(deps.db, req.ctx, req.params.id);
      if (!s) throw notFound('subscription', req.params.id);
      return { object: 'list' as const, data: (await usageLimitsOf(deps, req.ctx, s)).map(presentEffectiveUsageLimit), hasMore: false };
    },
  });

  app.patch('/api/v1/subscriptions/:id', {
    config: admin,
    schema: {
      operationId: 'updateSubscription',
      summary: 'Change a subscription’s limits, spend budget, unit prices or metadata',
      description:
        'Fields present replace the stored ones; the version increases. usageLimits and unitPrices must name existing metrics exactly. usageLimits (replaced whole) override the offering’s rate plan defaults metric by metric: {"metricName": "api_calls", "limit": null} removes that metric’s default, [] goes back to the defaults. What applies: GET …/subscriptions/{id}/usage-limits; GET /v1/entitlements/check enforces it and spendBudget.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      body: UpdateSubscriptionBody,
      response: { 200: SubscriptionSchema, ...errors(403, 404, 409) },
    },
    handler: async (req) => presentSubscription(await updateSubscription(deps, req.ctx, req.params.id, req.body)),
  });
}
