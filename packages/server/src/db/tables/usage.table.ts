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

/**
 * Usage per UTC hour: what rates a period that starts at any instant. Like usage_aggregates, a
 * total row (dimension '') per (customer, metric, hour) and a row per rating dimension holding its
 * share; events without a dimension are the total less those shares.
 */
export interface UsageHourlyTable {
  workspaceId: string;
  environment: string;
  customerId: string;
  metricName: string;
  /** Start of the UTC hour (epoch ms, a multiple of 3,600,000) the events occurred in. */
  hourStart: number;
  /** '' for the total over every dimension, else a dimension's share (as in usage_aggregates). */
  dimension: string;
  /** Exact decimal text. */
  quantitySum: string;
  eventCount: number;
  updatedAt: number;
}

/** An event's `eventId`, claimed for 24 hours (0015): a batch skips an id claimed within the window. */
export interface UsageEventClaimTable {
  workspaceId: string;
  environment: string;
  eventId: string;
  /** When the id was last claimed; a claim older than the window is taken over. */
  claimedAt: number;
}
