export interface AuditEventTable {
  id: string;
  /** Null only for platform events that belong to no tenant. */
  workspaceId: string | null;
  environment: string | null;
  eventType: string;
  source: string;
  severity: string;
  actorType: string;
  actorId: string;
  targetType: string | null;
  targetId: string | null;
  payload: string;
  correlationId: string;
  createdAt: number;
}
