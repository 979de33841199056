import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { keepBodiesRaw } from '../../http/body-parsers.js';
import { errors, publicSecurity } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import type { OperationContext } from '../../lib/operation-context.js';
import { findCustomer } from '../customers/customer.repository.js';
import { findWorkspace } from '../tenancy/workspace.repository.js';
import type { Collection } from './collect-invoice.js';
import { HOSTED_TOKEN_MAX, readHostedInvoiceToken } from './hosted-invoice.js';
import { paymentPageCsp, renderPaymentPage, renderPaymentPageNotFound, type PageState } from './hosted-invoice-page.js';
import type { Invoice } from './invoice.js';
import { findInvoice } from './invoice.repository.js';
import { payThroughPage, refreshPaymentPage } from './pay-through-page.js';

const Html = (description: string) => ({
  description,
  content: { 'text/html': { schema: Type.String({ description: 'An HTML document.' }) } },
});

const Params = Type.Object(
  { token: Type.String({ maxLength: HOSTED_TOKEN_MAX, description: 'The token of the invoice’s hostedInvoiceUrl.' }) },
  { additionalProperties: false },
);

/**
 * GET and POST /pay/{token}: an invoice's payment page (hosted-invoice.ts). Public: the token,
 * checked against the key ring, names the tenant and the invoice; a token that does not check out
 * is a 404 page, as is a draft. Rate-limited per IP address like every public route.
 */
export async function hostedInvoiceRoutes(app: App, deps: Deps, collection: Collection): Promise<void> {
  const csp = paymentPageCsp(deps.config.stripeApiBase);
  const send = (reply: FastifyReply, status: number, html: string) =>
    reply
      .code(status)
      .headers({
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-security-policy': csp,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
      })
      .send(html);

  async function page(reply: FastifyReply, origin: OperationContext, invoice: Invoice, state: PageState, status = 200) {
    const [workspace, customer] = await Promise.all([findWorkspace(deps.db, origin.workspaceId), findCustomer(deps.db, origin, invoice.customerId)]);
    const view = { seller: workspace?.name ?? 'The seller', customer: customer?.name ?? customer?.email ?? null, invoice, state };
    if (status === 503) reply.header('retry-after', '5');
    return send(reply, status, renderPaymentPage(view));
  }

  /** The buyer, anonymous, in the tenant the token names; null when the token does not check out. */
  const originOf = (token: string, correlationId: string): (OperationContext & { invoiceId: string }) | null => {
    const named = readHostedInvoiceToken(deps.secrets, token);
    if (!named) return null;
    return { ...named, actor: { type: 'ANONYMOUS', id: 'payment_page' }, correlationId, source: 'api' };
  };

  const tags = ['Invoices'];
  await app.register(async (scoped) => {
    const scope = scoped as unknown as App;
    // The Pay button posts an empty form: its body is never read.
    keepBodiesRaw(scope);

    scope.get('/pay/:token', {
      config: { auth: { kind: 'none' } },
      schema: {
        operationId: 'retrieveInvoicePaymentPage',
        summary: 'An invoice’s payment page (HTML)',
        description:
          'The page an invoice’s hostedInvoiceUrl opens, for the buyer: who is paid, the invoice’s number, issue and due dates, total and amount due, and a Pay button when Stripe is connected to its environment and something is owed. A paid invoice says so (with the date), a void or uncollectible one that nothing can be paid there. Public, no key (the token in the address is checked against the server’s key ring); never cached; no script. An address that names no invoice, or a draft, is a 404 HTML page.',
        tags,
        security: publicSecurity,
        params: Params,
        response: {
          200: Html('The payment page.'),
          404: Html('No invoice at this address (an HTML page).'),
          429: errors()[429] as ReturnType<typeof errors>[number],
        },
      },
      handler: async (req, reply) => {
        const origin = originOf(req.params.token, req.correlationId);
        const invoice = origin && (await findInvoice(deps.db, origin, origin.invoiceId));
        if (!origin || !invoice || invoice.status === 'draft') return send(reply, 404, renderPaymentPageNotFound());
        // A buyer back from Stripe may be ahead of its webhook: a page left open is read first.
        const latest = await refreshPaymentPage(deps, collection, origin, invoice);
        const busy = latest.invoice.latestAttemptStatus === 'pending' || latest.invoice.latestAttemptStatus === 'processing';
        return page(reply, origin, latest.invoice, busy ? 'busy' : 'open');
      },
    });

    scope.post('/pay/:token', {
      config: { auth: { kind: 'none' } },
      schema: {
        operationId: 'payInvoiceThroughPage',
        summary: 'Pay an invoice through Stripe (the payment page’s Pay button)',
        description:
          'What the payment page’s Pay button posts (its body is not read). Answers 303 to a Stripe-hosted Checkout page for the amount still owed; the buyer comes back to the payment page after paying or giving up. A Checkout page still open is reused rather than a second one made, and any newer attempt (a retry, a charge of a new card) withdraws it first, so an invoice is never paid twice. The payment is an attempt with trigger payment_page (GET /api/v1/invoices/{id}/payments); its outcome arrives through Stripe’s webhooks (checkout.session.completed, payment_intent.succeeded) and the reconciliation, and marks the invoice paid (invoice.paid). Otherwise the payment page, saying why: nothing owed, Stripe not connected, a payment in flight (200), or Stripe not answering (503 with Retry-After; nothing was charged).',
        tags,
        security: publicSecurity,
        params: Params,
        response: {
          200: Html('Nothing to pay now: the page says why.'),
          303: Type.Null({ description: 'To the Stripe-hosted Checkout page (Location).' }),
          404: Html('No invoice at this address (an HTML page).'),
          429: errors()[429] as ReturnType<typeof errors>[number],
          503: Html('Stripe did not answer: the page, with Retry-After.'),
        },
      },
      handler: async (req, reply) => {
        const origin = originOf(req.params.token, req.correlationId);
        const r = origin && (await payThroughPage(deps, collection, origin, origin.invoiceId));
        if (!origin || !r) return send(reply, 404, renderPaymentPageNotFound());
        if (r.kind === 'redirect') return reply.code(303).header('location', r.url).header('cache-control', 'no-store').send();
        const state: PageState = r.kind === 'settled' ? 'open' : r.kind;
        return page(reply, origin, r.invoice, state, r.kind === 'unavailable' ? 503 : 200);
      },
    });
  });
}
