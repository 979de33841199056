import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { bearerSecurity, errors } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import { AppError } from '../../lib/errors.js';
import { requireCustomerByRef } from '../customers/customer-refs.js';
import { CustomerRefParams } from '../customers/customer.js';
import { createPaymentMethodSession } from './create-payment-method-session.js';
import { findProviderCustomer } from './provider-customer.repository.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = ['Payments'];
const HttpsUrl = (what: string) => Type.String({ maxLength: 2_000, pattern: '^https?://[^\\s]+$', description: what });

export const PaymentMethodSchema = Type.Object(
  {
    object: Type.Literal('payment_method'),
    provider: Type.Literal('stripe'),
    customerId: Type.String(),
    id: Type.String({ description: 'The provider’s id of the method (Stripe: pm_…).' }),
    brand: Type.Union([Type.String(), Type.Null()]),
    last4: Type.Union([Type.String(), Type.Null()]),
    expMonth: Type.Union([Type.Integer(), Type.Null()]),
    expYear: Type.Union([Type.Integer(), Type.Null()]),
  },
  { title: 'PaymentMethod', description: 'What may be shown of the card a customer pays with; never more.' },
);

export async function paymentMethodRoutes(app: App, deps: Deps): Promise<void> {
  app.post('/api/v1/customers/:id/payment_method_sessions', {
    config: admin,
    schema: {
      operationId: 'createPaymentMethodSession',
      summary: 'Start a hosted page where the customer adds or replaces their card',
      description:
        'A Stripe-hosted Checkout page in setup mode: send your customer to url. When they finish, Stripe’s checkout.session.completed (to the connection’s webhookUrl) makes the card their default, shown by GET …/payment_method. The Stripe customer is made the first time one is needed. 409 when Stripe is not connected to this environment; 503 with Retry-After when Stripe does not answer.',
      tags,
      security: bearerSecurity,
      params: CustomerRefParams,
      body: Type.Object(
        {
          successUrl: HttpsUrl('Where Stripe sends the customer after adding the card.'),
          cancelUrl: HttpsUrl('Where Stripe sends the customer if they leave.'),
          currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'The currency they will pay in (default USD).' })),
        },
        { additionalProperties: false },
      ),
      response: {
        200: Type.Object({
          object: Type.Literal('payment_method_session'),
          id: Type.String({ description: 'The provider’s session id (Stripe: cs_…).' }),
          url: Type.String({ maxLength: 2_000 }),
          provider: Type.Literal('stripe'),
          customerId: Type.String(),
        }),
        ...errors(403, 404, 409),
      },
    },
    handler: async (req) => createPaymentMethodSession(deps, req.ctx, req.params.id, req.body),
  });

  app.get('/api/v1/customers/:id/payment_method', {
    config: admin,
    schema: {
      operationId: 'retrievePaymentMethod',
      summary: 'The card a customer pays with',
      description: 'Brand, last four digits and expiry, as Stripe last told us; 404 naming path.id when the customer has none yet.',
      tags,
      security: bearerSecurity,
      params: CustomerRefParams,
      response: { 200: PaymentMethodSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const customer = await requireCustomerByRef(deps.db, req.ctx, req.params.id, 'path.id');
      const known = await findProviderCustomer(deps.db, req.ctx, 'stripe', customer.id);
      if (!known?.paymentMethod)
        throw new AppError('NOT_FOUND', `Customer '${customer.id}' has no payment method yet: send them to a payment method session.`, { field: 'path.id' });
      return { object: 'payment_method' as const, provider: 'stripe' as const, customerId: customer.id, ...known.paymentMethod };
    },
  });
}
