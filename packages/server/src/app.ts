import Fastify, { LogController } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Composition } from './compose.js';
import { AppError, MAX_REPORTED_ERRORS } from './lib/errors.js';
import { clientErrorHandler, errorHandler, frameworkErrorHandler } from './http/error-handler.js';
import { validatorCompiler } from './http/validation.js';
import { lazySerializerFactory } from './http/lazy-schemas.js';
import { apiReferenceRoutes } from './http/api-reference.routes.js';
import { MAX_JSON_DEPTH } from './lib/json-limits.js';
import { registerBodyParsers } from './http/body-parsers.js';
import { healthRoutes } from './http/health.routes.js';
import { rootRoutes } from './http/root.routes.js';
import { logRequests } from './http/request-log.js';
import { AllowedMethods } from './http/method-not-allowed.js';
import { metricsRoutes, recordHttpMetrics, traceRequests } from './http/metrics.routes.js';
import { clearBodyDeadline, startBodyDeadline } from './http/slow-clients.js';
import { checkUrlAndHeaders } from './http/check-url-and-headers.js';
import type { App } from './http/types.js';
import { customerRoutes } from './modules/customers/customer.routes.js';
import { productRoutes } from './modules/products/product.routes.js';
import { metricRoutes } from './modules/metrics/metric.routes.js';
import { subscriptionRoutes } from './modules/subscriptions/subscription.routes.js';
import { planChangeRoutes } from './modules/plan-changes/plan-change.routes.js';
import { widgetRoutes } from './modules/plan-changes/widget.routes.js';
import { retentionOfferRoutes } from './modules/retention-offers/retention-offer.routes.js';
import { apiKeyRoutes } from './modules/api-keys/api-key.routes.js';
import { clientCredentialRoutes } from './modules/client-credentials/client-credential.routes.js';
import { oauthRoutes } from './modules/client-credentials/oauth.routes.js';
import { storefrontKeyRoutes } from './modules/storefront-keys/storefront-key.routes.js';
import { widgetSessionRoutes } from './modules/widget-sessions/widget-session.routes.js';
import { operatorRoutes } from './modules/operators/operator.routes.js';
import { hubSessionRoutes } from './modules/hub-sessions/hub-session.routes.js';
import { hubKeyRoutes } from './modules/hub/hub-keys.routes.js';
import { hubAccountRoutes } from './modules/hub/hub-account.routes.js';
import { hubUsageRoutes } from './modules/hub/hub-usage.routes.js';
import { hubPaymentRoutes } from './modules/hub/hub-payments.routes.js';
import { hubCreditRoutes } from './modules/hub/hub-credits.routes.js';
import { workspaceRoutes } from './modules/tenancy/workspace.routes.js';
import { usageRoutes } from './modules/usage/usage.routes.js';
import { uploadRoutes } from './modules/usage/upload.routes.js';
import { entitlementRoutes } from './modules/entitlements/entitlement.routes.js';
import { scopeDescriptions } from './modules/credentials/credential.js';
import { authenticationHook, requireOperatorAccess } from './modules/authentication/authenticate.js';
import { verifyKeyRoutes } from './modules/authentication/verify-key.routes.js';
import { boundCredentials } from './modules/authentication/bound-credentials.js';
import { subscriptionBilling } from './modules/billing/open-subscription.js';
import { invoiceRoutes } from './modules/billing/invoice.routes.js';
import { testClockBilling } from './modules/billing/advance-test-clock.js';
import { testClockRoutes } from './modules/test-clocks/test-clock.routes.js';
import { paymentProviderRoutes } from './modules/payments/payment-provider.routes.js';
import { stripeWebhookRoutes } from './modules/billing/stripe-webhook.routes.js';
import { hostedInvoiceRoutes } from './modules/billing/hosted-invoice.routes.js';
import { paymentMethodRoutes } from './modules/payments/payment-method.routes.js';
import { refundRoutes } from './modules/payments/refund.routes.js';
import { creditRoutes } from './modules/credits/credit.routes.js';
import { creditInvoicing } from './modules/billing/purchase-credits.js';
import { catalogRoutes } from './modules/catalog/catalog.routes.js';
import { headlessConfigRoutes } from './modules/catalog/headless-config.routes.js';
import { pricingPageRoutes } from './modules/catalog/pricing-page.routes.js';
import { widgetScriptRoutes } from './modules/widget-assets/widget-script.routes.js';
import { consoleRoutes, hubPageRoutes } from './modules/console-assets/console.routes.js';
import { widgetDemoRoutes } from './demo/widget-demo-page.js';
import type { DemoWorkspace } from './demo/create-demo-workspace.js';
import { billingRoutes } from './modules/billing/billing.routes.js';
import { webhookRoutes } from './modules/plugs/webhook.routes.js';
import { auditEventRoutes } from './modules/audit/audit-event.routes.js';
import { webhookSourceRoutes } from './modules/plugs/webhook-source.routes.js';
import { apiRequestRecorder, scheduleApiRequestSummaries } from './modules/audit/record-api-requests.js';
import { webhookEndpointRoutes } from './modules/outbound-webhooks/webhook-endpoint.routes.js';
import { webhookDeliveryRoutes } from './modules/outbound-webhooks/webhook-delivery.routes.js';
import { systemResolver, type HostResolver } from './modules/outbound-webhooks/resolve-destination.js';
import { outboundWebhookDocs } from './openapi-webhooks.js';
import { openApiTags } from './openapi-tags.js';
import { hoistNamedSchemas } from './openapi-components.js';
import { addExamples } from './openapi-examples.js';

