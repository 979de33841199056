import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { bearerSecurity, errors, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import { notFound } from '../../lib/errors.js';
import { toIso } from '../../lib/clock.js';
import { requireCustomerByRef } from '../customers/customer-refs.js';
import { CustomerRefParams } from '../customers/customer.js';
import { customerBalances } from './customer-balance.repository.js';
import { PaymentSchema, presentPayment } from './payment.js';
import { findPayment } from './payment.repository.js';
import { presentRefund, RefundSchema } from './refund.js';
import { findRefund, listRefunds } from './refund.repository.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = ['Payments'];
const Id = (description: string) => Type.Optional(Type.String({ maxLength: 100, description }));

/** What credit notes gave back (refunds), one payment, and a customer's balance. Credit notes make refunds (billing); these only read. */
export async function refundRoutes(app: App, deps: Deps): Promise<void> {
  app.get('/api/v1/refunds', {
    config: admin,
    schema: {
      operationId: 'listRefunds',
      summary: 'List refunds, newest first',
      description:
        'What credit notes on paid invoices gave back, newest first, with cursor pagination; filter by credit note, invoice or payment. A provider refund is pending until Stripe answers (the reconciliation asks again under the same idempotency key).',
      tags,
      security: bearerSecurity,
      querystring: Type.Object({ ...ListQuery, creditNoteId: Id('cn_…'), invoiceId: Id('inv_…'), paymentId: Id('pay_…') }, { additionalProperties: false }),
      response: { 200: ListOf(RefundSchema), ...errors(403) },
    },
    handler: async (req) => {
      const page = await listRefunds(deps.db, req.ctx, req.query);
      return { object: 'list' as const, data: page.items.map(presentRefund), hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/refunds/:id', {
    config: admin,
    schema: {
      operationId: 'retrieveRefund',
      summary: 'Retrieve a refund',
      description: 'One refund by its id: its credit note, the payment it is taken from, its method and status.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: RefundSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const refund = await findRefund(deps.db, req.ctx, req.params.id);
      if (!refund) throw notFound('refund', req.params.id);
      return presentRefund(refund);
    },
  });

  app.get('/api/v1/payments/:id', {
    config: admin,
    schema: {
      operationId: 'retrievePayment',
      summary: 'Retrieve a payment',
      description:
        'One payment or payment attempt by its id, as GET /api/v1/invoices/{id}/payments lists it, with amountRefunded (the payment.refunded webhook’s data.object).',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: PaymentSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const payment = await findPayment(deps.db, req.ctx, req.params.id);
      if (!payment) throw notFound('payment', req.params.id);
      return presentPayment(payment);
    },
  });

  app.get('/api/v1/customers/:id/balance', {
    config: admin,
    schema: {
      operationId: 'retrieveCustomerBalance',
      summary: 'A customer’s balance',
      description:
        'What credit notes credited to the customer’s balance (refund method customer_balance) and their invoices have not spent yet, per currency: each invoice finalized in that currency spends it first, as a payment of provider customer_balance. No currency listed: nothing there.',
      tags,
      security: bearerSecurity,
      params: CustomerRefParams,
      response: {
        200: Type.Object(
          {
            object: Type.Literal('customer_balance'),
            customerId: Type.String({ maxLength: 100, description: 'cus_…' }),
            balances: Type.Array(
              Type.Object({
                currency: Type.String({ maxLength: 3, description: 'ISO 4217.' }),
                amount: Type.String({ maxLength: 40, description: 'Decimal, in the currency’s minor digits; 0 once spent.' }),
                updatedAt: Type.String({ format: 'date-time', maxLength: 40, description: 'When it last changed.' }),
              }),
              { maxItems: 200, description: 'One per currency the customer was ever credited in.' },
            ),
          },
          { title: 'CustomerBalance' },
        ),
        ...errors(403, 404),
      },
    },
    handler: async (req) => {
      const customer = await requireCustomerByRef(deps.db, req.ctx, req.params.id, 'path.id');
      const balances = await customerBalances(deps.db, req.ctx, customer.id);
      return {
        object: 'customer_balance' as const,
        customerId: customer.id,
        balances: balances.map((b) => ({ currency: b.currency, amount: b.balance, updatedAt: toIso(b.updatedAt) })),
      };
    },
  });
}
