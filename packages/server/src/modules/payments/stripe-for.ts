import type { Deps } from '../../deps.js';
import { AppError } from '../../lib/errors.js';
import type { Tenant } from '../../lib/tenant.js';
import { sealedFor, type PaymentProviderConnection } from './payment-provider-connection.js';
import { findPaymentProvider } from './payment-provider-connection.repository.js';
import type { PaymentProvider } from './payment-provider.js';
import { createStripeProvider } from './stripe-provider.js';

/**
 * Adapters already made, by connection and version: unsealing the key and building a client cost
 * about 0.2 ms of CPU, a tenth of a collected invoice's (bench/README.md, issue 39). A connection
 * whose keys are replaced has a new updatedAt, and a disconnected one is never asked for again;
 * the oldest entry goes when the map is full.
 */
const made = new Map<string, PaymentProvider>();
const MADE_MAX = 256;

/** The Stripe adapter for a connection (its key unsealed once per version of the connection). */
export function stripeProviderOf(deps: Pick<Deps, 'secrets' | 'config'>, connection: PaymentProviderConnection): PaymentProvider {
  const key = `${connection.id}:${connection.updatedAt}:${deps.config.stripeApiBase ?? ''}:${deps.config.stripeTimeoutMs}`;
  let provider = made.get(key);
  if (!provider) {
    provider = createStripeProvider({
      secretKey: deps.secrets.open(connection.secretKey, sealedFor(connection.id, 'secretKey')),
      apiBase: deps.config.stripeApiBase,
      // How long one call may take before it counts as unavailable (STRIPE_TIMEOUT_MS; Stripe's client would wait 80 s).
      timeoutMs: deps.config.stripeTimeoutMs,
    });
    if (made.size >= MADE_MAX) made.delete(made.keys().next().value!);
    made.set(key, provider);
  }
  return provider;
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
