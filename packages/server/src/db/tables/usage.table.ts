export interface UsageEventTable {
  seq: number;
  workspaceId: string;
  environment: string;
  customerId: string;
  metricName: string;
  /** Decimal text, exactly as sent. */
  quantity: string;
  occurredAt: number;
  /** Start of the UTC calendar month of occurredAt: the aggregate the event counts in. */
  periodStart: number;
  receivedAt: number;
  eventId: string | null;
  metadata: string | null;
  /** api, upload or webhook. */
  source: string;
}

export interface UsageAggregateTable {
  workspaceId: string;
  environment: string;
  customerId: string;
  metricName: string;
  periodStart: number;
  /**
   * '' for the total over every dimension, else the JSON [executionStatus, tool, endpoint] of a
   * dimension's share (rating-dimension.ts).
   */
  dimension: string;
  quantitySum: string;
  eventCount: number;
  updatedAt: number;
}
