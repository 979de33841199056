import type { MetadataValue } from './usage-event.js';

/**
 * The metadata fields rating depends on: `executionStatus` (OUTCOME_BASED weights), `tool` and
 * `endpoint` (per-tool and per-endpoint multipliers). Aggregates are kept per distinct
 * combination so that a period can be rated from a few rows; the combination is stored as one
 * text key. Only string values count: anything else is as if absent.
 *
 * Cardinality is the seller's choice: `endpoint` is meant to be a route name ("POST /v1/chat"),
 * not a raw path with ids in it.
 */
export interface RatingDimension {
  executionStatus: string | null;
  tool: string | null;
  endpoint: string | null;
}

/** The key of events without any of the fields: most events, and every event before this existed. */
export const NO_DIMENSION = '';

/**
 * The dimension of the aggregate row holding a (customer, metric, month)'s total over every
 * dimension. The same key as NO_DIMENSION: events without a dimension are the total less the
 * other rows, and a month without dimensions stays one row.
 */
export const TOTAL = '';

const asString = (v: MetadataValue | undefined): string | null => (typeof v === 'string' ? v : null);

export function dimensionKeyOf(metadata: Readonly<Record<string, MetadataValue>> | null): string {
  if (metadata === null) return NO_DIMENSION;
  const s = asString(metadata.executionStatus);
  const t = asString(metadata.tool);
  const e = asString(metadata.endpoint);
  if (s === null && t === null && e === null) return NO_DIMENSION;
  return JSON.stringify([s, t, e]);
}

export function parseDimensionKey(key: string): RatingDimension {
  if (key === NO_DIMENSION) return { executionStatus: null, tool: null, endpoint: null };
  const [executionStatus, tool, endpoint] = JSON.parse(key) as [string | null, string | null, string | null];
  return { executionStatus, tool, endpoint };
}
