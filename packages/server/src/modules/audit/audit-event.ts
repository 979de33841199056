import type { Environment } from '../../lib/crypto.js';
import type { ActorType } from '../../lib/operation-context.js';
import type { AuditEventType } from './audit-event-types.js';

/** Severities, lowest first; search filters by "this and above". */
export const severities = ['DEBUG', 'INFO', 'NOTICE', 'WARN', 'ERROR', 'CRITICAL'] as const;
export type Severity = (typeof severities)[number];

export interface AuditEventInput {
  eventType: AuditEventType;
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
