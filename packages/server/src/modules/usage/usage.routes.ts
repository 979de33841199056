import { Type } from '@sinclair/typebox';
import { admission } from '../../http/admission.js';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors } from '../../http/schemas.js';
import { ingestIdempotency } from '../idempotency/idempotent.js';
import { dryRunIngest } from './dry-run-ingest.js';
import { ingestBatchText, ingestUsage } from './ingest-usage.js';
import type { UsageWriter } from './usage-writer.js';
import { batchAt, eventsOf } from './batch-body.js';
import { IngestResultSchema, MAX_BATCH_EVENTS, UsageEventSchema } from './usage-event.js';
import { ListOf } from '../../http/schemas.js';
import { reportUsage, UsageQuery, UsageRowSchema } from './usage-report.js';
import { dailyUsage, DailyUsageQuery, UsageDaySchema } from './daily-usage.js';

const ingestScope = { auth: { kind: 'workspace', scope: 'ingest' } } as const;
const tags = ['Usage ingestion'];
// Events are checked by checkEventShape, which names each problem by index and code; the route
// schema only documents them.
const documentOnly = () => () => true;

const BatchBody = Type.Object({ events: Type.Array(UsageEventSchema, { minItems: 1, maxItems: MAX_BATCH_EVENTS }) }, { additionalProperties: false });
const IdempotencyHeader = Type.Object({
  'x-idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The same key and the same body within 24 hours return the first response and ingest nothing again; another body gets 422.',
    }),
  ),
});

const singleAt = () => 'body';

