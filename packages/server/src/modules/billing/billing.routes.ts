import type { Deps } from '../../deps.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors, IdParams } from '../../http/schemas.js';
import { findSubscription } from '../subscriptions/subscription.repository.js';
import { rateSubscriptionPeriod } from './rate-subscription-period.js';
import { presentUpcomingInvoice, UpcomingInvoiceSchema } from './upcoming-invoice.js';

export async function billingRoutes(app: App, deps: Deps): Promise<void> {
  app.get('/api/v1/subscriptions/:id/upcoming-invoice', {
    config: { auth: { kind: 'workspace', scope: 'admin' } },
    schema: {
      summary: 'Preview the upcoming invoice',
      description:
        "The current period's usage so far, rated line by line with the subscription's offering as it is now (or its unitPrices), plus the entry price and minimum fees. Each line is rounded once, half up, to the currency's minor unit; subtotal and total are sums of lines.",
      tags: ['Subscriptions'],
      security: bearerSecurity,
      params: IdParams,
      response: { 200: UpcomingInvoiceSchema, ...errors(403, 404, 409) },
    },
    handler: async (req) => {
      const sub = await findSubscription(deps.db, req.ctx, req.params.id);
      if (!sub) throw notFound('subscription', req.params.id);
      if (sub.status !== 'ACTIVE') throw new AppError('SUBSCRIPTION_NOT_ACTIVE', `Subscription ${sub.id} is ${sub.status}: it has no upcoming invoice.`);
      return presentUpcomingInvoice(sub, await rateSubscriptionPeriod(deps, req.ctx, sub, deps.clock.now()));
    },
  });
}
