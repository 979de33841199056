import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { bearerSecurity, errors, IdempotencyHeaders, IdParams, ListOf, ListQuery } from '../../http/schemas.js';
import type { App } from '../../http/types.js';
import { toIso } from '../../lib/clock.js';
import { notFound } from '../../lib/errors.js';
import { requireCustomerByRef } from '../customers/customer-refs.js';
import { CustomerRefParams } from '../customers/customer.js';
import { idempotent } from '../idempotency/idempotent.js';
import {
  CreateCreditGrantBody,
  CreditBalanceSchema,
  CreditGrantSchema,
  CreditLedgerEntrySchema,
  presentCreditGrant,
  presentLedgerEntry,
} from './credit-grant.js';
import { creditBalances, findGrant, grantsPage, ledgerPage } from './credit-ledger.repository.js';
import { createCreditGrant, voidCreditGrant } from './grant-credits.js';
import type { CreditInvoicing } from './credit-invoicing.js';
import { checkCreditSettings, CreditSettingsSchema, presentCreditSettings, PutCreditSettingsBody } from './credit-settings.js';
import { listCreditSettings, putCreditSettings } from './credit-settings.repository.js';
import { creditsChanged } from './live-credits.js';
import { inTransaction } from '../../db/transaction.js';
import { recordAudit } from '../audit/audit-event.repository.js';

const admin = { auth: { kind: 'workspace', scope: 'admin' } } as const;
const tags = ['Credits'];
const Currency = Type.Optional(Type.String({ minLength: 3, maxLength: 3, description: 'ISO 4217: only this currency.' }));