export async function usageRoutes(app: App, deps: Deps, writer: UsageWriter): Promise<void> {
  const ingestRoute = {
    ...admission(() => deps.config.ingestMaxInFlight, 'ingestion requests', deps.metrics.admission('ingestion'), {
      retryKey: (req) => (typeof req.headers['x-idempotency-key'] === 'string' ? req.headers['x-idempotency-key'] : undefined),
      now: () => deps.clock.now(),
    }),
    validatorCompiler: documentOnly,
  };

  // A writer that can take a batch as sent (the SQLite writer: its checker thread decodes, parses
  // and checks it) gets the body's bytes, undecoded, so a 200 KB batch costs this thread, which
  // answers entitlement checks and key verifications, only reading it. Elsewhere it is parsed here.
  const writeBatchText = writer.writeBatchText?.bind(writer);
  await app.register(async (scoped) => {
    const scope = scoped as unknown as App;
    if (writeBatchText) {
      scope.removeContentTypeParser('application/json');
      scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    }
    scope.post('/v1/ingest/batch', {
      config: ingestScope,
      bodyLimit: deps.config.ingestBodyLimitBytes,
      ...ingestRoute,
      schema: {
        operationId: 'ingestBatch',
        summary: 'Ingest a batch of 1 to 1,000 usage events',
        description:
          'All or nothing: if any event is rejected, the batch is refused with 400 and nothing is stored. errors names every problem of every rejected event, one entry each (`index`, `field` such as events[3].quantity or events[3].metadata.request.headers, a code and a message), in index then field order; at most 10 per event and 1,000 in all, and every rejected event keeps at least its first. A 200 is sent only after the events are committed and flushed to disk. The key decides the environment. Events with an eventId seen in the last 24 hours are skipped as duplicates. The batch counts as one request against the rate limit. occurredAt decides the billing period (the UTC calendar month it falls in); events up to 35 days old are accepted. metadata is any JSON object within documented bounds (see UsageEvent.metadata).',
        tags,
        security: bearerSecurity,
        headers: IdempotencyHeader,
        body: BatchBody,
        response: { 200: IngestResultSchema, ...errors(403, 413, 422, 503) },
      },
      handler: async (req) => {
        if (!writeBatchText)
          return ingestUsage(deps, writer, req.ctx, eventsOf(req.body), { source: 'api', enforceMaxAge: true, at: batchAt }, ingestIdempotency(req));
        // No body at all (and so no Content-Type to parse by) reaches here as undefined: as empty
        // bytes it gets the same 400 as an empty JSON body, not a 500 from the checker thread.
        const body = req.body instanceof Uint8Array ? req.body : new Uint8Array(0);
        return ingestBatchText(deps, writeBatchText, req.ctx, body, ingestIdempotency(req, body));
      },
    });
  });

  app.post('/v1/ingest', {
    config: ingestScope,
    ...ingestRoute,
    schema: {
      operationId: 'ingestEvent',
      summary: 'Ingest one usage event',
      description: 'The same rules as the batch endpoint for one event; a rejection names the field as body.<field>.',
      tags,
      security: bearerSecurity,
      headers: IdempotencyHeader,
      body: UsageEventSchema,
      response: { 200: IngestResultSchema, ...errors(403, 422, 503) },
    },
    handler: async (req) => ingestUsage(deps, writer, req.ctx, [req.body], { source: 'api', enforceMaxAge: true, at: singleAt }, ingestIdempotency(req)),
  });

  app.post('/v1/ingest/test', {
    config: ingestScope,
    bodyLimit: deps.config.ingestBodyLimitBytes,
    ...ingestRoute,
    schema: {
      operationId: 'testIngestion',
      summary: 'Connectivity check: what a batch would do, storing nothing',
      description:
        'Non-billable, whatever the key (test or live): checks the body exactly like POST /v1/ingest/batch and answers 200 with what would have happened (accepted, duplicates, every problem of each rejected event, as a refused batch lists them) and the environment the key belongs to. Nothing is stored and nothing is counted.',
      tags,
      security: bearerSecurity,
      body: BatchBody,
      response: {
        200: Type.Object({
          object: Type.Literal('ingest_test_result'),
          environment: Type.Union([Type.Literal('test'), Type.Literal('live')]),
          sandbox: Type.Literal(true, { description: 'Always true: nothing was stored or billed.' }),
          wouldAccept: Type.Boolean({ description: 'Whether POST /v1/ingest/batch would accept this body.' }),
          accepted: Type.Integer({ description: 'Events that would be stored.' }),
          duplicates: Type.Integer({ description: 'Events that would be skipped: their eventId was seen in the last 24 hours or earlier in the body.' }),
          rejected: IngestResultSchema.properties.rejected,
        }),
        ...errors(403, 413, 503),
      },
    },
    handler: async (req) => ({
      object: 'ingest_test_result' as const,
      environment: req.ctx.environment,
      sandbox: true as const,
      ...(await dryRunIngest(deps, req.ctx, eventsOf(req.body))),
    }),
  });

  app.get('/api/v1/usage', {
    config: { auth: { kind: 'workspace', scope: 'admin' } },
    schema: {
      operationId: 'retrieveUsage',
      summary: 'Usage per customer, metric and month (sum and count)',
      description:
        'From the per-month totals that ingestion keeps up to date; with groupBy, split by the value at a dotted metadata path (request.method), and with filterBy and filterValue, only the events whose value at a path is filterValue: both read from the events of the months on the page through an index by workspace and time (a page costs the events of the workspace in those months, whatever other workspaces hold). Sums are exact decimals. Rows are ordered by month, customer, metric and group value (null first); page with startingAfter.',
      tags: ['Usage'],
      security: bearerSecurity,
      querystring: UsageQuery,
      response: { 200: ListOf(UsageRowSchema), ...errors(403, 404) },
    },
    handler: async (req) => {
      const page = await reportUsage(deps, req.ctx, req.query);
      return { object: 'list' as const, data: page.items, hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/usage/daily', {
    config: { auth: { kind: 'workspace', scope: 'admin' } },
    schema: {
      operationId: 'retrieveDailyUsage',
      summary: 'Usage per UTC day and metric (sum and count)',
      description:
        'For charts: the sum and count of usage per UTC calendar day and metric, from `from` to `to` inclusive (at most 93 days), of one customer or of all. From the hourly totals that ingestion keeps up to date; days without usage have no row. Sums are exact decimals. One page, never cut: at most 93 rows per metric.',
      tags: ['Usage'],
      security: bearerSecurity,
      querystring: DailyUsageQuery,
      response: { 200: ListOf(UsageDaySchema), ...errors(403, 404) },
    },
    handler: async (req) => ({ object: 'list' as const, data: await dailyUsage(deps, req.ctx, req.query), hasMore: false }),
  });
}
