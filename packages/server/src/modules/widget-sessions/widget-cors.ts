import type { CorsPolicy } from '../../http/cors.js';

/** Every widget route is under this path; its preflights are answered for all of them at once. */
export const WIDGET_BASE_PATH = '/v1/widget';

/**
 * The widget calls from the seller's page with its token in Authorization: the page's origin is
 * echoed (authentication refuses origins the session does not list), and the rate-limit and
 * correlation headers are readable by the widget's script.
 */
export const widgetCors: CorsPolicy = {
  allowOrigin: 'echo',
  methods: 'GET, POST',
  headers: 'Authorization, Content-Type, Idempotency-Key, X-Correlation-Id',
  expose:
    'X-Request-Id, X-Correlation-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit, RateLimit-Policy, Retry-After, Idempotent-Replayed',
  maxAgeSeconds: 600,
};
