import { valueAtPath } from '../../lib/dotted-path.js';
import { DEFAULT_DIMENSION_PATHS, type DimensionPaths } from '../metrics/metric.js';
import type { MetadataValue } from './usage-event.js';

/**
 * The metadata fields rating depends on: the execution status (OUTCOME_BASED weights), the tool
 * and the endpoint (per-tool and per-endpoint multipliers), read at the metric's dimension paths
 * (by default the top-level keys `executionStatus`, `tool` and `endpoint`; a metric may name
 * nested ones such as `call.tool`, fixed when it is created). Aggregates are kept per distinct
 * combination so that a period can be rated from a few rows; the combination is stored as one
 * text key. Only string values count: anything else (a number, an object) is as if absent.
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

/** A metric's dimension paths as segments: made once per batch, source or period, not per event. */
export interface DimensionReader {
  executionStatus: readonly string[];
  tool: readonly string[];
  endpoint: readonly string[];
}

/** Paths were checked against DOTTED_PATH_PATTERN when the metric was created. */
export function dimensionReaderOf(paths: DimensionPaths): DimensionReader {
  return { executionStatus: paths.executionStatus.split('.'), tool: paths.tool.split('.'), endpoint: paths.endpoint.split('.') };
}

/** The top-level keys: every metric without paths of its own, and events before paths existed. */
export const DEFAULT_DIMENSIONS = dimensionReaderOf(DEFAULT_DIMENSION_PATHS);

const asString = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function dimensionKeyOf(metadata: Readonly<Record<string, MetadataValue>> | null, reader: DimensionReader = DEFAULT_DIMENSIONS): string {
  if (metadata === null) return NO_DIMENSION;
  const s = asString(valueAtPath(metadata, reader.executionStatus));
  const t = asString(valueAtPath(metadata, reader.tool));
  const e = asString(valueAtPath(metadata, reader.endpoint));
  if (s === null && t === null && e === null) return NO_DIMENSION;
  return JSON.stringify([s, t, e]);
}

export function parseDimensionKey(key: string): RatingDimension {
  if (key === NO_DIMENSION) return { executionStatus: null, tool: null, endpoint: null };
  const [executionStatus, tool, endpoint] = JSON.parse(key) as [string | null, string | null, string | null];
  return { executionStatus, tool, endpoint };
}
