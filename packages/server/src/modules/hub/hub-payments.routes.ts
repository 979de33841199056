import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { errors, IdParams } from '../../http/schemas.js';
import { AppError } from '../../lib/errors.js';
import { hubSecurity } from '../hub-sessions/hub-session.routes.js';
import { hubSessionOf } from '../hub-sessions/hub-session-of.js';
import { InvoiceSchema, presentInvoice } from '../billing/invoice.js';
import { findInvoice } from '../billing/invoice.repository.js';
import { attemptPaymentNow, type Collection } from '../billing/collect-invoice.js';
import { PaymentSchema, presentPayment } from '../payments/payment.js';
import { findPaymentProvider } from '../payments/payment-provider-connection.repository.js';
import { findProviderCustomer } from '../payments/provider-customer.repository.js';
import { createPaymentMethodSession } from '../payments/create-payment-method-session.js';

const hub = { auth: { kind: 'hub_session' } } as const;
const tags = ['Developer hub'];

const HubPaymentMethodSchema = Type.Object(
  {
    object: Type.Literal('hub_payment_method'),
    cardPayments: Type.Boolean({ description: 'Whether the seller takes cards in this environment (Stripe connected): without it there is no card to add.' }),
    card: Type.Union(
      [
        Type.Object({
          brand: Type.Union([Type.String({ maxLength: 40 }), Type.Null()], { description: 'visa, mastercard…' }),
          last4: Type.Union([Type.String({ maxLength: 4 }), Type.Null()]),
          expMonth: Type.Union([Type.Integer(), Type.Null()]),
          expYear: Type.Union([Type.Integer(), Type.Null()]),
        }),
        Type.Null(),
      ],
      { description: 'The card on file, as much as may be shown; null when there is none yet.' },
    ),
  },
  { title: 'HubPaymentMethod' },
);

/** Where the hub is, for the addresses Stripe sends the customer back to: PUBLIC_URL, else this request's own origin. */
const hubBase = (deps: Deps, req: FastifyRequest) => `${deps.config.publicUrl ?? `${req.protocol}://${req.headers.host ?? req.hostname}`}/hub`;

/**
 * The customer's card and paying an open invoice from the hub, for the session's customer only:
 * the card is read by that customer's id, and an invoice of anyone else reads as absent.
 */
export async function hubPaymentRoutes(app: App, deps: Deps, collection: Collection): Promise<void> {
  app.get('/api/v1/hub/payment_method', {
    config: hub,
    schema: {
      operationId: 'retrieveHubPaymentMethod',
      summary: 'The card the customer pays with',
      description:
        'The hub session’s customer’s card on file (brand, last four digits, expiry; null when none yet), and whether the seller takes cards here at all (`cardPayments`: Stripe connected to this environment).',
      tags,
      security: hubSecurity,
      response: { 200: HubPaymentMethodSchema, ...errors() },
    },
    handler: async (req) => {
      const customerId = hubSessionOf(req).customerId;
      const [connection, known] = await Promise.all([
        findPaymentProvider(deps.db, req.ctx, 'stripe'),
        findProviderCustomer(deps.db, req.ctx, 'stripe', customerId),
      ]);
      const pm = known?.paymentMethod ?? null;
      return {
        object: 'hub_payment_method' as const,
        cardPayments: connection !== null,
        card: pm ? { brand: pm.brand, last4: pm.last4, expMonth: pm.expMonth, expYear: pm.expYear } : null,
      };
    },
  });

  app.post('/api/v1/hub/payment_method_session', {
    config: hub,
    schema: {
      operationId: 'createHubPaymentMethodSession',
      summary: 'Start the hosted page where the customer adds or replaces their card',
      description:
        'No body. A Stripe-hosted page (Checkout in setup mode) for the hub session’s customer: send the browser to `url`; Stripe sends it back to the hub’s payment method page (`/hub/payment-method?card=added`, or `?card=cancelled` when the customer leaves). The card becomes the default when Stripe’s webhook arrives; a new card retries the customer’s failed invoices at once. 409 when the seller takes no cards here (Stripe not connected); 503 with Retry-After when Stripe does not answer. Needs X-CSRF-Token.',
      tags,
      security: hubSecurity,
      response: {
        200: Type.Object(
          { object: Type.Literal('hub_payment_method_session'), url: Type.String({ maxLength: 2_000, description: 'Stripe’s page, for this customer.' }) },
          { title: 'HubPaymentMethodSession' },
        ),
        ...errors(403, 409, 503),
      },
    },
    handler: async (req) => {
      const customerId = hubSessionOf(req).customerId;
      if (!(await findPaymentProvider(deps.db, req.ctx, 'stripe'))) throw noCards();
      const page = `${hubBase(deps, req)}/payment-method`;
      const session = await createPaymentMethodSession(deps, req.ctx, customerId, { successUrl: `${page}?card=added`, cancelUrl: `${page}?card=cancelled` });
      return { object: 'hub_payment_method_session' as const, url: session.url };
    },
  });

  app.post('/api/v1/hub/invoices/:id/pay', {
    config: hub,
    schema: {
      operationId: 'payHubInvoice',
      summary: 'Pay an open invoice now, with the card on file',
      description:
        'No body. Charges what one of the hub session’s customer’s finalized invoices still owes, now, with their card (trigger customer), and answers the attempt with the invoice as it now is: succeeded (paid), failed (failureCode and failureMessage; lastPaymentError on the invoice), requires_action (the bank wants the customer: send them to actionUrl, which returns them to the hub’s invoices) or pending (Stripe did not answer in time; it is never charged twice). Another customer’s invoice reads as absent (404). 409 when the invoice is not finalized, owes nothing, has a payment in flight, or the seller takes no cards here; 503 with Retry-After when Stripe does not answer. Needs X-CSRF-Token.',
      tags,
      security: hubSecurity,
      params: IdParams,
      response: {
        200: Type.Composite([PaymentSchema, Type.Object({ invoice: InvoiceSchema })], { title: 'HubPaymentAttempt' }),
        ...errors(403, 404, 409, 503),
      },
    },
    handler: async (req) => {
      const customerId = hubSessionOf(req).customerId;
      const invoice = await findInvoice(deps.db, req.ctx, req.params.id);
      // Another customer's invoice, and a draft (which the hub never lists), are as absent as an unknown id.
      if (!invoice || invoice.customerId !== customerId || invoice.status === 'draft') {
        throw new AppError('NOT_FOUND', `You have no invoice with id '${req.params.id}'.`, { field: 'path.id' });
      }
      if (!(await findPaymentProvider(deps.db, req.ctx, 'stripe'))) throw noCards();
      const returnUrl = `${hubBase(deps, req)}/billing?invoice=${encodeURIComponent(invoice.id)}`;
      const r = await attemptPaymentNow(deps, collection, req.ctx, invoice.id, { trigger: 'customer', returnUrl });
      return { ...presentPayment(r.payment!), invoice: presentInvoice(r.invoice, deps, req.ctx) };
    },
  });
}

/** In the customer's words: the operator's message names an API route they cannot call. */
const noCards = () => new AppError('CONFLICT', 'Card payments are not set up here: ask the seller how to pay.');
