import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import { idempotent } from '../idempotency/idempotent.js';
import type { Page } from '../../db/pagination.js';
import { CreateRatePlanBody, presentRatePlan, RatePlanSchema, UpdateRatePlanBody } from './rate-plan.js';
import { findRatePlan, listRatePlans } from './rate-plan.repository.js';
import { createRatePlan } from './create-rate-plan.js';
import { updateRatePlan } from './update-rate-plan.js';
import { CreateOfferingBody, OfferingSchema, presentOffering, UpdateOfferingBody } from './offering.js';
import { findOffering, listOfferings } from './offering.repository.js';
import { createOffering } from './create-offering.js';
import { updateOffering } from './update-offering.js';
import { CreateStorefrontBody, presentStorefront, StorefrontSchema, UpdateStorefrontBody } from './storefront.js';
import { findStorefront, listStorefronts } from './storefront.repository.js';
import { createStorefront } from './create-storefront.js';
import { updateStorefront } from './update-storefront.js';
import { publishStorefront } from './publish-storefront.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const list = <T, P>(page: Page<T>, present: (x: T) => P) => ({ object: 'list' as const, data: page.items.map(present), hasMore: page.hasMore });

/** Operator API of the pricing catalog: rate plans, offerings, storefronts. Admin scope. */
export async function catalogRoutes(app: App, deps: Deps): Promise<void> {
  const ratePlans = { tags: ['Rate plans'], security: bearerSecurity };
  app.post('/api/v1/rate-plans', {
    config: admin,
    schema: {
      ...ratePlans,
      operationId: 'createRatePlan',
      summary: 'Create a rate plan',
      description:
        'Prices each billable unit with one of eight models. Fields a model does not use are rejected, or normalised where the published configuration fixes a value (rate "0" for tiered models, includedFree 0, tiers []). Every error names its field, e.g. body.metrics.0.tiers.1.tierStart.',
      headers: IdempotencyHeaders,
      body: CreateRatePlanBody,
      response: { 200: RatePlanSchema, ...errors(403, 422) },
    },
    handler: (req, reply) => idempotent(deps, req, reply, async (tx) => presentRatePlan(await createRatePlan(tx, req.ctx, req.body))),
  });
  app.get('/api/v1/rate-plans', {
    config: admin,
    schema: {
      ...ratePlans,
      operationId: 'listRatePlans',
      summary: 'List rate plans, newest first',
      description: "Rate plans of the key's environment, newest first, with cursor pagination.",
      querystring: Type.Object(ListQuery, { additionalProperties: false }),
      response: { 200: ListOf(RatePlanSchema), ...errors(403) },
    },
    handler: async (req) => list(await listRatePlans(deps.db, req.ctx, req.query), presentRatePlan),
  });
  app.get('/api/v1/rate-plans/:id', {
    config: admin,
    schema: {
      ...ratePlans,
      operationId: 'retrieveRatePlan',
      summary: 'Retrieve a rate plan',
      description: 'One rate plan by its id with its priced metrics.',
      params: IdParams,
      response: { 200: RatePlanSchema, ...errors(403, 404) },
    },
    handler: async (req) => presentRatePlan((await findRatePlan(deps.db, req.ctx, req.params.id)) ?? throwNotFound('rate plan', req.params.id)),
  });
  app.patch('/api/v1/rate-plans/:id', {
    config: admin,
    schema: {
      ...ratePlans,
      operationId: 'updateRatePlan',
      summary: 'Update a rate plan',
      description: 'name, metrics (replaced whole) and metadata; currency and billingPeriod are fixed. Published storefronts show the change at once.',
      params: IdParams,
      body: UpdateRatePlanBody,
      response: { 200: RatePlanSchema, ...errors(403, 404, 409) },
    },
    handler: async (req) => presentRatePlan(await updateRatePlan(deps, req.ctx, req.params.id, req.body)),
  });

  const offerings = { tags: ['Offerings'], security: bearerSecurity };
  app.post('/api/v1/offerings', {
    config: admin,
    schema: {
      ...offerings,
      operationId: 'createOffering',
      summary: 'Create an offering',
      description:
        "What a buyer subscribes to: a product, an entry price per billing period and rate plans in the offering's currency and period, with optional per-unit overrides of quota or rate.",
      headers: IdempotencyHeaders,
      body: CreateOfferingBody,
      response: { 200: OfferingSchema, ...errors(403, 422) },
    },
    handler: (req, reply) => idempotent(deps, req, reply, async (tx) => presentOffering(await createOffering(tx, req.ctx, req.body))),
  });
  app.get('/api/v1/offerings', {
    config: admin,
    schema: {
      ...offerings,
      operationId: 'listOfferings',
      summary: 'List offerings, newest first',
      description: "Offerings of the key's environment, newest first, with cursor pagination.",
      querystring: Type.Object(ListQuery, { additionalProperties: false }),
      response: { 200: ListOf(OfferingSchema), ...errors(403) },
    },
    handler: async (req) => list(await listOfferings(deps.db, req.ctx, req.query), presentOffering),
  });
  app.get('/api/v1/offerings/:id', {
    config: admin,
    schema: {
      ...offerings,
      operationId: 'retrieveOffering',
      summary: 'Retrieve an offering',
      description: 'One offering by its id with its entry price and rate plans.',
      params: IdParams,
      response: { 200: OfferingSchema, ...errors(403, 404) },
    },
    handler: async (req) => presentOffering((await findOffering(deps.db, req.ctx, req.params.id)) ?? throwNotFound('offering', req.params.id)),
  });
  app.patch('/api/v1/offerings/:id', {
    config: admin,
    schema: {
      ...offerings,
      operationId: 'updateOffering',
      summary: 'Update an offering',
      description: 'name, entryPrice, trialDays, ratePlanIds, overrides (replaced whole) and metadata; productId, currency and billingPeriod are fixed.',
      params: IdParams,
      body: UpdateOfferingBody,
      response: { 200: OfferingSchema, ...errors(403, 404, 409) },
    },
    handler: async (req) => presentOffering(await updateOffering(deps, req.ctx, req.params.id, req.body)),
  });

  const storefronts = { tags: ['Storefronts'], security: bearerSecurity };
  app.post('/api/v1/storefronts', {
    config: admin,
    schema: {
      ...storefronts,
      operationId: 'createStorefront',
      summary: 'Create a storefront',
      description: 'A draft list of offerings; storefront keys and the hosted page show it once published.',
      headers: IdempotencyHeaders,
      body: CreateStorefrontBody,
      response: { 200: StorefrontSchema, ...errors(403, 422) },
    },
    handler: (req, reply) => idempotent(deps, req, reply, async (tx) => presentStorefront(await createStorefront(tx, req.ctx, req.body))),
  });
  app.get('/api/v1/storefronts', {
    config: admin,
    schema: {
      ...storefronts,
      operationId: 'listStorefronts',
      summary: 'List storefronts, newest first',
      description: "Storefronts of the key's environment, newest first, with cursor pagination.",
      querystring: Type.Object(ListQuery, { additionalProperties: false }),
      response: { 200: ListOf(StorefrontSchema), ...errors(403) },
    },
    handler: async (req) => list(await listStorefronts(deps.db, req.ctx, req.query), presentStorefront),
  });
  app.get('/api/v1/storefronts/:id', {
    config: admin,
    schema: {
      ...storefronts,
      operationId: 'retrieveStorefront',
      summary: 'Retrieve a storefront',
      description: 'One storefront by its id: its draft and the version last published.',
      params: IdParams,
      response: { 200: StorefrontSchema, ...errors(403, 404) },
    },
    handler: async (req) => presentStorefront((await findStorefront(deps.db, req.ctx, req.params.id)) ?? throwNotFound('storefront', req.params.id)),
  });
  app.patch('/api/v1/storefronts/:id', {
    config: admin,
    schema: {
      ...storefronts,
      operationId: 'updateStorefront',
      summary: "Update a storefront's draft",
      description: 'Changes the draft only; buyers keep seeing the published version until POST /api/v1/storefronts/{id}/publish.',
      params: IdParams,
      body: UpdateStorefrontBody,
      response: { 200: StorefrontSchema, ...errors(403, 404) },
    },
    handler: async (req) => presentStorefront(await updateStorefront(deps, req.ctx, req.params.id, req.body)),
  });
  app.post('/api/v1/storefronts/:id/publish', {
    config: admin,
    schema: {
      ...storefronts,
      operationId: 'publishStorefront',
      summary: 'Publish a storefront',
      description: 'The draft becomes what storefront keys and the hosted page read; the published version increases, and with it the configuration etag.',
      params: IdParams,
      response: { 200: StorefrontSchema, ...errors(403, 404) },
    },
    handler: async (req) => presentStorefront(await publishStorefront(deps, req.ctx, req.params.id)),
  });
}

function throwNotFound(what: string, id: string): never {
  throw notFound(what, id);
}
