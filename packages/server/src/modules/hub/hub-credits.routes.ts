import { Type } from '@sinclair/typebox';
import { Decimal } from '@tollgate/pricing';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { errors, IdempotencyHeaders, ListQuery } from '../../http/schemas.js';
import { toIso } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { hubSecurity } from '../hub-sessions/hub-session.routes.js';
import { hubSessionOf } from '../hub-sessions/hub-session-of.js';
import { listSubscriptions } from '../subscriptions/subscription.repository.js';
import { InvoiceSchema, presentInvoice } from '../billing/invoice.js';
import { findInvoice } from '../billing/invoice.repository.js';
import { runIdempotent } from '../idempotency/run-idempotent.js';
import { CreditGrantSchema, CreditLedgerEntrySchema, presentCreditGrant, presentLedgerEntry, type CreditGrant } from '../credits/credit-grant.js';
import { creditBalances, grantsOf, ledgerPage } from '../credits/credit-ledger.repository.js';
import type { CreditInvoicing } from '../credits/credit-invoicing.js';
import { createCreditGrant } from '../credits/grant-credits.js';

const hub = { auth: { kind: 'hub_session' } } as const;
const tags = ['Developer hub'];
/** The most grants the summary lists, and the most subscriptions whose currencies it reads (as a grant's check does). */
const GRANTS_SHOWN = 100;
const SUBSCRIPTIONS_READ = 100;
const LEDGER_FIRST_PAGE = 10;

const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217.' });
const LedgerPage = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(CreditLedgerEntrySchema, { maxItems: 100 }),
    hasMore: Type.Boolean({ description: 'Older entries exist beyond this page (the next page: startingAfter the last id).' }),
  },
  { title: 'HubCreditLedgerPage' },
);

const HubCreditsSchema = Type.Object(
  {
    object: Type.Literal('hub_credits'),
    balances: Type.Array(Type.Object({ currency: CurrencyCode, balance: Type.String({ maxLength: 40 }), updatedAt: Type.String({ maxLength: 40 }) }), {
      maxItems: 200,
      description: 'The balance in each currency the customer has had credits in: the sum of its ledger.',
    }),
    grants: Type.Array(CreditGrantSchema, {
      maxItems: GRANTS_SHOWN,
      description:
        'The grants that still count: active ones with something left, and pending purchases (not yet paid). Soonest expiry first (never-expiring ones last), then the oldest; at most 100.',
    }),
    purchaseCurrencies: Type.Array(CurrencyCode, {
      maxItems: SUBSCRIPTIONS_READ,
      description: 'The currencies the customer may buy credits in: those its subscriptions (not cancelled) bill in. Empty: no purchase.',
    }),
    ledger: LedgerPage,
  },
  { title: 'HubCredits' },
);

const PurchaseBody = Type.Object(
  {
    amount: Type.String({ minLength: 1, maxLength: 40, description: 'The credits to buy, greater than 0, in the currency’s minor unit at most: "20.00".' }),
    currency: Type.String({ minLength: 3, maxLength: 3, description: 'One the customer’s subscriptions bill in (`purchaseCurrencies`).' }),
  },
  { additionalProperties: false, title: 'HubCreditPurchaseRequest' },
);

const LedgerQuery = Type.Object({ ...ListQuery, currency: Type.Optional(CurrencyCode) }, { additionalProperties: false });

/** Soonest expiry first, never-expiring last, then the oldest: the order usage draws them in, priority aside. */
const byExpiry = (a: CreditGrant, b: CreditGrant) =>
  (a.expiresAt ?? Number.MAX_SAFE_INTEGER) - (b.expiresAt ?? Number.MAX_SAFE_INTEGER) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const counts = (g: CreditGrant) => g.status === 'pending' || (g.status === 'active' && !new Decimal(g.remaining).isZero());

/** The currencies the customer's subscriptions (not cancelled) bill in, sorted. */
async function purchaseCurrencies(deps: Deps, req: FastifyRequest, customerId: string): Promise<string[]> {
  const subs = await listSubscriptions(deps.db, req.ctx, { customerId, limit: SUBSCRIPTIONS_READ });
  return [...new Set(subs.items.filter((s) => s.status !== 'CANCELLED').map((s) => s.currency))].sort();
}

/**
 * The customer's prepaid credits in the hub: balance, what is left of each grant, the ledger, and
 * buying more (a purchased grant, pending until the invoice for it is paid). Every read and the
 * purchase take the customer from the session, never from the request.
 */
