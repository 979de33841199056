import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import type { Tenant } from '../../lib/tenant.js';
import { sealedFor, type PaymentProviderConnection } from './payment-provider-connection.js';
import { findPaymentProvider } from './payment-provider-connection.repository.js';
import type { PaymentProvider } from './payment-provider.js';
import { createStripeProvider } from './stripe-provider.js';

/** The Stripe adapter for a connection, with its key unsealed for this use only. */
export function stripeProviderOf(deps: Pick<Deps, 'secrets' | 'config'>, connection: PaymentProviderConnection): PaymentProvider {
  return createStripeProvider({
    secretKey: deps.secrets.open(connection.secretKey, sealedFor(connection.id, 'secretKey')),
    apiBase: deps.config.stripeApiBase,
    // How long one call may take before it counts as unavailable (STRIPE_TIMEOUT_MS; Stripe's client would wait 80 s).
    timeoutMs: deps.config.stripeTimeoutMs,
  });
}

/** This environment's Stripe, or 409 saying to connect it. */
export async function requireStripe(deps: Deps, tenant: Tenant): Promise<{ connection: PaymentProviderConnection; provider: PaymentProvider }> {
  const connection = await findPaymentProvider(deps.db, tenant, 'stripe');
  if (!connection) {
    throw new AppError(
      'CONFLICT',
      `Stripe is not connected to the ${tenant.environment} environment: connect it first (PUT /api/v1/payment_providers/stripe).`,
    );
  }
  return { connection, provider: stripeProviderOf(deps, connection) };
}
