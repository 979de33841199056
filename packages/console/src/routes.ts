/**
 * The console's screens and their paths under /console: a table, matched by a pure function, so
 * a deep link, the navigation and the server's SPA fallback agree (the server answers index.html
 * for any /console path without a file extension; this decides what it shows).
 */
export const BASE = '/console';

export type ScreenName =
  | 'home'
  | 'customers'
  | 'customer'
  | 'invoice'
  | 'catalog'
  | 'catalog-rate-plans'
  | 'catalog-rate-plan'
  | 'catalog-offerings'
  | 'catalog-storefronts'
  | 'keys'
  | 'webhooks'
  | 'webhook-source'
  | 'webhook-entry'
  | 'outbound'
  | 'outbound-endpoint'
  | 'outbound-delivery'
  | 'audit'
  | 'test-clocks'
  | 'operators'
  | 'payment-settings'
  | 'sign-in'
  | 'accept';

export interface Route {
  name: ScreenName;
  params: Record<string, string>;
}

/** A pattern's segments: literal text, or `:name` for one path segment. */
const ROUTES: ReadonlyArray<readonly [ScreenName, string]> = [
  ['home', '/'],
  ['sign-in', '/sign-in'],
  ['accept', '/accept'],
  ['customers', '/customers'],
  ['customer', '/customers/:id'],
  ['invoice', '/invoices/:id'],
  ['catalog', '/catalog'],
  ['catalog-rate-plans', '/catalog/rate-plans'],
  // :id is a plan_… id, or `new` for the create form (no plan id is `new`).
  ['catalog-rate-plan', '/catalog/rate-plans/:id'],
  ['catalog-offerings', '/catalog/offerings'],
  ['catalog-storefronts', '/catalog/storefronts'],
  ['keys', '/keys'],
  ['webhooks', '/webhooks'],
  ['webhook-source', '/webhooks/:id'],
  ['webhook-entry', '/webhooks/:id/log/:entryId'],
  ['outbound', '/outbound'],
  ['outbound-endpoint', '/outbound/:id'],
  ['outbound-delivery', '/outbound/:id/deliveries/:messageId'],
  ['audit', '/audit'],
  ['test-clocks', '/test-clocks'],
  ['operators', '/operators'],
  // Settings of the workspace's environment; more (billing) may join under /settings.
  ['payment-settings', '/settings/payments'],
];

/** The navigation, in order: each entry is a route above without parameters. */
export const NAV: ReadonlyArray<{ name: ScreenName; label: string }> = [
  { name: 'home', label: 'Home' },
  { name: 'customers', label: 'Customers' },
  { name: 'catalog', label: 'Catalog' },
  { name: 'keys', label: 'Keys' },
  { name: 'webhooks', label: 'Webhooks' },
  { name: 'outbound', label: 'Outbound' },
  { name: 'audit', label: 'Audit log' },
  { name: 'test-clocks', label: 'Test clocks' },
  { name: 'payment-settings', label: 'Payments' },
  { name: 'operators', label: 'Operators' },
];

const segments = (path: string) => path.split('/').filter((s) => s !== '');

/**
 * The route of a pathname, or null when it names no screen (outside /console, an unknown path, a
 * segment that is not valid percent-encoding). A trailing slash and repeated slashes do not count.
 */
export function matchRoute(pathname: string): Route | null {
  if (pathname !== BASE && !pathname.startsWith(`${BASE}/`)) return null;
  let parts: string[];
  try {
    parts = segments(pathname.slice(BASE.length)).map(decodeURIComponent);
  } catch {
    return null;
  }
  for (const [name, pattern] of ROUTES) {
    const want = segments(pattern);
    if (want.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const ok = want.every((w, i) => {
      const got = parts[i] as string;
      if (w.startsWith(':')) {
        params[w.slice(1)] = got;
        return got !== '';
      }
      return w === got;
    });
    if (ok) return { name, params };
  }
  return null;
}

/** The path of a screen, its parameters percent-encoded: hrefOf('customer', { id }) is /console/customers/<id>. */
export function hrefOf(name: ScreenName, params: Record<string, string> = {}): string {
  const entry = ROUTES.find(([n]) => n === name);
  if (!entry) throw new RangeError(`no route ${name}`);
  const path = segments(entry[1])
    .map((s) => {
      if (!s.startsWith(':')) return s;
      const value = params[s.slice(1)];
      if (value === undefined || value === '') throw new RangeError(`route ${name} needs ${s.slice(1)}`);
      return encodeURIComponent(value);
    })
    .join('/');
  return path === '' ? BASE : `${BASE}/${path}`;
}

/** Pages under a navigation entry: a customer's page, and an invoice (always some customer's), light up Customers. */
const SECTION_OF: Partial<Record<ScreenName, ScreenName>> = {
  customer: 'customers',
  invoice: 'customers',
  'webhook-source': 'webhooks',
  'webhook-entry': 'webhooks',
  'outbound-endpoint': 'outbound',
  'outbound-delivery': 'outbound',
  'catalog-rate-plans': 'catalog',
  'catalog-rate-plan': 'catalog',
  'catalog-offerings': 'catalog',
  'catalog-storefronts': 'catalog',
};

/** The navigation entry a route belongs to: a customer's page lights up Customers. */
export function navSectionOf(route: Route | null): ScreenName | null {
  if (!route) return null;
  const section = SECTION_OF[route.name];
  if (section) return section;
  return NAV.some((n) => n.name === route.name) ? route.name : null;
}