export async function hubCreditRoutes(app: App, deps: Deps, invoicing: CreditInvoicing): Promise<void> {
  app.get('/api/v1/hub/credits', {
    config: hub,
    schema: {
      operationId: 'retrieveHubCredits',
      summary: "The customer's prepaid credits: balances, grants left and the ledger's first page",
      description:
        "For the hub session's customer: the balance per currency, the grants that still count (active with something left, and pending purchases) soonest expiry first, the currencies credits may be bought in, and the newest 10 ledger entries (GET /api/v1/hub/credits/ledger pages on).",
      tags,
      security: hubSecurity,
      response: { 200: HubCreditsSchema, ...errors() },
    },
    handler: async (req) => {
      const customerId = hubSessionOf(req).customerId;
      const [balances, grants, currencies, ledger] = await Promise.all([
        creditBalances(deps.db, req.ctx, customerId),
        // credits has no query for "active or pending": every grant of the customer is read (a few per period) and filtered here.
        grantsOf(deps.db, req.ctx, customerId),
        purchaseCurrencies(deps, req, customerId),
        ledgerPage(deps.db, req.ctx, customerId, undefined, { limit: LEDGER_FIRST_PAGE }),
      ]);
      return {
        object: 'hub_credits' as const,
        balances: balances.map((b) => ({ currency: b.currency, balance: b.balance, updatedAt: toIso(b.updatedAt) })),
        grants: grants.filter(counts).sort(byExpiry).slice(0, GRANTS_SHOWN).map(presentCreditGrant),
        purchaseCurrencies: currencies,
        ledger: { object: 'list' as const, data: ledger.items.map(presentLedgerEntry), hasMore: ledger.hasMore },
      };
    },
  });

  app.get('/api/v1/hub/credits/ledger', {
    config: hub,
    schema: {
      operationId: 'listHubCreditLedgerEntries',
      summary: "The customer's credit ledger, newest first",
      description:
        "The hub session's customer's credit ledger (every grant, top-up, draw, expiry, void and rollover, each with the balance after it), newest first, with cursor pagination; `currency` for one currency.",
      tags,
      security: hubSecurity,
      querystring: LedgerQuery,
      response: { 200: LedgerPage, ...errors() },
    },
    handler: async (req) => {
      const { currency, ...page } = req.query;
      const found = await ledgerPage(deps.db, req.ctx, hubSessionOf(req).customerId, currency, page);
      return { object: 'list' as const, data: found.items.map(presentLedgerEntry), hasMore: found.hasMore };
    },
  });

  app.post('/api/v1/hub/credits/purchases', {
    config: hub,
    schema: {
      operationId: 'createHubCreditPurchase',
      summary: 'Buy prepaid credits',
      description:
        "The hub session's customer buys `amount` of credits for the same amount: a purchased grant, pending, and a finalized invoice for its cost (billing reason credit_purchase), as POST /api/v1/credit_grants with source purchased. The grant becomes active when the invoice is paid: charged by the payment provider when the seller connected one, else when the seller records the payment; its payment page is `invoice.hostedInvoiceUrl`. `currency` must be one the customer's subscriptions bill in (400 naming body.currency; a customer without subscriptions buys nothing). Idempotency-Key makes a retry return the first purchase. Needs X-CSRF-Token.",
      tags,
      security: hubSecurity,
      headers: IdempotencyHeaders,
      body: PurchaseBody,
      response: {
        200: Type.Object({ object: Type.Literal('hub_credit_purchase'), grant: CreditGrantSchema, invoice: InvoiceSchema }, { title: 'HubCreditPurchase' }),
        ...errors(403, 422),
      },
    },
    handler: async (req, reply) => {
      const customerId = hubSessionOf(req).customerId;
      const { amount, currency } = req.body;
      const currencies = await purchaseCurrencies(deps, req, customerId);
      if (!currencies.includes(currency))
        throw new AppError(
          'VALIDATION_FAILED',
          currencies.length === 0
            ? 'You have no subscription for credits to pay for: subscribe first.'
            : `currency must be one your subscriptions bill in (${currencies.join(', ')}).`,
          { field: 'body.currency' },
        );
      const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : undefined;
      const outcome = await runIdempotent(
        deps,
        {
          workspaceId: req.ctx.workspaceId,
          environment: req.ctx.environment,
          // The customer's own namespace: another customer's key (or the seller's) never replays here.
          key: key === undefined ? undefined : `hub:${customerId}:${key}`,
          method: req.method,
          route: '/api/v1/hub/credits/purchases',
          body: req.body,
        },
        async (tx) => {
          const grant = await createCreditGrant(tx, req.ctx, { customerId, amount, currency, source: 'purchased' }, invoicing);
          const invoice = grant.invoiceId === null ? null : await findInvoice(tx.db, req.ctx, grant.invoiceId);
          if (!invoice) throw new Error(`purchased grant ${grant.id} has no invoice`);
          return { object: 'hub_credit_purchase' as const, grant: presentCreditGrant(grant), invoice: presentInvoice(invoice, deps, req.ctx) };
        },
      );
      if (outcome.replayed) reply.header('idempotent-replayed', 'true');
      return outcome.body;
    },
  });
}
