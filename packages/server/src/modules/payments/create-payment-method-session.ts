import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { requireCustomerByRef } from '../customers/customer-refs.js';
import { PaymentProviderError } from './payment-provider.js';
import { findProviderCustomer, insertProviderCustomer } from './provider-customer.repository.js';
import { requireStripe } from './stripe-for.js';

export interface PaymentMethodSessionInput {
  successUrl: string;
  cancelUrl: string;
  currency?: string;
}

/**
 * A Stripe-hosted page (Checkout in setup mode) where the customer adds or replaces the card they
 * pay with. The Stripe customer is made the first time one is needed, under an idempotency key
 * of our customer's id, so two requests at once make one. The card becomes the default when
 * Stripe's checkout.session.completed arrives (receive-provider-webhook.ts).
 */
export async function createPaymentMethodSession(deps: Deps, ctx: OperationContext, customerRef: string, input: PaymentMethodSessionInput) {
  const customer = await requireCustomerByRef(deps.db, ctx, customerRef, 'path.id');
  const { provider } = await requireStripe(deps, ctx);
  try {
    let known = await findProviderCustomer(deps.db, ctx, 'stripe', customer.id);
    if (!known) {
      const made = await provider.createCustomer({
        email: customer.email,
        name: customer.name ?? customer.externalId ?? customer.id,
        idempotencyKey: `tollgate-customer-${ctx.workspaceId}-${ctx.environment}-${customer.id}`,
        metadata: { tollgateCustomerId: customer.id, workspaceId: ctx.workspaceId, environment: ctx.environment },
      });
      await insertProviderCustomer(deps.db, ctx, 'stripe', customer.id, made.id, deps.clock.now());
      known = await findProviderCustomer(deps.db, ctx, 'stripe', customer.id);
    }
    const session = await provider.createSetupSession({
      customer: { id: known!.providerCustomerId },
      currency: input.currency ?? 'USD',
      successUrl: input.successUrl,
      cancelUrl: input.cancelUrl,
    });
    return { object: 'payment_method_session' as const, id: session.id, url: session.url, provider: 'stripe' as const, customerId: customer.id };
  } catch (err) {
    if (err instanceof PaymentProviderError) {
      throw err.kind === 'unavailable'
        ? new AppError('SERVICE_UNAVAILABLE', `Stripe did not answer (${err.message}); retry in a moment.`, { headers: { 'retry-after': '5' } })
        : new AppError('CONFLICT', `Stripe refused the request: ${err.message}. Check the connection's secret key.`);
    }
    throw err;
  }
}
