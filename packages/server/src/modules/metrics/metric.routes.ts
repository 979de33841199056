import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import { idempotent } from '../idempotency/idempotent.js';
import { CreateMetricBody, MetricSchema, presentMetric, UpdateMetricBody } from './metric.js';
import { findMetric, listMetrics } from './metric.repository.js';
import { createMetric } from './create-metric.js';
import { updateMetric } from './update-metric.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = ['Metrics'];

export async function metricRoutes(app: App, deps: Deps): Promise<void> {
  app.post('/api/v1/metrics', {
    config: admin,
    schema: {
      operationId: 'createMetric',
      summary: 'Create a billable metric',
      description:
        "A billable metric names a kind of usage (its events carry the metric's name) and its unit; rate plans price it. dimensionPaths says where in the events' metadata rating finds the execution status, tool and endpoint (default: the top-level keys of those names; a nested value by a dotted path such as call.tool), fixed once created.",
      tags,
      security: bearerSecurity,
      headers: IdempotencyHeaders,
      body: CreateMetricBody,
      response: { 200: MetricSchema, ...errors(403, 409, 422) },
    },
    handler: (req, reply) => idempotent(deps, req, reply, async (tx) => presentMetric(await createMetric(tx, req.ctx, req.body))),
  });

  app.get('/api/v1/metrics', {
    config: admin,
    schema: {
      operationId: 'listMetrics',
      summary: 'List billable metrics, newest first',
      description: "Billable metrics of the key's environment, newest first, with cursor pagination.",
      tags,
      security: bearerSecurity,
      querystring: Type.Object(
        { ...ListQuery, name: Type.Optional(Type.String({ maxLength: 100, description: 'Exact metric name.' })) },
        { additionalProperties: false },
      ),
      response: { 200: ListOf(MetricSchema), ...errors(403) },
    },
    handler: async (req) => {
      const page = await listMetrics(deps.db, req.ctx, req.query);
      return { object: 'list' as const, data: page.items.map(presentMetric), hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/metrics/:id', {
    config: admin,
    schema: {
      operationId: 'retrieveMetric',
      summary: 'Retrieve a billable metric',
      description: "One billable metric by its id, in the key's environment.",
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: MetricSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const p = await findMetric(deps.db, req.ctx, req.params.id);
      if (!p) throw notFound('metric', req.params.id);
      return presentMetric(p);
    },
  });

  app.patch('/api/v1/metrics/:id', {
    config: admin,
    schema: {
      operationId: 'updateMetric',
      summary: 'Update a billable metric',
      description:
        'displayName, description and unit can change; name is fixed because stored usage refers to it, and dimensionPaths because usage is summed by the values at those paths as it arrives (create another metric to read other paths).',
      tags,
      security: bearerSecurity,
      params: IdParams,
      body: UpdateMetricBody,
      response: { 200: MetricSchema, ...errors(403, 404) },
    },
    handler: async (req) => presentMetric(await updateMetric(deps, req.ctx, req.params.id, req.body)),
  });
}
