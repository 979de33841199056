/**
 * The OpenAPI document's tags, in the order the reference page lists them, each with what its
 * operations are for. Every tag a route names must be here (test: http/openapi.test.ts).
 */
export const openApiTags = [
  { name: 'System', description: 'Where things are (GET /), and liveness and readiness probes for load balancers and orchestrators. No credential.' },
  { name: 'Workspace', description: 'The workspace and environment a key belongs to.' },
  { name: 'Customers', description: 'Whoever you bill. Customers carry your own externalId and metadata.' },
  { name: 'Products', description: 'What a subscription grants access to; entitlement checks and product keys name one.' },
  { name: 'Metrics', description: 'Billable metrics: the kinds of usage that events report and rate plans price.' },
  { name: 'Subscriptions', description: 'A customer on an offering: its billing period, usage limits, spend budget and unit prices.' },
  { name: 'Plan changes', description: 'Upgrade, downgrade, lateral change and cancellation, now (prorated) or at the period end, with a preview first.' },
  {
    name: 'Widget',
    description:
      'The embeddable upgrade and cancel widget: its script, and the routes it calls with a widget session token (`wst_…`) from the buyer’s browser.',
  },
  { name: 'API keys', description: 'Workspace keys (`sk_…`) for your backend and product keys for your customers; rotate, roll and revoke.' },
  { name: 'Client credentials', description: 'OAuth client credentials for customers of an AI agent or MCP server.' },
  { name: 'OAuth', description: 'The token endpoint: client credentials in, a short-lived access token out. No API key.' },
  { name: 'Storefront keys', description: 'Public keys (`X-Storefront-Key`) that read one storefront’s published pricing.' },
  {
    name: 'Operators',
    description: 'The people who sign in to the console: sign-in and sign-out (a session cookie), invitations, removal. Roles: admin and viewer.',
  },
  { name: 'Widget sessions', description: 'Short-lived tokens your backend mints so the widget can act on one subscription.' },
  {
    name: 'Hub sessions',
    description:
      'The developer hub for your customers: your backend mints a session and a single-use link for one customer; the hub page opens it for a cookie.',
  },
  {
    name: 'Developer hub',
    description:
      'What the hub page calls with its cookie, for its one customer: keys (rotate, roll, revoke), usage, quotas, invoices, credit notes and subscriptions.',
  },
  { name: 'Usage ingestion', description: 'Send usage events: one, a batch of up to 1,000, or a historical upload.' },
  { name: 'Usage', description: 'Usage read back: sums and counts per customer, metric and month.' },
  { name: 'Entitlements', description: 'May this customer use this product now: the check to make before serving a request.' },
  { name: 'Rate plans', description: 'How metrics are priced: per unit, flat rate, graduated or volume tiers.' },
  { name: 'Offerings', description: 'What a customer subscribes to: a product with an entry price, a billing period and rate plans.' },
  { name: 'Storefronts', description: 'Groups of offerings shown together, with a draft and a published version.' },
  { name: 'Headless pricing', description: 'A published storefront for your own pricing page: as JSON, or as our hosted page.' },
  { name: 'Invoices', description: 'Invoices of each billing period and plan change, their life cycle, and the billing settings.' },
  { name: 'Credit notes', description: 'Credit against an issued invoice.' },
  { name: 'Payments', description: 'Collecting what invoices say: the payment providers connected to each environment (Stripe).' },
  {
    name: 'Credits',
    description:
      'Prepaid credits: grants a customer’s usage draws from (by priority, then the soonest expiry), and the ledger of every change with the balance after it.',
  },
  { name: 'Test clocks', description: 'Simulated time for the test environment: advance a clock to renew and invoice its customers’ subscriptions.' },
  { name: 'Webhook ingestion', description: 'Usage from third-party webhooks, authenticated by the provider’s signature instead of a key.' },
  { name: 'Webhook sources', description: 'One per provider account: its signing secret, event filter and field mappings to usage.' },
  { name: 'Webhook ingestion log', description: 'Every received webhook with its raw body, what became of it, and replay.' },
  {
    name: 'Outbound webhooks',
    description: 'Events Tollgate sends to your endpoints (see the webhooks section), the endpoints themselves and the delivery log.',
  },
  { name: 'Audit events', description: 'Who changed what and when: search, saved searches and a live stream.' },
] as const;
