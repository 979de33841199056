/**
 * The screens loaded on first visit: each import() below is a chunk of its own (esbuild's
 * splitting; scripts/bundle.mjs), so the first screen (sign-in, or the shell around a loading
 * screen) needs only Preact, the app's frame and the sign-in and invitation forms. Shared code (the
 * money wording with decimal.js, PagedTable, the charts) goes to chunks the screens import, fetched
 * with the first screen that needs them. Several components of one module share its chunk.
 */
import { lazyScreen } from './components/lazy-screen.js';

export const Home = lazyScreen(() => import('./screens/home.js').then((m) => m.Home));
export const Customers = lazyScreen(() => import('./screens/customers.js').then((m) => m.Customers));
export const CustomerDetail = lazyScreen(() => import('./screens/customer-detail.js').then((m) => m.CustomerDetail));
export const InvoiceDetail = lazyScreen(() => import('./screens/invoice-detail.js').then((m) => m.InvoiceDetail));
export const Metrics = lazyScreen(() => import('./screens/metrics.js').then((m) => m.Metrics));
export const RatePlans = lazyScreen(() => import('./screens/rate-plans.js').then((m) => m.RatePlans));
export const RatePlanEditor = lazyScreen(() => import('./screens/rate-plans.js').then((m) => m.RatePlanEditor));
export const Offerings = lazyScreen(() => import('./screens/offerings.js').then((m) => m.Offerings));
export const Storefronts = lazyScreen(() => import('./screens/storefronts.js').then((m) => m.Storefronts));
export const Keys = lazyScreen(() => import('./screens/keys.js').then((m) => m.Keys));
export const WebhookSources = lazyScreen(() => import('./screens/webhooks.js').then((m) => m.WebhookSources));
export const WebhookSourceDetail = lazyScreen(() => import('./screens/webhooks.js').then((m) => m.WebhookSourceDetail));
export const WebhookEntry = lazyScreen(() => import('./screens/webhooks.js').then((m) => m.WebhookEntry));
export const OutboundEndpoints = lazyScreen(() => import('./screens/outbound.js').then((m) => m.OutboundEndpoints));
export const OutboundEndpoint = lazyScreen(() => import('./screens/outbound.js').then((m) => m.OutboundEndpoint));
export const OutboundDelivery = lazyScreen(() => import('./screens/outbound.js').then((m) => m.OutboundDelivery));
export const Audit = lazyScreen(() => import('./screens/audit.js').then((m) => m.Audit));
export const TestClocks = lazyScreen(() => import('./screens/test-clocks.js').then((m) => m.TestClocks));
export const PaymentSettings = lazyScreen(() => import('./screens/payment-settings.js').then((m) => m.PaymentSettings));
export const Operators = lazyScreen(() => import('./screens/operators.js').then((m) => m.Operators));
