/**
 * The Stripe adapter of the payment provider port, through the official `stripe` client.
 *
 * - Charges are PaymentIntents created with confirm=true and off_session=true for the customer's
 *   payment method, under the caller's Idempotency-Key, with our metadata (invoice, attempt,
 *   workspace, environment) so a webhook finds its attempt.
 * - Outcomes are values: a decline is `failed` with Stripe's decline code, a charge that needs the
 *   buyer (off-session Stripe declines it with `authentication_required`) is `requires_action`. When
 *   the caller gives a return URL, the adapter then confirms the PaymentIntent on-session with it
 *   (its own key, derived from the charge's) so Stripe gives the 3-D Secure page to send the buyer to.
 * - A replayed answer (same key again, Stripe sets `Idempotent-Replayed`) is Stripe's first answer
 *   as it was, so the PaymentIntent is read again: after a lost answer the same charge() call gives
 *   the charge as it stands now.
 * - A payment page is a Checkout Session in payment mode for the amount, its PaymentIntent carrying
 *   our metadata. Its reference is the session's `cs_…` until the buyer paid: retrieveCharge reads
 *   the session (open: requires_action at its URL; expired: failed `expired`; complete: its
 *   PaymentIntent) and cancelCharge expires it, so a page and a charge never both succeed.
 * - Everything else Stripe says is a PaymentProviderError: `unavailable` (no connection, a timeout,
 *   429, 409, 5xx: retry with the same key) or `rejected` (bad key, bad request, a key reused with
 *   other parameters: a bug or a configuration to fix, never retried as is).
 * - The client never retries by itself (maxNetworkRetries 0): retries are the caller's, decided by
 *   the attempt's row. stripe-node still retries a reset connection once, with the same key, which
 *   is safe.
 *
 * `apiBase` (the STRIPE_API_BASE setting, unset in production) points the client at any
 * Stripe-compatible server instead of api.stripe.com: the tests' fake, stripe-mock.
 *
 * The `stripe` package is loaded when the first Stripe provider is made, so a server with no
 * Stripe connection never loads it.
 */
import { createRequire } from 'node:module';
import type Stripe from 'stripe';
import {
  PaymentProviderError,
  type ChargeRequest,
  type ChargeResult,
  type PaymentMethodSummary,
  type PaymentProvider,
  type ProviderCustomer,
  type RefundResult,
} from './payment-provider.js';
import { fromStripeAmount, StripeAmountError, toStripeAmount } from './stripe-amounts.js';

export interface StripeProviderOptions {
  /** The workspace's secret key (sk_… or rk_…), unsealed for this use only. */
  secretKey: string;
  /** STRIPE_API_BASE: scheme, host and port of a Stripe-compatible server (http://127.0.0.1:12111); null for Stripe itself. */
  apiBase?: string | null;
  /** Per request; Stripe's client would wait 80 s. */
  timeoutMs: number;
}

let stripeModule: typeof Stripe | undefined;

function loadStripe(): typeof Stripe {
  return (stripeModule ??= createRequire(import.meta.url)('stripe') as typeof Stripe);
}

/** STRIPE_API_BASE as the client's host, port and protocol options; throws on anything but scheme://host[:port]. */
export function stripeApiAddress(apiBase: string): { host: string; port: number; protocol: 'http' | 'https' } {
  const url = new URL(apiBase);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`STRIPE_API_BASE must be http:// or https://, not ${url.protocol}`);
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '') {
    throw new Error('STRIPE_API_BASE is a scheme, a host and a port only: the client adds /v1/… itself');
  }
  const protocol = url.protocol === 'https:' ? 'https' : 'http';
  return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port || (protocol === 'https' ? 443 : 80)), protocol };
}

