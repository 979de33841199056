import { Type, type Static } from '@sinclair/typebox';
import { toIso } from '../../lib/clock.js';
import type { Environment } from '../../lib/crypto.js';
import type { Sealed } from '../../lib/secret-box.js';

/** The providers a workspace can connect. Manual payments need no connection. */
export const connectableProviders = ['stripe'] as const;
export type ConnectableProvider = (typeof connectableProviders)[number];

/** A workspace's connection to a payment provider in one environment, its secrets sealed. */
export interface PaymentProviderConnection {
  id: string;
  environment: Environment;
  provider: ConnectableProvider;
  secretKey: Sealed;
  secretKeyHint: string;
  /** Null until given: the webhook endpoint's signing secret comes after the connection's URL exists. */
  webhookSecret: Sealed | null;
  webhookSecretHint: string | null;
  createdAt: number;
  updatedAt: number;
}

/** What a sealed secret of connection `id` is bound to: a ciphertext moved to another row or field fails to open. */
export const sealedFor = (id: string, field: 'secretKey' | 'webhookSecret') => `payment_provider:${id}:${field}`;

/** The last four characters, shown to tell keys apart; the rest never leaves the server. */
export const hintOf = (secret: string) => `…${secret.slice(-4)}`;

/**
 * Pure: what is wrong with a Stripe secret key for this environment, or null. The key's prefix
 * says its mode (Stripe: sk_test_/rk_test_ test mode, sk_live_/rk_live_ live mode), so a live key
 * can never reach the test environment, nor a test key the live one.
 */
export function stripeSecretKeyProblem(key: string, environment: Environment): string | null {
  if (/^pk_(test|live)_/.test(key)) return 'This is a publishable key (pk_…); send the secret key (sk_… or a restricted rk_… key) from Stripe’s API keys page.';
  if (/^whsec_/.test(key)) return 'This is a webhook signing secret (whsec_…); send it as webhookSecret, and the secret API key as secretKey.';
  const m = /^(sk|rk)_(test|live)_[A-Za-z0-9]{10,240}$/.exec(key);
  if (!m) return 'A Stripe secret key reads sk_test_…, sk_live_…, rk_test_… or rk_live_… followed by letters and digits.';
  const mode = m[2] as Environment;
  if (mode !== environment) {
    return environment === 'test'
      ? 'This is a live-mode Stripe key; the test environment takes a test-mode key (sk_test_… or rk_test_…). Use a sk_live_ Tollgate key to connect the live environment.'
      : 'This is a test-mode Stripe key; the live environment takes a live-mode key (sk_live_… or rk_live_…). Use a sk_test_ Tollgate key to connect the test environment.';
  }
  return null;
}

/** Pure: what is wrong with a Stripe webhook signing secret, or null. */
export function stripeWebhookSecretProblem(secret: string): string | null {
  if (!/^whsec_[A-Za-z0-9+/=]{16,240}$/.test(secret)) {
    return 'A Stripe webhook signing secret reads whsec_ followed by at least 16 letters and digits (the endpoint’s "Signing secret" in Stripe).';
  }
  return null;
}

export const ConnectStripeBody = Type.Object(
  {
    secretKey: Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'Stripe secret key (sk_…) or restricted key (rk_…) in the mode of this environment: sk_test_ for test, sk_live_ for live. Sealed at rest; never returned.',
    }),
    webhookSecret: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description:
          'The signing secret (whsec_…) of the Stripe webhook endpoint that points at this connection’s webhookUrl: connect with the key first, create the endpoint in Stripe at webhookUrl, then send both again. Left out, the stored one stays. Sealed at rest; never returned.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ConnectStripeInput = Static<typeof ConnectStripeBody>;

export const PaymentProviderSchema = Type.Object(
  {
    id: Type.String({ description: 'pp_…' }),
    object: Type.Literal('payment_provider'),
    environment: Type.Union([Type.Literal('test'), Type.Literal('live')]),
    provider: Type.Literal('stripe'),
    secretKeyHint: Type.String({ description: 'The secret key’s last four characters, e.g. …4242.' }),
    webhookSecretHint: Type.Union([Type.String(), Type.Null()], {
      description: 'The webhook signing secret’s last four characters; null until it is given (Stripe’s webhooks are refused until then).',
    }),
    webhookUrl: Type.String({
      description: 'The path on this server to give Stripe as the webhook endpoint’s URL (prefix it with your public address).',
    }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'PaymentProvider' },
);

export const ProviderParams = Type.Object({ provider: Type.Union(connectableProviders.map((p) => Type.Literal(p))) }, { additionalProperties: false });

export function presentPaymentProvider(c: PaymentProviderConnection): Static<typeof PaymentProviderSchema> {
  return {
    id: c.id,
    object: 'payment_provider',
    environment: c.environment,
    provider: c.provider,
    secretKeyHint: c.secretKeyHint,
    webhookSecretHint: c.webhookSecretHint,
    webhookUrl: `/v1/payments/${c.provider}/webhooks/${c.id}`,
    createdAt: toIso(c.createdAt),
    updatedAt: toIso(c.updatedAt),
  };
}
