import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Credential, Scope } from '../lib/principal.js';
import type { OperationContext } from '../lib/operation-context.js';

/**
 * What a route needs from the caller, declared in the route's `config.auth`:
 * - workspace: a workspace key holding `scope`;
 * - workspace_or_product: that, or a product key (the operation then checks it acts on itself);
 * - storefront: an X-Storefront-Key;
 * - widget_session: `Authorization: Bearer wst_…`, a widget session and nothing else (the browser
 *   side of the upgrade/cancel widget; such routes answer CORS for the session's origins);
 * - console: the operator console's session cookie and nothing else (its own session routes);
 * - hub_session: the developer hub's cookie (`__Host-tollgate_hub`) and nothing else, with
 *   `X-CSRF-Token` on unsafe methods (a customer's browser, for one customer);
 * - none: public, limited per IP.
 * The workspace kinds also take the console's session cookie when no Authorization header is
 * sent: an admin operator holds every scope, a viewer may only use safe methods.
 */
export type AuthRequirement =
  | { kind: 'workspace'; scope: Scope }
  | { kind: 'workspace_or_product'; scope: Scope }
  | { kind: 'storefront' }
  | { kind: 'widget_session' }
  | { kind: 'console' }
  | { kind: 'hub_session' }
  | { kind: 'none' };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRequirement;
    /** false exempts a route from rate limiting (health checks). */
    rateLimited?: boolean;
    /** The route reads its body as a stream (uploads): no body deadline, an idle watch instead (http/slow-clients.ts). */
    streamsBody?: boolean;
  }
  interface FastifyRequest {
    credential: Credential | null;
    /** Set on authenticated routes: the tenant and actor every operation runs as. */
    ctx: OperationContext;
    correlationId: string;
    /** The JSON body as received, for idempotency fingerprints. */
    rawBody?: string;
  }
}

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;
