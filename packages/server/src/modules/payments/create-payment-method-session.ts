import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { requireCustomerByRef } from '../customers/customer-refs.js';
import type { Tenant } from '../../lib/tenant.js';
import type { Customer } from '../customers/customer.js';
import { PaymentProviderError, type PaymentProvider } from './payment-provider.js';
import { findProviderCustomer, insertProviderCustomer, type ProviderCustomerRow } from './provider-customer.repository.js';
import { requireStripe } from './stripe-for.js';

/**
 * Our customer's Stripe customer, made the first time one is needed under an idempotency key of
 * our customer's id, so two requests at once make one. Throws PaymentProviderError.
 */
export async function ensureStripeCustomer(
  deps: Deps,
  tenant: Tenant,
  provider: PaymentProvider,
  customer: Pick<Customer, 'id' | 'email' | 'name' | 'externalId'>,
): Promise<ProviderCustomerRow> {
  const known = await findProviderCustomer(deps.db, tenant, 'stripe', customer.id);
  if (known) return known;
  const made = await provider.createCustomer({
    email: customer.email,
    name: customer.name ?? customer.externalId ?? customer.id,
    idempotencyKey: `tollgate-customer-${tenant.workspaceId}-${tenant.environment}-${customer.id}`,
    metadata: { tollgateCustomerId: customer.id, workspaceId: tenant.workspaceId, environment: tenant.environment },
  });
  await insertProviderCustomer(deps.db, tenant, 'stripe', customer.id, made.id, deps.clock.now());
  return (await findProviderCustomer(deps.db, tenant, 'stripe', customer.id))!;
}

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
    const known = await ensureStripeCustomer(deps, ctx, provider, customer);
    const session = await provider.createSetupSession({
      customer: { id: known.providerCustomerId },
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
