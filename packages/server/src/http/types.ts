import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Credential, Scope } from '../modules/api-keys/credential.js';
import type { OperationContext } from '../modules/audit/audit-event.js';

/**
 * What a route needs from the caller, declared in the route's `config.auth`:
 * - workspace: a workspace key holding `scope`;
 * - workspace_or_product: that, or a product key (the operation then checks it acts on itself);
 * - storefront: an X-Storefront-Key;
 * - none: public, limited per IP.
 */
export type AuthRequirement =
  | { kind: 'workspace'; scope: Scope }
  | { kind: 'workspace_or_product'; scope: Scope }
  | { kind: 'storefront' }
  | { kind: 'none' };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthRequirement;
    /** false exempts a route from rate limiting (health checks). */
    rateLimited?: boolean;
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

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
