import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors, IdParams } from '../../http/schemas.js';
import { findSubscription } from '../subscriptions/subscription.repository.js';
import { rateSubscriptionPeriod } from './rate-subscription-period.js';
import { timeOf } from '../test-clocks/clock-time.js';
import { presentUpcomingInvoice, UpcomingInvoiceSchema } from './upcoming-invoice.js';

export async function billingRoutes(app: App, deps: Deps): Promise<void> {
  app.get('/api/v1/subscriptions/:id/upcoming-invoice', {
    config: { auth: { kind: 'workspace', scope: 'admin' } },
    schema: {
      operationId: 'retrieveUpcomingInvoice',
      summary: 'Preview the upcoming invoice',
      description:
        "What the renewal at the end of the current period will invoice, as of now: the entry price of the next period (in advance; none when the subscription ends at this period end), then the current period's usage so far, rated line by line with the period's price version (or its unitPrices), with minimum fees. Each line is rounded once, half up, to the currency's minor unit; subtotal and total are sums of lines.",
      tags: ['Subscriptions'],
      security: bearerSecurity,
      params: IdParams,
      response: { 200: UpcomingInvoiceSchema, ...errors(403, 404, 409) },
    },
    handler: async (req) => {
      const sub = await findSubscription(deps.db, req.ctx, req.params.id);
      if (!sub) throw notFound('subscription', req.params.id);
      if (sub.status === 'CANCELLED') throw new AppError('SUBSCRIPTION_NOT_ACTIVE', `Subscription ${sub.id} is ${sub.status}: it has no upcoming invoice.`);
      return presentUpcomingInvoice(sub, await rateSubscriptionPeriod(deps, req.ctx, sub, await timeOf(deps, req.ctx, sub.testClockId)));
    },
  });
}