export function createStripeProvider(options: StripeProviderOptions): PaymentProvider {
  const StripeClient = loadStripe();
  const client = new StripeClient(options.secretKey, {
    maxNetworkRetries: 0,
    timeout: options.timeoutMs,
    telemetry: false,
    appInfo: { name: 'Tollgate' },
    ...(options.apiBase ? stripeApiAddress(options.apiBase) : {}),
  });

  async function defaultPaymentMethodId(customer: ProviderCustomer): Promise<string | null> {
    const found = await call('retrieve the customer', () => client.customers.retrieve(customer.id));
    if (found.deleted) return null;
    const method = found.invoice_settings.default_payment_method;
    return typeof method === 'string' ? method : (method?.id ?? null);
  }

  /** Off-session Stripe refuses a charge that needs 3-D Secure; confirmed on-session with a return URL, it gives the page for the buyer. */
  async function authenticate(pi: Stripe.PaymentIntent, paymentMethod: string, req: ChargeRequest): Promise<Stripe.PaymentIntent> {
    return paymentIntentOrError('charge', () =>
      client.paymentIntents.confirm(
        pi.id,
        { payment_method: paymentMethod, return_url: req.returnUrl! },
        { idempotencyKey: `${req.idempotencyKey}:authenticate` },
      ),
    );
  }

  async function retrieveSession(id: string): Promise<Stripe.Checkout.Session> {
    return call('retrieve the payment page', () => client.checkout.sessions.retrieve(id));
  }

  /** The page in the port's words: its PaymentIntent once paid (read when the session names it only). */
  async function pageResult(session: Stripe.Checkout.Session): Promise<ChargeResult> {
    const currency = (session.currency ?? 'usd').toUpperCase();
    const base = {
      providerReference: session.id,
      amount: fromStripeAmount(session.amount_total ?? 0, currency),
      currency,
      failureCode: null,
      failureMessage: null,
      actionUrl: null,
    };
    if (session.status === 'open') return { ...base, status: 'requires_action', actionUrl: session.url };
    if (session.status === 'expired') {
      return { ...base, status: 'failed', failureCode: 'expired', failureMessage: 'The payment page expired (or was withdrawn) before the buyer paid.' };
    }
    const pi = session.payment_intent;
    if (!pi) return { ...base, status: 'processing' };
    return chargeResult(typeof pi === 'string' ? await call('retrieve the charge', () => client.paymentIntents.retrieve(pi)) : pi);
  }

  /** A PaymentIntent call whose card error (402) still carries the PaymentIntent: an outcome, not an error. */
  async function paymentIntentOrError(what: string, fn: () => Promise<Stripe.Response<Stripe.PaymentIntent>>): Promise<Stripe.PaymentIntent> {
    let pi: Stripe.PaymentIntent;
    let replayed: boolean;
    try {
      const answer = await fn();
      pi = answer;
      replayed = answer.lastResponse?.headers?.['idempotent-replayed'] === 'true';
    } catch (e) {
      if (!isStripeError(e) || e.type !== 'StripeCardError' || !e.payment_intent) throw providerError(what, e);
      pi = e.payment_intent;
      replayed = e.headers?.['idempotent-replayed'] === 'true';
    }
    // A replay is Stripe's first answer as it was then; the PaymentIntent may have moved on since.
    return replayed ? call(what, () => client.paymentIntents.retrieve(pi.id)) : pi;
  }

  return {
    name: 'stripe',

    async createCustomer(input) {
      const customer = await call('create a customer', () =>
        client.customers.create(
          { ...(input.email ? { email: input.email } : {}), name: input.name, metadata: input.metadata },
          { idempotencyKey: input.idempotencyKey },
        ),
      );
      return { id: customer.id };
    },

    async createSetupSession(input) {
      const session = await call('create a setup session', () =>
        client.checkout.sessions.create({
          mode: 'setup',
          customer: input.customer.id,
          currency: input.currency.toLowerCase(),
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
        }),
      );
      if (!session.url) throw new PaymentProviderError('Stripe gave the setup session no URL', 'rejected');
      return { id: session.id, url: session.url };
    },

    async applySetupSession(sessionId) {
      const session = await call('retrieve the setup session', () => client.checkout.sessions.retrieve(sessionId, { expand: ['setup_intent.payment_method'] }));
      if (session.mode !== 'setup' || session.status !== 'complete' || !session.customer || !session.setup_intent) return null;
      const customerId = typeof session.customer === 'string' ? session.customer : session.customer.id;
      const setupIntent =
        typeof session.setup_intent === 'string'
          ? await call('retrieve the setup intent', () => client.setupIntents.retrieve(session.setup_intent as string))
          : session.setup_intent;
      const method = setupIntent.payment_method;
      if (!method) return null;
      const paymentMethod = typeof method === 'string' ? await call('retrieve the payment method', () => client.paymentMethods.retrieve(method)) : method;
      await call('set the default payment method', () =>
        client.customers.update(customerId, { invoice_settings: { default_payment_method: paymentMethod.id } }),
      );
      return { customer: { id: customerId }, paymentMethod: summary(paymentMethod) };
    },

    async defaultPaymentMethod(customer) {
      const found = await call('retrieve the customer', () => client.customers.retrieve(customer.id, { expand: ['invoice_settings.default_payment_method'] }));
      if (found.deleted) return null;
      const method = found.invoice_settings.default_payment_method;
      if (!method) return null;
      // A Stripe-compatible server may leave it unexpanded.
      return summary(typeof method === 'string' ? await call('retrieve the payment method', () => client.paymentMethods.retrieve(method)) : method);
    },

    async charge(req) {
      const amount = stripeAmount(req.amount, req.currency);
      const paymentMethod = req.paymentMethodId ?? (await defaultPaymentMethodId(req.customer));
      if (!paymentMethod) {
        return {
          providerReference: null,
          status: 'failed',
          amount: req.amount,
          currency: req.currency.toUpperCase(),
          failureCode: 'no_payment_method',
          failureMessage: 'The customer has no default payment method at Stripe.',
          actionUrl: null,
        };
      }
      let pi = await paymentIntentOrError('charge', () =>
        client.paymentIntents.create(
          {
            amount,
            currency: req.currency.toLowerCase(),
            customer: req.customer.id,
            payment_method: paymentMethod,
            confirm: true,
            off_session: true,
            description: req.description,
            metadata: { ...req.metadata },
          },
          { idempotencyKey: req.idempotencyKey },
        ),
      );
      if (
        req.returnUrl &&
        pi.status === 'requires_payment_method' &&
        pi.last_payment_error &&
        failureCodeOf(pi.last_payment_error) === 'authentication_required'
      ) {
        pi = await authenticate(pi, paymentMethod, req);
      }
      return chargeResult(pi);
    },

    async createPaymentPage(req) {
      const amount = stripeAmount(req.amount, req.currency);
      const created = await call('create a payment page', () =>
        client.checkout.sessions.create(
          {
            mode: 'payment',
            customer: req.customer.id,
            line_items: [{ quantity: 1, price_data: { currency: req.currency.toLowerCase(), unit_amount: amount, product_data: { name: req.description } } }],
            payment_intent_data: { description: req.description, metadata: { ...req.metadata } },
            metadata: { ...req.metadata },
            success_url: req.successUrl,
            cancel_url: req.cancelUrl,
          },
          { idempotencyKey: req.idempotencyKey },
        ),
      );
      // A replay is the page as it was made; the buyer may have paid or let it expire since.
      const replayed = created.lastResponse?.headers?.['idempotent-replayed'] === 'true';
      return pageResult(replayed ? await retrieveSession(created.id) : created);
    },

    async retrieveCharge(providerReference) {
      if (isPageReference(providerReference)) return pageResult(await retrieveSession(providerReference));
      return chargeResult(await call('retrieve the charge', () => client.paymentIntents.retrieve(providerReference)));
    },

    async cancelCharge(providerReference) {
      if (isPageReference(providerReference)) {
        const session = await retrieveSession(providerReference);
        if (session.status !== 'open') return pageResult(session);
        try {
          return pageResult(await client.checkout.sessions.expire(providerReference));
        } catch (e) {
          // Paid (or expired) between the read and the call: read it as it stands.
          if (isStripeError(e) && e.statusCode === 400) return pageResult(await retrieveSession(providerReference));
          throw providerError('expire the payment page', e);
        }
      }
      try {
        return chargeResult(await client.paymentIntents.cancel(providerReference, { cancellation_reason: 'abandoned' }));
      } catch (e) {
        // Refused because it is no longer cancelable (succeeded, processing, already canceled): read it as it stands.
        if (isStripeError(e) && e.code === 'payment_intent_unexpected_state') {
          return chargeResult(await call('retrieve the charge', () => client.paymentIntents.retrieve(providerReference)));
        }
        throw providerError('cancel the charge', e);
      }
    },

    async refund(req) {
      const amount = stripeAmount(req.amount, req.currency);
      const refund = await call('refund', () =>
        client.refunds.create({ payment_intent: req.providerReference, amount, metadata: { ...req.metadata } }, { idempotencyKey: req.idempotencyKey }),
      );
      return { providerReference: refund.id, status: refundStatus(refund.status), amount: fromStripeAmount(refund.amount, refund.currency) };
    },
  };
}