export const apiDescription = `Usage metering and billing for APIs, AI agents and MCP servers.

Authenticate with \`Authorization: Bearer <key>\`. The key decides the workspace and the environment:
\`sk_test_\` keys read and write test data only, \`sk_live_\` keys live data only.

Workspace key scopes: ${Object.entries(scopeDescriptions)
  .map(([s, d]) => `\`${s}\` (${d})`)
  .join('; ')}.

Errors share one envelope: \`{"success": false, "errors": [{"code", "message", "field"?}]}\`.
JSON bodies need \`Content-Type: application/json\` (else 415), nest at most ${MAX_JSON_DEPTH} levels and hold no NUL
character; nor may a path or query value. A 400 lists at most ${MAX_REPORTED_ERRORS} problems and counts the rest.
Lists are newest first with cursor pagination (\`limit\`, \`startingAfter\`, \`endingBefore\`) and
return \`{"object": "list", "data": [...], "hasMore"}\`. Creates accept an \`Idempotency-Key\` header.
The embeddable widget's routes (\`/v1/widget/*\`) take a widget session token (\`wst_test_…\`, \`wst_live_…\`) and
nothing else: your backend mints one for one subscription with \`POST /api/v1/widget_sessions\` and the buyer's
browser carries only that; such a token works nowhere else.
Webhook URLs (\`POST /v1/ingest/webhook/{sourceId}\`) take no key: the provider's signature, verified on the
raw body, authenticates them, and the source decides the workspace and environment.
Every workspace gets 300 requests per minute (shared by its test and live environments) unless
its limit was raised; public routes are limited per IP address.`;

export interface BuildAppOptions {
  /** The DNS the outbound webhook SSRF guard resolves endpoint hosts with; tests inject one. */
  webhookResolver?: HostResolver;
  /** The demo workspace created at this start: the development profile serves its widget demo page. */
  demo?: DemoWorkspace | null;
}

