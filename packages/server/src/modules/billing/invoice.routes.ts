import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { notFound } from '../../lib/errors.js';
import type { App } from '../../http/types.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import { idempotent } from '../idempotency/idempotent.js';
import { customerIdFilter, requireCustomerByRef } from '../customers/customer-refs.js';
import { CustomerRefParams } from '../customers/customer.js';
import { timeOf } from '../test-clocks/clock-time.js';
import { BillingSettingsSchema, presentBillingSettings, UpdateBillingSettingsBody } from './billing-settings.js';
import { billingSettingsOf } from './billing-settings.repository.js';
import { updateBillingSettings } from './update-billing-settings.js';
import { CreateCreditNoteBody, CreditNoteSchema, IssuedCreditNoteSchema, presentCreditNote } from './credit-note.js';
import { findCreditNote, listCreditNotes } from './credit-note.repository.js';
import { finalizeInvoice } from './finalize-invoice.js';
import { invoiceStatuses, InvoiceSchema, presentInvoice } from './invoice.js';
import { findInvoice, listInvoices, type InvoiceFilter } from './invoice.repository.js';
import { transitionInvoice, type InvoiceAction } from './invoice-transitions.js';
import { issueCreditNote } from './issue-credit-note.js';
import { sendPendingRefunds } from './refund-credit-note.js';
import { presentRefund } from '../payments/refund.js';
import { recordManualPayment } from './record-manual-payment.js';
import { attemptPaymentNow, type Collection } from './collect-invoice.js';
import { PaymentSchema, presentPayment, RecordPaymentBody } from '../payments/payment.js';
import { listInvoicePayments } from '../payments/payment.repository.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = ['Invoices'];
const DateTime = (description: string) => Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description }));

const CustomerFilter = Type.Optional(
  Type.String({ maxLength: 255, description: 'The customer: its cus_ id or the externalId you gave it, as in usage events (an id match wins).' }),
);

const InvoiceFilters = {
  subscriptionId: Type.Optional(Type.String({ maxLength: 100 })),
  status: Type.Optional(Type.Union(invoiceStatuses.map((s) => Type.Literal(s)))),
  periodFrom: DateTime('Invoices whose period ends after this instant.'),
  periodTo: DateTime('Invoices whose period starts before this instant.'),
};

type FilterQuery = { subscriptionId?: string; status?: InvoiceFilter['status']; periodFrom?: string; periodTo?: string; customerId?: string };
const toFilter = (q: FilterQuery & Omit<InvoiceFilter, 'periodFrom' | 'periodTo' | 'status' | 'subscriptionId' | 'customerId'>): InvoiceFilter => ({
  ...q,
  periodFrom: q.periodFrom === undefined ? undefined : Date.parse(q.periodFrom),
  periodTo: q.periodTo === undefined ? undefined : Date.parse(q.periodTo),
});