/** A payment page's reference (a Checkout Session), as opposed to a charge's (a PaymentIntent). */
const isPageReference = (reference: string) => reference.startsWith('cs_');

/** The PaymentIntent in the port's words. */
function chargeResult(pi: Stripe.PaymentIntent): ChargeResult {
  const base = {
    providerReference: pi.id,
    amount: fromStripeAmount(pi.amount, pi.currency),
    currency: pi.currency.toUpperCase(),
    failureCode: null,
    failureMessage: null,
    actionUrl: null,
  };
  switch (pi.status) {
    case 'succeeded':
      return { ...base, status: 'succeeded' };
    case 'requires_action':
      return { ...base, status: 'requires_action', actionUrl: pi.next_action?.redirect_to_url?.url ?? null };
    case 'requires_payment_method': {
      const error = pi.last_payment_error;
      const code = error ? failureCodeOf(error) : 'requires_payment_method';
      // Off-session, Stripe declines what needs 3-D Secure: the buyer can still pay, on-session.
      const status = code === 'authentication_required' ? 'requires_action' : 'failed';
      return { ...base, status, failureCode: code, failureMessage: error?.message ?? null };
    }
    case 'canceled':
      return {
        ...base,
        status: 'failed',
        failureCode: 'canceled',
        failureMessage: pi.cancellation_reason ? `Canceled: ${pi.cancellation_reason}` : 'Canceled',
      };
    default:
      // processing, and states a confirmed automatic-capture PaymentIntent only passes through.
      return { ...base, status: 'processing' };
  }
}

