import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import type { App } from '../../http/types.js';
import { errors, ListOf, ListQuery } from '../../http/schemas.js';
import { hubSecurity } from '../hub-sessions/hub-session.routes.js';
import { hubSessionOf } from '../hub-sessions/hub-session-of.js';
import { listSubscriptions } from '../subscriptions/subscription.repository.js';
import { InvoiceSchema, presentInvoice } from '../billing/invoice.js';
import { listInvoices } from '../billing/invoice.repository.js';
import { CreditNoteSchema, presentCreditNote } from '../billing/credit-note.js';
import { listCreditNotes } from '../billing/credit-note.repository.js';
import { reportUsage, UsageQuery, UsageRowSchema } from '../usage/usage-report.js';
import { createWidgetSession } from '../widget-sessions/create-widget-session.js';
import { CreatedWidgetSessionSchema, CreateWidgetSessionBody, presentWidgetSession } from '../widget-sessions/widget-session.js';
import { listCustomerQuotas, QuotaSchema } from './customer-quotas.js';
import { HubSubscriptionSchema, presentHubSubscriptions } from './customer-plans.js';

const hub = { auth: { kind: 'hub_session' } } as const;
const tags = ['Developer hub'];
const Page = Type.Object(ListQuery, { additionalProperties: false });
// The customer is the session's: a query cannot name another.
const { customerId: _customerId, ...usageFields } = UsageQuery.properties;
const HubUsageQuery = Type.Object(usageFields, { additionalProperties: false });
const HubWidgetSessionBody = Type.Object(
  { subscriptionId: CreateWidgetSessionBody.properties.subscriptionId, expiresInSeconds: CreateWidgetSessionBody.properties.expiresInSeconds },
  { additionalProperties: false },
);

/** What the hub shows of the customer's account: each read filtered by the session's customer in the owning module's query. */
export async function hubAccountRoutes(app: App, deps: Deps): Promise<void> {
  app.get('/api/v1/hub/subscriptions', {
    config: hub,
    schema: {
      operationId: 'listHubSubscriptions',
      summary: "The customer's subscriptions, newest first",
      description:
        "The hub session's customer's subscriptions, cancelled ones included, each with its product's name (`productName`) and its plan's name and price (`plan`), so the hub never shows a bare id.",
      tags,
      security: hubSecurity,
      querystring: Page,
      response: { 200: ListOf(HubSubscriptionSchema), ...errors() },
    },
    handler: async (req) => {
      const page = await listSubscriptions(deps.db, req.ctx, { ...req.query, customerId: hubSessionOf(req).customerId });
      return { object: 'list' as const, data: await presentHubSubscriptions(deps, req.ctx, page.items), hasMore: page.hasMore };
    },
  });

  app.post('/api/v1/hub/widget_session', {
    config: hub,
    schema: {
      operationId: 'createHubWidgetSession',
      summary: 'A widget session for one of the customer’s subscriptions',
      description:
        'So that the hub can embed the upgrade/cancel widget: a widget session (`wst_…`, shown once) for one subscription of the hub session’s customer; another customer’s subscription reads as absent (404), a cancelled one gets 409 SUBSCRIPTION_NOT_ACTIVE. Needs X-CSRF-Token.',
      tags,
      security: hubSecurity,
      body: HubWidgetSessionBody,
      response: { 200: CreatedWidgetSessionSchema, ...errors(403, 404, 409) },
    },
    handler: async (req) => {
      const { session, token } = await createWidgetSession(deps, req.ctx, req.body, hubSessionOf(req).customerId);
      return { ...presentWidgetSession(session), token };
    },
  });

  app.get('/api/v1/hub/invoices', {
    config: hub,
    schema: {
      operationId: 'listHubInvoices',
      summary: "The customer's invoices, newest first",
      description:
        "The hub session's customer's issued invoices (finalized, paid, void, uncollectible), with their lines; drafts, which may still change, are left out.",
      tags,
      security: hubSecurity,
      querystring: Page,
      response: { 200: ListOf(InvoiceSchema), ...errors() },
    },
    handler: async (req) => {
      const page = await listInvoices(deps.db, req.ctx, { ...req.query, customerId: hubSessionOf(req).customerId, issuedOnly: true });
      return { object: 'list' as const, data: page.items.map((i) => presentInvoice(i, deps, req.ctx)), hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/hub/credit_notes', {
    config: hub,
    schema: {
      operationId: 'listHubCreditNotes',
      summary: "The customer's credit notes, newest first",
      description: "The hub session's customer's credit notes.",
      tags,
      security: hubSecurity,
      querystring: Page,
      response: { 200: ListOf(CreditNoteSchema), ...errors() },
    },
    handler: async (req) => {
      const page = await listCreditNotes(deps.db, req.ctx, { ...req.query, customerId: hubSessionOf(req).customerId });
      return { object: 'list' as const, data: page.items.map(presentCreditNote), hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/hub/usage', {
    config: hub,
    schema: {
      operationId: 'retrieveHubUsage',
      summary: "The customer's usage per metric and month (sum and count)",
      description: "The operator API's usage report (GET /api/v1/usage), for the hub session's customer only.",
      tags,
      security: hubSecurity,
      querystring: HubUsageQuery,
      response: { 200: ListOf(UsageRowSchema), ...errors() },
    },
    handler: async (req) => {
      const page = await reportUsage(deps, req.ctx, { ...req.query, customerId: hubSessionOf(req).customerId });
      return { object: 'list' as const, data: page.items, hasMore: page.hasMore };
    },
  });

  app.get('/api/v1/hub/quotas', {
    config: hub,
    schema: {
      operationId: 'listHubQuotas',
      summary: 'What the customer has left this period, per product',
      description:
        'For each product the hub session’s customer holds a live subscription to: the entitlement check’s answer (allowed, quota and budget remaining, each usage limit with the period’s usage so far), with the product’s and plan’s names (`productName`, `plan`), the metric the remaining quota is of (`quotaMetric`) and each limit’s metric label. Read-only.',
      tags,
      security: hubSecurity,
      response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(QuotaSchema), hasMore: Type.Boolean() }), ...errors() },
    },
    handler: async (req) => ({ object: 'list' as const, data: await listCustomerQuotas(deps, req.ctx, hubSessionOf(req).customerId), hasMore: false }),
  });
}
