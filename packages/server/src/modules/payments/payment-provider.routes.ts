import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { bearerSecurity, errors } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import { AppError } from '../../lib/errors.js';
import { connectStripe } from './connect-stripe.js';
import { disconnectPaymentProvider } from './disconnect-payment-provider.js';
import { ConnectStripeBody, PaymentProviderSchema, presentPaymentProvider, ProviderParams } from './payment-provider-connection.js';
import { findPaymentProvider, listPaymentProviders } from './payment-provider-connection.repository.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = ['Payments'];

export async function paymentProviderRoutes(app: App, deps: Deps): Promise<void> {
  app.put('/api/v1/payment_providers/stripe', {
    config: admin,
    schema: {
      operationId: 'connectStripe',
      summary: 'Connect Stripe to this environment, or replace its keys',
      description:
        'The key’s environment decides which one: a sk_test_ Tollgate key connects the test environment, which takes a Stripe test-mode secret key (sk_test_… or rk_test_…); a sk_live_ key connects live, which takes a live-mode one. A key of the other mode, a publishable key or a signing secret in the wrong field is a 400 naming the field. Both secrets are sealed at rest with TOLLGATE_ENCRYPTION_KEYS and never returned; only their last four characters are shown. 201 when connected, 200 when the keys were replaced. In Stripe, point a webhook endpoint at your public address followed by webhookUrl.',
      tags,
      security: bearerSecurity,
      body: ConnectStripeBody,
      response: { 200: PaymentProviderSchema, 201: PaymentProviderSchema, ...errors(403) },
    },
    handler: async (req, reply) => {
      const { connection, created } = await connectStripe(deps, req.ctx, req.body);
      return reply.code(created ? 201 : 200).send(presentPaymentProvider(connection));
    },
  });

  app.get('/api/v1/payment_providers', {
    config: admin,
    schema: {
      operationId: 'listPaymentProviders',
      summary: 'List the payment providers connected to this environment',
      description: 'At most one per provider. Manual payments need no connection and are not listed.',
      tags,
      security: bearerSecurity,
      response: {
        200: Type.Object({ object: Type.Literal('list'), data: Type.Array(PaymentProviderSchema, { maxItems: 10 }), hasMore: Type.Boolean() }),
        ...errors(403),
      },
    },
    handler: async (req) => ({ object: 'list' as const, data: (await listPaymentProviders(deps.db, req.ctx)).map(presentPaymentProvider), hasMore: false }),
  });

  app.get('/api/v1/payment_providers/:provider', {
    config: admin,
    schema: {
      operationId: 'retrievePaymentProvider',
      summary: 'Retrieve a payment provider’s connection',
      description: 'Its hints and webhook URL; the secrets themselves are never returned. 404 when the provider is not connected to this environment.',
      tags,
      security: bearerSecurity,
      params: ProviderParams,
      response: { 200: PaymentProviderSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const c = await findPaymentProvider(deps.db, req.ctx, req.params.provider);
      if (!c)
        throw new AppError('NOT_FOUND', `No ${req.params.provider} connection exists in the ${req.ctx.environment} environment.`, { field: 'path.provider' });
      return presentPaymentProvider(c);
    },
  });

  app.delete('/api/v1/payment_providers/:provider', {
    config: admin,
    schema: {
      operationId: 'disconnectPaymentProvider',
      summary: 'Disconnect a payment provider from this environment',
      description: 'Deletes the connection and its sealed secrets; answers what was deleted, with deleted: true.',
      tags,
      security: bearerSecurity,
      params: ProviderParams,
      response: { 200: Type.Composite([PaymentProviderSchema, Type.Object({ deleted: Type.Literal(true) })]), ...errors(403, 404) },
    },
    handler: async (req) => ({ ...presentPaymentProvider(await disconnectPaymentProvider(deps, req.ctx, req.params.provider)), deleted: true as const }),
  });
}
