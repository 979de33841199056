import type { Environment } from '../../lib/crypto.js';

/** Severities, lowest first; search filters by "this and above". */
export const severities = ['DEBUG', 'INFO', 'NOTICE', 'WARN', 'ERROR', 'CRITICAL'] as const;
export type Severity = (typeof severities)[number];

export const actorTypes = ['SYSTEM', 'OPERATOR', 'WORKSPACE_KEY', 'PRODUCT_KEY', 'CLIENT_CREDENTIAL', 'STOREFRONT_KEY', 'WEBHOOK_SOURCE', 'ANONYMOUS'] as const;
export type ActorType = (typeof actorTypes)[number];

/** Where an event came from: the HTTP API, the CLI, or the service itself (jobs, start-up). */
export type AuditSource = 'api' | 'cli' | 'system' | 'oauth' | 'webhook';

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

export interface AuditEventInput {
  eventType: string;
  severity?: Severity;
  targetType?: string | null;
  targetId?: string | null;
  payload?: Record<string, unknown>;
}

/** The spec's audit event, as the API shows it. */
export interface AuditEvent {
  eventId: string;
  tenantId: string | null;
  environment: Environment | null;
  eventType: string;
  source: string;
  severity: Severity;
  actorType: ActorType;
  actorId: string;
  targetType: string | null;
  targetId: string | null;
  payload: Record<string, unknown>;
  correlationId: string;
  createdAt: number;
}