export async function invoiceRoutes(app: App, deps: Deps, collection: Collection): Promise<void> {
  app.get('/api/v1/invoices', {
    config: admin,
    schema: {
      operationId: 'listInvoices',
      summary: 'List invoices, newest first',
      description:
        "Invoices of the key's environment, newest first, with cursor pagination; filter by customer (its cus_ id or your externalId), subscription, status or period.",
      tags,
      security: bearerSecurity,
      querystring: Type.Object({ ...ListQuery, customerId: CustomerFilter, ...InvoiceFilters }, { additionalProperties: false }),
      response: { 200: ListOf(InvoiceSchema), ...errors(403) },
    },
    handler: async (req) => {
      const customerId = await customerIdFilter(deps.db, req.ctx, req.query.customerId);
      const page = await listInvoices(deps.db, req.ctx, { ...toFilter(req.query), customerId });
      return { object: 'list' as const, data: page.items.map((i) => presentInvoice(i, deps, req.ctx)), hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/customers/:id/invoices', {
    config: admin,
    schema: {
      operationId: 'listCustomerInvoices',
      summary: "List a customer's invoices, newest first",
      description:
        "One customer's invoices, newest first, with cursor pagination. The customer is named by its cus_ id or by the externalId you gave it (an id match wins); 404 on path.id when it names nobody here.",
      tags,
      security: bearerSecurity,
      params: CustomerRefParams,
      querystring: Type.Object({ ...ListQuery, ...InvoiceFilters }, { additionalProperties: false }),
      response: { 200: ListOf(InvoiceSchema), ...errors(403, 404) },
    },
    handler: async (req) => {
      const customer = await requireCustomerByRef(deps.db, req.ctx, req.params.id, 'path.id');
      const page = await listInvoices(deps.db, req.ctx, { ...toFilter(req.query), customerId: customer.id });
      return { object: 'list' as const, data: page.items.map((i) => presentInvoice(i, deps, req.ctx)), hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/invoices/:id', {
    config: admin,
    schema: {
      operationId: 'retrieveInvoice',
      summary: 'Retrieve an invoice',
      description: 'One invoice by its id (in_…) with its lines, totals and status.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: InvoiceSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const invoice = await findInvoice(deps.db, req.ctx, req.params.id);
      if (!invoice) throw notFound('invoice', req.params.id);
      return presentInvoice(invoice, deps, req.ctx);
    },
  });

  app.post('/api/v1/invoices/:id/finalize', {
    config: admin,
    schema: {
      operationId: 'finalizeInvoice',
      summary: 'Finalize a draft invoice now',
      description:
        'Without waiting for the grace period: its usage is rated once more, adjustments for earlier periods are added, it takes the next number, and it never changes again. 409 unless it is a draft.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: InvoiceSchema, ...errors(403, 404, 409) },
    },
    handler: async (req) => {
      const invoice = await findInvoice(deps.db, req.ctx, req.params.id);
      if (!invoice) throw notFound('invoice', req.params.id);
      const at = await timeOf(deps, req.ctx, invoice.testClockId);
      return presentInvoice(await finalizeInvoice(deps, req.ctx, req.ctx, req.params.id, at, { onlyDraft: true }), deps, req.ctx);
    },
  });

  const transitions: Array<[InvoiceAction, string, string, string]> = [
    [
      'pay',
      'payInvoice',
      'Mark an invoice paid',
      'Marks the amount remaining paid without recording a payment (Stripe’s paid out of band). To record what arrived, with its amount, date and reference, use POST /api/v1/invoices/{id}/payments. From finalized or uncollectible.',
    ],
    ['void', 'voidInvoice', 'Void an invoice', 'It stays in the list and keeps its number, but nothing is owed. From finalized or uncollectible.'],
    [
      'mark_uncollectible',
      'markInvoiceUncollectible',
      'Mark an invoice uncollectible',
      'The amount is not expected to be paid; it can still be marked paid or void later. From finalized.',
    ],
  ];
  for (const [action, operationId, summary, description] of transitions) {
    app.post(`/api/v1/invoices/:id/${action}`, {
      config: admin,
      schema: {
        operationId,
        summary,
        description,
        tags,
        security: bearerSecurity,
        params: IdParams,
        response: { 200: InvoiceSchema, ...errors(403, 404, 409) },
      },
      handler: async (req) => presentInvoice(await transitionInvoice(deps, req.ctx, req.params.id, action), deps, req.ctx),
    });
  }

  app.post('/api/v1/invoices/:id/payments', {
    config: admin,
    schema: {
      operationId: 'recordInvoicePayment',
      summary: 'Record a payment made outside Tollgate',
      description:
        'A bank transfer, a cheque: money that reached you without a provider. Partial payments add up in amountPaid; the one that leaves nothing owed marks the invoice paid (invoice.paid in the audit log and to webhook endpoints). The amount is more than 0, at most amountRemaining, in at most the currency’s minor digits (400 naming body.amount otherwise); paidAt defaults to now and is never in the future. 409 unless the invoice is finalized or uncollectible. Send Idempotency-Key to make a retry safe. Answers the payment, with the invoice as it now is.',
      tags,
      security: bearerSecurity,
      headers: IdempotencyHeaders,
      params: IdParams,
      body: RecordPaymentBody,
      response: { 200: Type.Composite([PaymentSchema, Type.Object({ invoice: InvoiceSchema })], { title: 'RecordedPayment' }), ...errors(403, 404, 409, 422) },
    },
    handler: (req, reply) =>
      idempotent(deps, req, reply, async (tx) => {
        const { payment, invoice } = await recordManualPayment(tx, req.ctx, req.params.id, req.body);
        return { ...presentPayment(payment), invoice: presentInvoice(invoice, deps, req.ctx) };
      }),
  });

  app.post('/api/v1/invoices/:id/attempt_payment', {
    config: admin,
    schema: {
      operationId: 'attemptInvoicePayment',
      summary: 'Charge what an invoice still owes, now',
      description:
        'Retry now: charges amountRemaining through the connected Stripe account with the customer’s card on file, whatever the retry schedule says (trigger manual_retry), and answers the attempt with the invoice as it now is: succeeded (the invoice is paid), failed (lastPaymentError; the schedule goes on), requires_action (the buyer must authenticate: with returnUrl, paymentActionUrl is Stripe’s page for them), or pending when Stripe did not answer in time (the reconciliation settles it; it is never charged twice). 409 when the invoice is not finalized, owes nothing, has an attempt in flight, or Stripe is not connected. Each call that gets through is a new attempt.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      body: Type.Object(
        {
          returnUrl: Type.Optional(
            Type.String({
              maxLength: 2_000,
              pattern: '^https?://[^\\s]+$',
              description: 'Where Stripe sends the buyer back after 3-D Secure; with it, a card that needs them gives paymentActionUrl.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
      response: { 200: Type.Composite([PaymentSchema, Type.Object({ invoice: InvoiceSchema })], { title: 'PaymentAttempt' }), ...errors(403, 404, 409, 503) },
    },
    // The body is optional: none at all charges without a return URL.
    preValidation: async (req) => {
      req.body ??= {};
    },
    handler: async (req) => {
      const r = await attemptPaymentNow(deps, collection, req.ctx, req.params.id, { trigger: 'manual_retry', returnUrl: req.body.returnUrl ?? null });
      return { ...presentPayment(r.payment!), invoice: presentInvoice(r.invoice, deps, req.ctx) };
    },
  });

  app.get('/api/v1/invoices/:id/payments', {
    config: admin,
    schema: {
      operationId: 'listInvoicePayments',
      summary: 'List an invoice’s payments and payment attempts, oldest first',
      description:
        'Every payment recorded against the invoice and every attempt made through the payment provider, with its outcome (pending, processing, requires_action, succeeded, failed), why it was made (trigger), Stripe’s PaymentIntent (providerReference) and, for a failure, Stripe’s code.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: {
        200: Type.Object({ object: Type.Literal('list'), data: Type.Array(PaymentSchema, { maxItems: 1_000 }), hasMore: Type.Boolean() }),
        ...errors(403, 404),
      },
    },
    handler: async (req) => {
      if (!(await findInvoice(deps.db, req.ctx, req.params.id))) throw notFound('invoice', req.params.id);
      return { object: 'list' as const, data: (await listInvoicePayments(deps.db, req.ctx, req.params.id)).map(presentPayment), hasMore: false };
    },
  });

  app.post('/api/v1/credit_notes', {
    config: admin,
    schema: {
      operationId: 'createCreditNote',
      summary: 'Issue a credit note',
      description:
        "Against a finalized, paid or uncollectible invoice, with lines and a reason; its total is at most what is left of the invoice (its total less earlier credit notes). Numbered in the workspace's credit-note sequence. The invoice's own lines never change; its creditedTotal and amountRemaining do. On a paid invoice, refund gives the money back: through Stripe (after the credit note is committed, under an idempotency key of the credit note and the payment; a refund Stripe does not answer stays pending and the reconciliation sends it again, never twice), recorded out of band, or credited to the customer's balance for their next invoices; never more than was paid and not yet given back (400 naming body.refund.amount).",
      tags: ['Credit notes'],
      security: bearerSecurity,
      headers: IdempotencyHeaders,
      body: CreateCreditNoteBody,
      response: { 200: IssuedCreditNoteSchema, ...errors(403, 404, 409, 422) },
    },
    handler: async (req, reply) => {
      const note = await idempotent(deps, req, reply, async (tx) => presentCreditNote(await issueCreditNote(tx, req.ctx, req.body)));
      // After the commit, never inside it: a refund through Stripe is an HTTP call. A replay sends
      // what is still pending again under the same keys, so Stripe refunds once.
      const refunds = await sendPendingRefunds(deps, req.ctx, note.id);
      return { ...note, refunds: refunds.map(presentRefund) };
    },
  });

  app.get('/api/v1/credit_notes', {
    config: admin,
    schema: {
      operationId: 'listCreditNotes',
      summary: 'List credit notes, newest first',
      description:
        "Credit notes of the key's environment, newest first, with cursor pagination; filter by invoice or customer (its cus_ id or your externalId).",
      tags: ['Credit notes'],
      security: bearerSecurity,
      querystring: Type.Object(
        { ...ListQuery, invoiceId: Type.Optional(Type.String({ maxLength: 100 })), customerId: CustomerFilter },
        { additionalProperties: false },
      ),
      response: { 200: ListOf(CreditNoteSchema), ...errors(403) },
    },
    handler: async (req) => {
      const page = await listCreditNotes(deps.db, req.ctx, { ...req.query, customerId: await customerIdFilter(deps.db, req.ctx, req.query.customerId) });
      return { object: 'list' as const, data: page.items.map(presentCreditNote), hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/credit_notes/:id', {
    config: admin,
    schema: {
      operationId: 'retrieveCreditNote',
      summary: 'Retrieve a credit note',
      description: 'One credit note by its id with its lines and reason.',
      tags: ['Credit notes'],
      security: bearerSecurity,
      params: IdParams,
      response: { 200: CreditNoteSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const note = await findCreditNote(deps.db, req.ctx, req.params.id);
      if (!note) throw notFound('credit note', req.params.id);
      return presentCreditNote(note);
    },
  });

  app.get('/api/v1/billing/settings', {
    config: admin,
    schema: {
      operationId: 'retrieveBillingSettings',
      summary: 'Billing settings',
      description:
        "The environment's invoicing settings: invoice and credit-note number prefixes, how long a draft waits before it is finalized, and the support URL.",
      tags,
      security: bearerSecurity,
      response: { 200: BillingSettingsSchema, ...errors(403) },
    },
    handler: async (req) => presentBillingSettings(await billingSettingsOf(deps.db, req.ctx)),
  });

  app.patch('/api/v1/billing/settings', {
    config: admin,
    schema: {
      operationId: 'updateBillingSettings',
      summary: 'Change billing settings',
      description:
        'The grace period applies to drafts issued from now on; prefixes to numbers given from now on (numbers already given never change). supportUrl is where the SUPPORT_HANDOFF retention offer sends a customer who cancels for missing features or technical issues.',
      tags,
      security: bearerSecurity,
      body: UpdateBillingSettingsBody,
      response: { 200: BillingSettingsSchema, ...errors(403) },
    },
    handler: async (req) => presentBillingSettings(await updateBillingSettings(deps, req.ctx, req.body)),
  });
}