/** The most specific code: the issuer's decline code (insufficient_funds…), else Stripe's error code (card_declined…). */
function failureCodeOf(error: Stripe.PaymentIntent.LastPaymentError): string {
  if (error.decline_code && error.decline_code !== 'generic_decline') return error.decline_code;
  return error.code ?? error.type;
}

function refundStatus(status: string | null): RefundResult['status'] {
  if (status === 'succeeded') return 'succeeded';
  if (status === 'failed' || status === 'canceled') return 'failed';
  return 'pending'; // pending, requires_action
}

function summary(pm: Stripe.PaymentMethod): PaymentMethodSummary {
  return {
    id: pm.id,
    brand: pm.card ? pm.card.brand : pm.type,
    last4: pm.card?.last4 ?? null,
    expMonth: pm.card?.exp_month ?? null,
    expYear: pm.card?.exp_year ?? null,
  };
}

function stripeAmount(amount: string, currency: string): number {
  try {
    return toStripeAmount(amount, currency);
  } catch (e) {
    if (e instanceof StripeAmountError) throw new PaymentProviderError(e.message, 'rejected', e.problem);
    if (e instanceof RangeError) throw new PaymentProviderError(e.message, 'rejected', 'unknown_currency');
    throw e;
  }
}

interface StripeErrorLike {
  type: string;
  message: string;
  code?: string;
  decline_code?: string;
  rawType?: string;
  statusCode?: number;
  headers?: Record<string, string>;
  detail?: unknown;
  payment_intent?: Stripe.PaymentIntent;
}

/** By shape, not instanceof: the client is loaded through require, the tests may import the ESM build. */
function isStripeError(e: unknown): e is StripeErrorLike {
  const type: unknown = e instanceof Error ? (e as Partial<StripeErrorLike>).type : undefined;
  return typeof type === 'string' && type.startsWith('Stripe');
}

async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw providerError(what, e);
  }
}

function providerError(what: string, e: unknown): unknown {
  if (!isStripeError(e)) return e;
  const message = `Stripe could not ${what}: ${e.message}`;
  if (e.type === 'StripeConnectionError') {
    const code = (e.detail as { code?: unknown } | undefined)?.code;
    return new PaymentProviderError(message, 'unavailable', typeof code === 'string' ? code : 'connection_error');
  }
  const status = e.statusCode ?? 0;
  const unavailable = e.type === 'StripeAPIError' || e.type === 'StripeRateLimitError' || status >= 500 || status === 409 || status === 429;
  return new PaymentProviderError(message, unavailable ? 'unavailable' : 'rejected', e.code ?? e.decline_code ?? e.rawType ?? null);
}
