import type { Deps } from '../deps.js';
import { listAllPaymentProviders } from '../modules/payments/payment-provider-connection.repository.js';
import { sealedFor } from '../modules/payments/payment-provider-connection.js';
import { FAKE_STRIPE_SECRET_KEY, FAKE_STRIPE_WEBHOOK_SECRET, StripeFake } from './stripe-fake.js';

/**
 * TOLLGATE_STRIPE_FAKE=true (development profile only): the Stripe fake runs beside the server, on
 * 127.0.0.1, so collection can be tried without a Stripe account. Connect an environment with the
 * fake's keys (printed at start); the fake posts every event it makes, signed, to every Stripe
 * connection of this server (each ignores what is not its own), and its Checkout and 3-D Secure
 * pages are small forms where a test card is chosen.
 */
export async function startDevStripe(): Promise<{ fake: StripeFake; deliverTo(deps: Deps, address: string): void }> {
  let targets: () => Promise<Array<{ url: string; secret: string }>> = async () => [];
  const fake = await StripeFake.start({ autoDeliver: true, webhookTargets: () => targets() });
  return {
    fake,
    deliverTo(deps, address) {
      targets = async () =>
        (await listAllPaymentProviders(deps.db))
          .filter((c) => c.provider === 'stripe' && c.webhookSecret !== null)
          .map((c) => ({
            url: `${address}/v1/payments/stripe/webhooks/${c.id}`,
            secret: deps.secrets.open(c.webhookSecret!, sealedFor(c.id, 'webhookSecret')),
          }));
    },
  };
}

/** What the start banner says about the fake. */
export const devStripeBanner = (apiBase: string) =>
  `Stripe fake (TOLLGATE_STRIPE_FAKE): ${apiBase}. Connect with secret key ${FAKE_STRIPE_SECRET_KEY} and webhook secret ${FAKE_STRIPE_WEBHOOK_SECRET}.\n`;
