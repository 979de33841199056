export interface AuditSearchPresetTable {
  id: string;
  workspaceId: string;
  environment: string;
  name: string;
  /** JSON: the filters as GET /v1/events takes them (audit-filter.ts AuditFilterQuery). */
  filters: string;
  createdAt: number;
}
