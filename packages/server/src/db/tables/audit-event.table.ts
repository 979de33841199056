import type { Generated } from 'kysely';

export interface AuditEventTable {
  /** Commit order (see migration 0006): with tx, the live stream's cursor. */
  seq: Generated<number>;
  /** PostgreSQL: the inserting transaction's id; SQLite: always 0. */
  tx: Generated<number>;
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
