import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import { Type } from '@sinclair/typebox';
import { idempotent } from '../idempotency/idempotent.js';
import { AdvanceTestClockBody, CreateTestClockBody, presentTestClock, TestClockSchema, type AdvanceProgress, type TestClock } from './test-clock.js';
import { createTestClock } from './create-test-clock.js';
import { findTestClock, listTestClocks } from './test-clock.repository.js';

/**
 * What advancing a clock does beyond moving it: the billing work up to its new time, which the
 * billing module implements (compose.ts passes it in; this module sits below billing).
 */
export interface TestClockBilling {
  /** Moves the clock to `to` and runs the billing work due by then; resolves once it is ready. */
  advance(deps: Deps, ctx: OperationContext, clock: TestClock, to: number): Promise<TestClock>;
  /** The progress of an advance running on this node, or null. */
  progress(clockId: string): AdvanceProgress | null;
}

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = ['Test clocks'];
/** How far one advance may move a clock: two years of monthly renewals is 24 invoices a subscription. */
const MAX_ADVANCE_MS = 2 * 366 * 86_400_000;

export async function testClockRoutes(app: App, deps: Deps, billing: TestClockBilling): Promise<void> {
  const present = (c: TestClock) => presentTestClock(c, c.status === 'advancing' ? billing.progress(c.id) : null);

  app.post('/api/v1/test_clocks', {
    config: admin,
    schema: {
      operationId: 'createTestClock',
      summary: 'Create a test clock',
      description:
        'Test environment only. Customers created with its id live in its time: their subscriptions start, renew, end trials and finalize invoices as the clock is advanced.',
      tags,
      security: bearerSecurity,
      headers: IdempotencyHeaders,
      body: CreateTestClockBody,
      response: { 200: TestClockSchema, ...errors(403, 422) },
    },
    handler: (req, reply) => idempotent(deps, req, reply, async (tx) => present(await createTestClock(tx, req.ctx, req.body))),
  });

  app.get('/api/v1/test_clocks', {
    config: admin,
    schema: {
      operationId: 'listTestClocks',
      summary: 'List test clocks, newest first',
      description: 'Test clocks of the test environment, newest first, with cursor pagination.',
      tags,
      security: bearerSecurity,
      querystring: Type.Object({ ...ListQuery }, { additionalProperties: false }),
      response: { 200: ListOf(TestClockSchema), ...errors(403) },
    },
    handler: async (req) => {
      const page = await listTestClocks(deps.db, req.ctx, req.query);
      return { object: 'list' as const, data: page.items.map(present), hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/test_clocks/:id', {
    config: admin,
    schema: {
      operationId: 'retrieveTestClock',
      summary: 'Retrieve a test clock',
      description: 'One test clock by its id (clock_…) with its frozen time and status.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: TestClockSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const c = await findTestClock(deps.db, req.ctx, req.params.id);
      if (!c) throw notFound('test clock', req.params.id);
      return present(c);
    },
  });

  app.post('/api/v1/test_clocks/:id/advance', {
    config: admin,
    schema: {
      operationId: 'advanceTestClock',
      summary: 'Advance a test clock',
      description:
        'Moves the clock forward and runs, in order, everything due up to the new time for the subscriptions of its customers: renewals and their invoices (three periods passed give three invoices), trial ends, cancellations at period end, scheduled changes, and the finalization of drafts whose grace period has passed. Answers when the work is done (status ready); meanwhile GET shows status advancing and its progress. Advancing again to the same time does nothing twice.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      body: AdvanceTestClockBody,
      response: { 200: TestClockSchema, ...errors(403, 404, 409) },
    },
    handler: async (req) => {
      const c = await findTestClock(deps.db, req.ctx, req.params.id);
      if (!c) throw notFound('test clock', req.params.id);
      const to = Date.parse(req.body.frozenTime);
      if (to < c.frozenTime) {
        throw new AppError('VALIDATION_FAILED', `A test clock only moves forward: it is at ${new Date(c.frozenTime).toISOString()}.`, {
          field: 'body.frozenTime',
        });
      }
      if (to - c.frozenTime > MAX_ADVANCE_MS) {
        throw new AppError('VALIDATION_FAILED', 'Advance a test clock by at most two years at a time.', { field: 'body.frozenTime' });
      }
      return present(await billing.advance(deps, req.ctx, c, to));
    },
  });
}
