import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Cross-origin access for routes a browser calls from another site (the seller's page). The
 * headless configuration is public data read with a key meant for websites: any origin. The
 * widget routes carry a session token in Authorization: the caller's own origin is echoed (with
 * `Vary: Origin`), and authentication refuses origins a session does not list.
 */
export interface CorsPolicy {
  /** '*': any page may read the answers; 'echo': the request's Origin, when it is one. */
  allowOrigin: '*' | 'echo';
  /** Preflight: Access-Control-Allow-Methods. */
  methods: string;
  /** Preflight: Access-Control-Allow-Headers. */
  headers: string;
  /** Response headers a page's script may read. */
  expose: string;
  maxAgeSeconds: number;
}

/** scheme://host[:port], the only form of an Origin header worth echoing ('null' is not one). */
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]{1,253}(?::[0-9]{1,5})?$/;

/** The request's Origin header when it is a web origin, else null. */
export function originOf(request: FastifyRequest): string | null {
  const origin = request.headers.origin;
  return typeof origin === 'string' && ORIGIN.test(origin) ? origin : null;
}

/** The CORS headers of an actual (non-preflight) response. */
export function corsHeaders(policy: CorsPolicy, request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = { 'access-control-expose-headers': policy.expose };
  if (policy.allowOrigin === '*') {
    out['access-control-allow-origin'] = '*';
    return out;
  }
  // The answer differs per Origin, so caches must keep them apart.
  out.vary = 'Origin';
  const origin = originOf(request);
  if (origin) out['access-control-allow-origin'] = origin;
  return out;
}

/**
 * A preflight's answer (204, no body). Preflights carry no credentials, so nothing is checked
 * here; the actual request is authenticated, and refused there if its origin is not allowed.
 */
export function preflight(policy: CorsPolicy) {
  return async (request: FastifyRequest, reply: FastifyReply) =>
    reply
      .code(204)
      .headers({
        ...corsHeaders(policy, request),
        'access-control-allow-methods': policy.methods,
        'access-control-allow-headers': policy.headers,
        'access-control-max-age': String(policy.maxAgeSeconds),
      })
      .send();
}