/** Prepaid credits: grants, their void, and a customer's ledger and balance (modules/credits/README.md). */
export async function creditRoutes(app: App, deps: Deps, invoicing: CreditInvoicing): Promise<void> {
  app.post('/api/v1/credit_grants', {
    config: admin,
    schema: {
      operationId: 'createCreditGrant',
      summary: 'Grant credits to a customer',
      description:
        "Prepaid credits the customer's usage draws from, in time order: grants with a lower priority first, then the soonest to expire, then the oldest. A grant may be limited to one subscription or some metrics, start later (effectiveAt) and expire (expiresAt). It is entered in the customer's credit ledger at once; a purchased grant (source purchased) when the invoice for its cost, issued with it, is paid.",
      tags,
      security: bearerSecurity,
      headers: IdempotencyHeaders,
      body: CreateCreditGrantBody,
      response: { 200: CreditGrantSchema, ...errors(400, 403, 404) },
    },
    handler: (req, reply) => idempotent(deps, req, reply, async (tx) => presentCreditGrant(await createCreditGrant(tx, req.ctx, req.body, invoicing))),
  });

  app.get('/api/v1/credit_grants', {
    config: admin,
    schema: {
      operationId: 'listCreditGrants',
      summary: 'List credit grants, newest first',
      description: "Credit grants of the key's environment, newest first, with cursor pagination; filter by customer (cus_ id or externalId) and currency.",
      tags,
      security: bearerSecurity,
      querystring: Type.Object(
        { ...ListQuery, customerId: Type.Optional(Type.String({ maxLength: 255, description: 'cus_… or your externalId.' })), currency: Currency },
        { additionalProperties: false },
      ),
      response: { 200: ListOf(CreditGrantSchema), ...errors(403, 404) },
    },
    handler: async (req) => {
      const { customerId, currency, ...page } = req.query;
      const customer = customerId === undefined ? undefined : (await requireCustomerByRef(deps.db, req.ctx, customerId, 'query.customerId')).id;
      const found = await grantsPage(deps.db, req.ctx, { ...page, ...(customer ? { customerId: customer } : {}), ...(currency ? { currency } : {}) });
      return { object: 'list' as const, data: found.items.map(presentCreditGrant), hasMore: found.hasMore };
    },
  });

  app.get('/api/v1/credit_grants/:id', {
    config: admin,
    schema: {
      operationId: 'retrieveCreditGrant',
      summary: 'Retrieve a credit grant',
      description: 'One credit grant by its id, with what is left of it (remaining) and its status.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: CreditGrantSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const grant = await findGrant(deps.db, deps, req.ctx, req.params.id);
      if (!grant) throw notFound('credit grant', req.params.id);
      return presentCreditGrant(grant);
    },
  });

  app.post('/api/v1/credit_grants/:id/void', {
    config: admin,
    schema: {
      operationId: 'voidCreditGrant',
      summary: 'Void what is left of a credit grant',
      description:
        'Takes away what the grant has left (a void entry in the ledger); what was drawn stays drawn. 409 when the grant is not active or nothing is left of it.',
      tags,
      security: bearerSecurity,
      params: IdParams,
      response: { 200: CreditGrantSchema, ...errors(403, 404, 409) },
    },
    handler: async (req) => presentCreditGrant(await voidCreditGrant(deps, req.ctx, req.params.id)),
  });

  app.get('/api/v1/customers/:id/credit_ledger', {
    config: admin,
    schema: {
      operationId: 'listCreditLedgerEntries',
      summary: 'A customer’s credit ledger, newest first',
      description:
        "Every grant, top-up, draw, expiry, void and rollover of the customer's credits, never changed, each with the balance after it, newest first, with cursor pagination. The balance is always the sum of the ledger.",
      tags,
      security: bearerSecurity,
      params: CustomerRefParams,
      querystring: Type.Object({ ...ListQuery, currency: Currency }, { additionalProperties: false }),
      response: { 200: ListOf(CreditLedgerEntrySchema), ...errors(403, 404) },
    },
    handler: async (req) => {
      const customer = await requireCustomerByRef(deps.db, req.ctx, req.params.id, 'path.id');
      const { currency, ...page } = req.query;
      const found = await ledgerPage(deps.db, req.ctx, customer.id, currency, page);
      return { object: 'list' as const, data: found.items.map(presentLedgerEntry), hasMore: found.hasMore };
    },
  });

  app.get('/api/v1/customers/:id/credit_balance', {
    config: admin,
    schema: {
      operationId: 'retrieveCreditBalance',
      summary: 'A customer’s credit balance',
      description: "The customer's prepaid credit balance in each currency it has credits in: the sum of its ledger.",
      tags,
      security: bearerSecurity,
      params: CustomerRefParams,
      response: { 200: CreditBalanceSchema, ...errors(403, 404) },
    },
    handler: async (req) => {
      const customer = await requireCustomerByRef(deps.db, req.ctx, req.params.id, 'path.id');
      const balances = await creditBalances(deps.db, req.ctx, customer.id);
      return {
        object: 'credit_balance' as const,
        customerId: customer.id,
        balances: balances.map((b) => ({ currency: b.currency, balance: b.balance, updatedAt: toIso(b.updatedAt) })),
      };
    },
  });

  app.get('/api/v1/customers/:id/credit_settings', {
    config: admin,
    schema: {
      operationId: 'listCreditSettings',
      summary: 'A customer’s credit settings',
      description: "The customer's low-balance alert and automatic top-up in each currency it has settings in (PUT sets them), with the top-up's state.",
      tags,
      security: bearerSecurity,
      params: CustomerRefParams,
      response: {
        200: Type.Object({ object: Type.Literal('list'), data: Type.Array(CreditSettingsSchema, { maxItems: 200 }), hasMore: Type.Boolean() }),
        ...errors(403, 404),
      },
    },
    handler: async (req) => {
      const customer = await requireCustomerByRef(deps.db, req.ctx, req.params.id, 'path.id');
      return { object: 'list' as const, data: (await listCreditSettings(deps.db, req.ctx, customer.id)).map(presentCreditSettings), hasMore: false };
    },
  });

  app.put('/api/v1/customers/:id/credit_settings/:currency', {
    config: admin,
    schema: {
      operationId: 'putCreditSettings',
      summary: 'Set a customer’s credit settings in a currency',
      description:
        'lowBalanceThreshold: credits.balance_low is sent each time the live balance (what the entitlement check computes) falls below it. autoTopUp: below its threshold, buy `amount` of credits for `cost` (a purchased grant and its invoice, charged like any invoice), at most maxPerPeriod times per billing period and once per crossing: the next waits until the last is paid. Both are checked when the entitlement check runs. Replaces what was set; null or absent clears it. credits.exhausted is sent at zero whatever is set.',
      tags,
      security: bearerSecurity,
      params: Type.Object(
        { id: CustomerRefParams.properties.id, currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217.' }) },
        { additionalProperties: false },
      ),
      body: PutCreditSettingsBody,
      response: { 200: CreditSettingsSchema, ...errors(400, 403, 404) },
    },
    handler: async (req) => {
      const customer = await requireCustomerByRef(deps.db, req.ctx, req.params.id, 'path.id');
      const checked = checkCreditSettings(req.body, req.params.currency);
      const saved = await inTransaction(deps.db, async (trx) => {
        const s = await putCreditSettings(trx, req.ctx, customer.id, req.params.currency, checked, deps.clock.now());
        await recordAudit(trx, deps, req.ctx, {
          eventType: 'credit_settings.updated',
          targetType: 'customer',
          targetId: customer.id,
          payload: { currency: s.currency, lowBalanceThreshold: s.lowBalanceThreshold, autoTopUp: s.autoTopUp },
        });
        await creditsChanged(deps, trx);
        return s;
      });
      return presentCreditSettings(saved);
    },
  });
}