/** Builds the app with every module registered; never listens, so tests inject requests. */
export async function buildApp(composition: Composition, opts: BuildAppOptions = {}): Promise<App> {
  const { deps, usage, auditFeed } = composition;
  const app = Fastify({
    logger: false,
    loggerInstance: deps.log,
    // Fastify's own two lines per request carry the URL as sent; http/request-log.ts writes one line, with the route's pattern.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.bodyLimitBytes,
    trustProxy: deps.config.trustProxy,
    genReqId: () => deps.ids.next('request'),
    routerOptions: { ignoreTrailingSlash: true },
    // Slow clients: headers within HTTP_HEADERS_TIMEOUT_MS (checked every second, not Node's
    // default 30 s); bodies by the hooks below.
    http: { headersTimeout: deps.config.httpHeadersTimeoutMs, connectionsCheckingInterval: Math.min(1_000, deps.config.httpHeadersTimeoutMs) },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // While closing, requests already on a kept-alive connection are served (storage closes only
    // after the server has), rather than answered with Fastify's own 503 outside the envelope.
    return503OnClosing: false,
    // Response serializers compiled at their first use, once per process (http/lazy-schemas.ts).
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(errorHandler);
  registerBodyParsers(app);

  // Observability first, so the span and the timings cover every other hook (docs/production.md, "Metrics and tracing").
  traceRequests(app, deps);
  app.addHook('onResponse', recordHttpMetrics(deps));
  if (deps.config.requestLog) app.addHook('onResponse', logRequests(deps.log));
  // The per-request hooks are synchronous, callback-style, where their work is: an async hook
  // costs a promise and a microtask turn on every request (issue 40 measured each hook alone).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onRequest', startBodyDeadline(deps.config.httpBodyTimeoutMs));
  app.addHook('preValidation', clearBodyDeadline);
  app.addHook('onResponse', clearBodyDeadline);
  app.addHook('onRequest', checkUrlAndHeaders);
  app.addHook('onRequest', authenticationHook(deps));

  // Request traffic goes to the audit log as a per-tenant summary a minute (audit/README.md).
  const requests = apiRequestRecorder(deps);
  app.addHook('onResponse', requests.onResponse);
  app.decorate('flushRequestSummaries', requests.flush);
  const stopRequestSummaries = scheduleApiRequestSummaries(requests);
  app.addHook('onClose', async () => stopRequestSummaries());

  const webhookDocs = outboundWebhookDocs();
  await app.register(swagger, {
    // Shared shapes (titled schemas) become components.schemas entries and $refs
    // (openapi-components.ts); then every body and response gets an example (openapi-examples.ts).
    transformObject: (document) => addExamples(hoistNamedSchemas('openapiObject' in document ? document.openapiObject : document.swaggerObject)),
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Tollgate API', version: '1.0.0', description: apiDescription, license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } },
      servers: [{ url: '/' }],
      tags: [...openApiTags],
      webhooks: webhookDocs.webhooks,
      components: {
        schemas: webhookDocs.schemas,
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'sk_test_… or sk_live_… key' },
          storefrontKey: { type: 'apiKey', in: 'header', name: 'X-Storefront-Key' },
          consoleSession: {
            type: 'apiKey',
            in: 'cookie',
            name: '__Host-tollgate_console',
            description:
              "The operator console's session (POST /api/v1/operator_sessions). It stands in for an API key on every operator route when no Authorization header is sent; changes also need X-CSRF-Token, and X-Tollgate-Environment picks the environment.",
          },
          widgetSession: {
            type: 'http',
            scheme: 'bearer',
            description:
              "wst_test_… or wst_live_…: a widget session minted by the seller's backend (POST /api/v1/widget_sessions); the widget routes (/v1/widget/*) take it and nothing else.",
          },
          hubSession: {
            type: 'apiKey',
            in: 'cookie',
            name: '__Host-tollgate_hub',
            description:
              "The developer hub's session cookie, set by POST /api/v1/hub/session from the single-use link the seller's backend minted (POST /api/v1/hub_sessions); the hub routes (/api/v1/hub/*) take it and nothing else, with X-CSRF-Token on unsafe methods.",
          },
        },
      },
    },
  });

  // A path that exists under other methods is a 405 naming them (Allow), not a 404.
  const allowed = new AllowedMethods();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) allowed.add({ method, url: route.url });
  });
  app.setNotFoundHandler((request) => {
    const path = request.url.split('?')[0] ?? '';
    const methods = allowed.of(path);
    if (methods.length > 0) {
      throw new AppError('METHOD_NOT_ALLOWED', `${path} does not take ${request.method}; it takes ${methods.join(', ')}.`, {
        headers: { allow: methods.join(', ') },
      });
    }
    throw new AppError('ROUTE_NOT_FOUND', `No route ${request.method} ${path}. See /docs for the API.`);
  });

  await rootRoutes(app);
  await healthRoutes(app, deps, usage);
  await metricsRoutes(app, deps);

  await app.register(async (scoped) => {
    const a = scoped as unknown as App;
    await workspaceRoutes(a, deps);
    await customerRoutes(a, deps);
    await productRoutes(a, deps);
    await metricRoutes(a, deps);
    await subscriptionRoutes(a, deps, subscriptionBilling);
    await planChangeRoutes(a, deps, boundCredentials, subscriptionBilling);
    await widgetRoutes(a, deps, boundCredentials, subscriptionBilling);
    await retentionOfferRoutes(a, deps);
    await apiKeyRoutes(a, deps);
    await verifyKeyRoutes(a, deps);
    await clientCredentialRoutes(a, deps);
    await oauthRoutes(a, deps);
    await storefrontKeyRoutes(a, deps);
    await widgetSessionRoutes(a, deps);
    await operatorRoutes(a, deps);
    await hubSessionRoutes(a, deps);
    await hubKeyRoutes(a, deps);
    await hubAccountRoutes(a, deps);
    await hubPaymentRoutes(a, deps, { bound: boundCredentials });
    await hubCreditRoutes(a, deps, creditInvoicing);
    await usageRoutes(a, deps, usage);
    await uploadRoutes(a, deps, usage);
    await hubUsageRoutes(a, deps, usage);
    await entitlementRoutes(a, deps);
    await catalogRoutes(a, deps);
    await headlessConfigRoutes(a, deps, requireOperatorAccess);
    await pricingPageRoutes(a, deps);
    await widgetScriptRoutes(a, deps);
    await consoleRoutes(a, deps);
    await hubPageRoutes(a, deps);
    if (opts.demo && deps.config.profile === 'development') await widgetDemoRoutes(a, deps, opts.demo);
    await billingRoutes(a, deps);
    await invoiceRoutes(a, deps, { bound: boundCredentials });
    await testClockRoutes(a, deps, testClockBilling(boundCredentials));
    await paymentProviderRoutes(a, deps);
    await stripeWebhookRoutes(a, deps, { bound: boundCredentials });
    await hostedInvoiceRoutes(a, deps, { bound: boundCredentials });
    await paymentMethodRoutes(a, deps);
    await refundRoutes(a, deps);
    await creditRoutes(a, deps, creditInvoicing);
    await webhookRoutes(a, deps, usage);
    await webhookSourceRoutes(a, deps, usage);
    await webhookEndpointRoutes(a, deps, opts.webhookResolver ?? systemResolver);
    await webhookDeliveryRoutes(a, deps);
    await auditEventRoutes(a, deps, auditFeed);
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await apiReferenceRoutes(app);

  return app;
}
