import type { Environment } from './crypto.js';

export const actorTypes = [
  'SYSTEM',
  'OPERATOR',
  'WORKSPACE_KEY',
  'PRODUCT_KEY',
  'CLIENT_CREDENTIAL',
  'STOREFRONT_KEY',
  'WIDGET_SESSION',
  'HUB_SESSION',
  'WEBHOOK_SOURCE',
  'ANONYMOUS',
] as const;
export type ActorType = (typeof actorTypes)[number];

/**
 * Where an event came from: the HTTP API, the embeddable widget (a browser holding a widget
 * session), the operator console (a browser holding a console session), the developer hub (a
 * customer's browser holding a hub session), the CLI, or the service itself (jobs, start-up).
 */
export type AuditSource = 'api' | 'widget' | 'console' | 'hub' | 'cli' | 'system' | 'oauth' | 'webhook';

export interface Actor {
  type: ActorType;
  id: string;
}

/**
 * Who is acting, for which tenant, and under which correlation id. Operations take it from the
 * credential (never from a body or a query string) and stamp it on every audit event they write.
 */
export interface OperationContext {
  workspaceId: string;
  environment: Environment;
  actor: Actor;
  correlationId: string;
  source: AuditSource;
}
