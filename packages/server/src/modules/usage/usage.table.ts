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
  /** Rating dimension key: '' or JSON [executionStatus, tool, endpoint] (rating-dimension.ts). */
  dimension: string;
  quantitySum: string;
  eventCount: number;
  updatedAt: number;
}

/** One row per (customer, metric, month): the sum of that month's aggregate rows over every dimension. */
export interface UsageTotalTable {
  workspaceId: string;
  environment: string;
  customerId: string;
  metricName: string;
  periodStart: number;
  quantitySum: string;
  eventCount: number;
  updatedAt: number;
}
